/**
 * How a scalar field shows in a list, by `meta.display` and its type, as Directus's displays do:
 * dates in the browser's locale, booleans, status labels (`labels` with `display_options.choices`
 * colours, else the choice's text), JSON compact, rich text and markdown as a plain-text excerpt,
 * a colour as its swatch.
 */
import type { ReactElement } from 'react';
import { Box, Chip, Stack } from '@mui/material';
import { BooleanField, FunctionField, NumberField, TextField } from 'react-admin';
import { choicesIn, type Choice, type FieldInfo } from '../catalogue.js';

const NUMBER_TYPES = new Set(['integer', 'bigInteger', 'float', 'decimal']);
const EXCERPT = 80;

type Row = Record<string, unknown>;

/** The display's choices (`display_options.choices`, with colours), else the interface's. */
const choicesOf = (f: FieldInfo): Choice[] =>
  Array.isArray(f.displayOptions['choices']) ? choicesIn(f.displayOptions['choices']) : [...f.choices];

/** Text without its markup: the browser parses the HTML (inert), markdown loses its marks. */
function plainExcerpt(value: string, isHtml: boolean): string {
  const text = isHtml
    ? (new DOMParser().parseFromString(value, 'text/html').body.textContent ?? '')
    : value.replace(/```[\s\S]*?```/g, ' ').replace(/[#>*_`~[\]()!|-]+/g, ' ');
  return truncate(text.replace(/\s+/g, ' ').trim());
}

const truncate = (text: string): string => (text.length > EXCERPT ? `${text.slice(0, EXCERPT - 1)}…` : text);

/** A date-time or date in the browser's locale; a date alone stays on its day (no UTC shift). */
function localDate(value: unknown, type: string): string {
  if (typeof value !== 'string' || value === '') return '';
  if (type === 'time') return value;
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (type === 'date' || day !== null) {
    const [, y, m, d] = day ?? /^(\d{4})-(\d{2})-(\d{2})/.exec(value) ?? [];
    return y === undefined ? value : new Date(Number(y), Number(m) - 1, Number(d)).toLocaleDateString();
  }
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString();
}

const isDateType = (type: string) => ['dateTime', 'timestamp', 'date', 'time'].includes(type);

function Labels({ values, choices }: { values: unknown[]; choices: Choice[] }) {
  return (
    <Stack direction="row" spacing={0.5} useFlexGap flexWrap="wrap">
      {values.map((value) => {
        const choice = choices.find((c) => String(c.value) === String(value));
        return (
          <Chip
            key={String(value)}
            label={choice?.text ?? String(value)}
            size="small"
            sx={{
              ...(choice?.background === undefined ? {} : { backgroundColor: choice.background }),
              ...(choice?.foreground === undefined ? {} : { color: choice.foreground }),
            }}
          />
        );
      })}
    </Stack>
  );
}

export function displayColumnOf(f: FieldInfo): ReactElement {
  const common = { source: f.name, label: f.name };
  const render = (show: (value: unknown) => ReactElement | string) => (
    <FunctionField
      key={f.name}
      {...common}
      render={(row: Row) => (row[f.name] === null || row[f.name] === undefined ? '' : show(row[f.name]))}
    />
  );
  const choices = choicesOf(f);
  const asList = (value: unknown): unknown[] =>
    Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
  if (f.display === 'labels' || (f.display === undefined && f.interface?.startsWith('select-') && choices.length > 0)) {
    if (f.display === 'labels') return render((value) => <Labels values={asList(value)} choices={choices} />);
    return render((value) =>
      asList(value)
        .map((v) => choices.find((c) => String(c.value) === String(v))?.text ?? String(v))
        .join(', '),
    );
  }
  if (f.display === 'color' || f.interface === 'select-color')
    return render((value) => (
      <Stack direction="row" spacing={1} alignItems="center">
        <Box
          aria-hidden
          sx={{ width: 16, height: 16, borderRadius: '50%', border: 1, borderColor: 'divider', bgcolor: String(value) }}
        />
        <span>{String(value)}</span>
      </Stack>
    ));
  if (f.interface === 'input-rich-text-html' || f.interface === 'input-rich-text-md' || f.display === 'formatted-value')
    return render((value) => plainExcerpt(String(value), f.interface !== 'input-rich-text-md'));
  if (f.type === 'boolean') return <BooleanField key={f.name} {...common} />;
  if (NUMBER_TYPES.has(f.type)) return <NumberField key={f.name} {...common} />;
  if (isDateType(f.type) || f.display === 'datetime') return render((value) => localDate(value, f.type));
  if (f.interface === 'tags' || f.type === 'csv') return render((value) => asList(value).map(String).join(', '));
  if (f.type === 'json') return render((value) => truncate(JSON.stringify(value)));
  if (f.type === 'text') return render((value) => truncate(String(value)));
  return <TextField key={f.name} {...common} />;
}
