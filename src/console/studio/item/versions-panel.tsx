/**
 * Content versions of the item (svc_versions, for a collection with `versioning`): the drafts,
 * a new one, the form switched to edit one (saves go to the version: providers.ts), and the
 * draft compared with the live item side by side (GET /versions/:id/compare), changed fields
 * marked, promoted whole or field by field (POST /versions/:id/promote).
 */
import { useEffect, useRef, useState } from 'react';
import {
  Box,
  Button,
  Checkbox,
  Chip,
  List,
  ListItem,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { visuallyHidden } from '@mui/utils';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNotify, useTranslate } from 'react-admin';
import { useLocation, useNavigate } from 'react-router-dom';
import type { VersionComparison } from '../../../client/index.js';
import { errorText } from '../../dom.js';
import { client } from '../../session.js';
import { useSystemAccess } from './access.js';
import type { PanelProps } from './history-panel.js';
import { textOf } from './shared.js';

interface VersionRow {
  readonly id: string;
  readonly key: string;
  readonly name: string | null;
}

/** The item's versions, oldest first. */
export function useVersions(collection: string, id: string, isEnabled: boolean) {
  return useQuery({
    queryKey: ['studio.item.versions', collection, id],
    enabled: isEnabled,
    queryFn: async () =>
      ((
        await client.versions.readByQuery({
          filter: { collection: { _eq: collection }, item: { _eq: id } },
          fields: ['id', 'key', 'name'],
          sort: 'date_created',
          limit: -1,
        })
      ).data ?? []) as unknown as VersionRow[],
  });
}

/** A version key from a name: letters, digits, `-` and `_` (the API's rule), else `draft`. */
function keyOf(name: string): string {
  const key = name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  return key === '' || key.toLowerCase() === 'main' ? `draft-${Date.now().toString(36)}` : key;
}

const cell = { wordBreak: 'break-word', verticalAlign: 'top', px: 1 } as const;

function Compare({ version, onPromoted }: { version: VersionRow; onPromoted: () => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const { data, error, refetch } = useQuery({
    queryKey: ['studio.item.compare', version.id],
    queryFn: async () => (await client.versions.compareContentVersion(version.id)) ?? null,
  });
  if (error !== null) return <Typography role="alert">{errorText(error)}</Typography>;
  if (data === undefined || data === null)
    return <Typography variant="body2">{translate('svc.page.loading')}</Typography>;
  const comparison: VersionComparison = data;
  const names = Object.keys(comparison.current);
  const promote = async (fields?: string[]) => {
    try {
      await client.versions.promoteContentVersion(version.id, comparison.mainHash, fields);
      notify('svc.item.promoted', {
        type: 'success',
        messageArgs: { smart_count: (fields ?? comparison.fields).length },
      });
      onPromoted();
    } catch (failure) {
      notify(errorText(failure), { type: 'error' });
      void refetch();
    }
  };
  return (
    <Box className="version-compare">
      {comparison.outdated && (
        <Typography variant="body2" color="warning.dark">
          {translate('svc.item.outdated')}
        </Typography>
      )}
      {names.length === 0 ? (
        <Typography variant="body2">{translate('svc.item.no_draft_change')}</Typography>
      ) : (
        <Box sx={{ overflowX: 'auto' }}>
          <Table size="small" sx={{ tableLayout: 'fixed' }}>
            <caption>{translate('svc.item.compare_caption', { name: version.name ?? version.key })}</caption>
            <TableHead>
              <TableRow>
                <TableCell sx={{ ...cell, width: 44 }} scope="col">
                  <Box component="span" sx={visuallyHidden}>
                    {translate('svc.item.promote_field')}
                  </Box>
                </TableCell>
                <TableCell sx={cell} scope="col">
                  {translate('svc.item.field')}
                </TableCell>
                <TableCell sx={cell} scope="col">
                  {translate('svc.item.live')}
                </TableCell>
                <TableCell sx={cell} scope="col">
                  {translate('svc.item.draft')}
                </TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {names.map((name) => {
                const isChanged = comparison.fields.includes(name);
                return (
                  <TableRow
                    key={name}
                    data-field={name}
                    className={isChanged ? 'changed' : undefined}
                    selected={isChanged}
                  >
                    <TableCell sx={cell}>
                      {isChanged && (
                        <Checkbox
                          size="small"
                          sx={{ p: 0.5 }}
                          checked={chosen.has(name)}
                          slotProps={{ input: { 'aria-label': translate('svc.item.promote_this', { field: name }) } }}
                          onChange={(event) => {
                            const next = new Set(chosen);
                            if (event.target.checked) next.add(name);
                            else next.delete(name);
                            setChosen(next);
                          }}
                        />
                      )}
                    </TableCell>
                    <TableCell sx={cell} component="th" scope="row">
                      {name}
                      {isChanged && <Chip size="small" label={translate('svc.item.changed')} sx={{ ml: 0.5 }} />}
                      {comparison.conflicts.includes(name) && (
                        <Chip size="small" color="warning" label={translate('svc.item.conflict')} sx={{ ml: 0.5 }} />
                      )}
                    </TableCell>
                    <TableCell sx={cell}>{textOf(comparison.main[name])}</TableCell>
                    <TableCell sx={cell}>{textOf(comparison.current[name])}</TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        </Box>
      )}
      <Stack direction="row" spacing={1} sx={{ mt: 1, flexWrap: 'wrap', gap: 1 }}>
        <Button size="small" variant="contained" disabled={chosen.size === 0} onClick={() => void promote([...chosen])}>
          {translate('svc.item.promote_selected')}
        </Button>
        <Button
          size="small"
          variant="outlined"
          disabled={comparison.fields.length === 0}
          onClick={() => void promote()}
        >
          {translate('svc.item.promote_all')}
        </Button>
      </Stack>
    </Box>
  );
}

/** The history state of a switch of the form (item-studio.tsx): focus the versions panel's status line. */
export const VERSION_STATUS = 'version-status';

export function VersionsPanel({
  collection,
  id,
  onWritten,
  version,
  onSwitch,
}: PanelProps & { version: string | undefined; onSwitch: (key: string | undefined) => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [comparing, setComparing] = useState<string | null>(null);
  const may = useSystemAccess();
  const { data, error } = useVersions(collection.name, String(id), true);
  const versions = data ?? [];
  // After a switch of the form (a draft created, promoted, opened), the form and this panel are
  // drawn anew and the button pressed is gone: the focus goes to the line saying what the form
  // edits now, once (the switch's history entry carries the ask; it is dropped once done).
  const status = useRef<HTMLElement>(null);
  const location = useLocation();
  const navigate = useNavigate();
  const focusAsked = (location.state as { focus?: unknown } | null)?.focus === VERSION_STATUS;
  useEffect(() => {
    if (!focusAsked || status.current === null) return;
    status.current.focus();
    void navigate({ search: location.search }, { replace: true, state: null });
  }, [focusAsked, location.search, navigate]);
  const create = async () => {
    try {
      const key = keyOf(name.trim());
      await client.versions.createContentVersion({
        key,
        name: name.trim() === '' ? key : name.trim(),
        collection: collection.name,
        item: id,
      });
      setName('');
      notify('svc.item.draft_created', { type: 'success' });
      await queryClient.invalidateQueries({ queryKey: ['studio.item.versions', collection.name, String(id)] });
      onSwitch(key);
    } catch (failure) {
      notify(errorText(failure), { type: 'error' });
    }
  };
  return (
    <Box>
      {error !== null && <Typography role="alert">{errorText(error)}</Typography>}
      <Typography variant="body2" sx={{ mb: 1 }} ref={status} tabIndex={-1}>
        {version === undefined
          ? translate('svc.item.editing_live')
          : translate('svc.item.editing_draft', { name: versions.find((v) => v.key === version)?.name ?? version })}
      </Typography>
      {version !== undefined && (
        <Button size="small" onClick={() => onSwitch(undefined)}>
          {translate('svc.item.edit_live')}
        </Button>
      )}
      <List dense aria-label={translate('svc.item.versions')}>
        {versions.map((v) => (
          <ListItem key={v.id} divider className="version" sx={{ display: 'block', px: 0 }}>
            <Typography variant="body2" sx={{ fontWeight: 600 }}>
              {v.name ?? v.key}
            </Typography>
            <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap' }}>
              {v.key !== version && (
                <Button size="small" onClick={() => onSwitch(v.key)}>
                  {translate('svc.item.edit_draft')}
                </Button>
              )}
              <Button
                size="small"
                aria-expanded={comparing === v.id}
                onClick={() => setComparing(comparing === v.id ? null : v.id)}
              >
                {translate('svc.item.compare')}
              </Button>
            </Stack>
            {comparing === v.id && (
              <Compare
                version={v}
                onPromoted={() => {
                  setComparing(null);
                  onSwitch(undefined);
                  onWritten();
                }}
              />
            )}
          </ListItem>
        ))}
      </List>
      {collection.can.update && may('svc_versions', 'create') && (
        <Stack direction="row" sx={{ alignItems: 'center', mt: 1, flexWrap: 'wrap', gap: 1 }}>
          <TextField
            size="small"
            label={translate('svc.item.draft_name')}
            value={name}
            onChange={(event) => setName(event.target.value)}
            sx={{ flex: '1 1 10rem', minWidth: 0 }}
          />
          <Button size="small" variant="outlined" onClick={() => void create()}>
            {translate('svc.item.create_draft')}
          </Button>
        </Stack>
      )}
    </Box>
  );
}
