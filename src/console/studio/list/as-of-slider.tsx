/**
 * The list's time slider: from the collection's first recorded change (its earliest svc_activity
 * row) to now, moved by dragging or by the arrow keys; letting go shows the list as it was at that
 * moment (the same `asOf` as the "As it was at" field beside it), the right end is now. Shown to
 * roles that may read the activity, on collections with any.
 */
import { useEffect, useState, type ReactElement } from 'react';
import { Box, Slider } from '@mui/material';
import { useTranslate } from 'react-admin';
import { client } from '../../session.js';
import { mayReadSystem } from '../catalogue.js';
import type { ViewProps } from './view-state.js';

/** About two hundred stops over the span, a second at least. */
const STOPS = 200;

const pad = (n: number) => String(n).padStart(2, '0');

/** `ms` as a datetime-local value (the browser's time zone, to the second): the list's `asOf`. */
function asOfValue(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getFullYear())}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** When the collection's first change was recorded; undefined while unknown or when there is none. */
function useFirstChange(collection: string, mayRead: boolean): number | undefined {
  const [first, setFirst] = useState<number | undefined>(undefined);
  useEffect(() => {
    if (!mayRead) return;
    let isCurrent = true;
    client.activity
      .readByQuery({ filter: { collection: { _eq: collection } }, aggregate: { min: 'timestamp' } })
      .then((answer) => {
        const row = (answer.data ?? [])[0] as { min?: { timestamp?: unknown } } | undefined;
        const at = Date.parse(String(row?.min?.timestamp ?? ''));
        if (isCurrent && !Number.isNaN(at)) setFirst(at);
      })
      .catch(() => undefined);
    return () => {
      isCurrent = false;
    };
  }, [collection, mayRead]);
  return first;
}

export function AsOfSlider({ collection, catalogue, state, setState }: ViewProps): ReactElement | null {
  const translate = useTranslate();
  const first = useFirstChange(collection.name, mayReadSystem(catalogue, 'svc_activity'));
  const [now] = useState(() => Date.now());
  const chosen = state.asOf === '' ? now : new Date(state.asOf).getTime();
  const [moving, setMoving] = useState<number | null>(null);
  if (first === undefined || first >= now) return null;
  const step = Math.max(1000, Math.round((now - first) / STOPS));
  // A whole number of steps, so that the right end (now) is a stop.
  const end = first + step * Math.ceil((now - first) / step);
  const label = (ms: number) => (ms >= now ? translate('svc.list.as_of_slider_now') : new Date(ms).toLocaleString());
  return (
    <Box sx={{ width: 220, maxWidth: '100%', px: 1 }}>
      <Slider
        size="small"
        min={first}
        max={end}
        step={step}
        value={Math.min(Math.max(moving ?? chosen, first), end)}
        onChange={(_e, value) => setMoving(value as number)}
        onChangeCommitted={(_e, value) => {
          setMoving(null);
          const ms = value as number;
          setState((s) => ({ ...s, asOf: ms >= now ? '' : asOfValue(ms) }));
        }}
        valueLabelDisplay="auto"
        valueLabelFormat={label}
        getAriaValueText={label}
        aria-label={translate('svc.list.as_of_slider')}
      />
    </Box>
  );
}
