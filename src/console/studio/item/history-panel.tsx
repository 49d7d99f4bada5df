/**
 * The item's revisions, newest first (GET /items/:c/:id/history): who, when, which fields; a
 * revision's diff (GET /revisions/:id/diff) on demand; revert to a revision (POST
 * /utils/revert/:revision). Above them the time control: the item as it was at a moment
 * (`as_of`), read-only, with "restore this" (POST /utils/revert with `as_of`).
 */
import { useState } from 'react';
import { Box, Button, List, ListItem, Stack, TextField, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { Confirm, useNotify, useTranslate } from 'react-admin';
import type { HistoryEntry, ID } from '../../../client/index.js';
import { errorText } from '../../dom.js';
import { client } from '../../session.js';
import type { CollectionInfo } from '../catalogue.js';
import { visibleFields } from '../fields.js';
import { DiffTable, ItemValues, useUserNames, whenOf } from './shared.js';

const PAGE = 20;

export interface PanelProps {
  readonly collection: CollectionInfo;
  readonly id: ID;
  /** After a write from the panel: the item and the form are read again. */
  readonly onWritten: () => void;
}

function RevisionDiff({ revision }: { revision: number }) {
  const translate = useTranslate();
  const { data, error } = useQuery({
    queryKey: ['studio.item.diff', revision],
    queryFn: async () => (await client.revisions.diff(revision)) ?? null,
  });
  if (error !== null) return <Typography role="alert">{errorText(error)}</Typography>;
  if (data === undefined) return <Typography variant="body2">{translate('svc.page.loading')}</Typography>;
  if (data === null) return null;
  return <DiffTable diff={data} caption={translate('svc.item.changes_in', { revision })} />;
}

function Revision({
  entry,
  who,
  mayRevert,
  onRevert,
}: {
  entry: HistoryEntry;
  who: string;
  mayRevert: boolean;
  onRevert: (entry: HistoryEntry) => void;
}) {
  const translate = useTranslate();
  const [isOpen, setOpen] = useState(false);
  return (
    <ListItem className="revision" data-revision={entry.revision} divider sx={{ display: 'block', px: 0 }}>
      <Typography variant="body2">
        <strong>{translate(`svc.item.action.${entry.action}`, { _: entry.action })}</strong>{' '}
        {translate('svc.item.by_on', { who, when: whenOf(entry.timestamp) })}
      </Typography>
      <Typography variant="caption" color="text.secondary" component="p">
        {translate('svc.item.revision_fields', {
          revision: entry.revision,
          fields: entry.fields.join(', ') || translate('svc.item.no_readable_field'),
        })}
      </Typography>
      <Stack direction="row" spacing={1} sx={{ my: 0.5, flexWrap: 'wrap' }}>
        <Button size="small" aria-expanded={isOpen} onClick={() => setOpen(!isOpen)}>
          {translate(isOpen ? 'svc.item.hide_changes' : 'svc.item.show_changes')}
        </Button>
        {mayRevert && (
          <Button size="small" color="secondary" onClick={() => onRevert(entry)}>
            {translate('svc.item.revert')}
          </Button>
        )}
      </Stack>
      {isOpen && <RevisionDiff revision={entry.revision} />}
    </ListItem>
  );
}

/** The time control: the item at a moment, read-only, and "restore this". */
function AsOf({ collection, id, onWritten }: PanelProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const [moment, setMoment] = useState('');
  const [shown, setShown] = useState<{ at: string; item: Record<string, unknown> } | null>(null);
  const [isBusy, setBusy] = useState(false);
  const show = async () => {
    const at = new Date(moment);
    if (Number.isNaN(at.getTime())) return;
    setBusy(true);
    try {
      const item = await client.items(collection.name).readOne(id, { as_of: at.toISOString() });
      setShown({ at: at.toISOString(), item: (item ?? {}) as Record<string, unknown> });
    } catch (error) {
      notify(errorText(error), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  const restore = async () => {
    if (shown === null) return;
    setBusy(true);
    try {
      await client.utils.revertAsOf(collection.name, id, shown.at);
      notify('svc.item.restored', { type: 'success', messageArgs: { when: whenOf(shown.at) } });
      setShown(null);
      onWritten();
    } catch (error) {
      notify(errorText(error), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Box component="section" aria-labelledby="studio-as-of" sx={{ mb: 2 }}>
      <Typography id="studio-as-of" variant="subtitle2" component="h3">
        {translate('svc.item.as_of')}
      </Typography>
      <Stack direction="row" sx={{ alignItems: 'center', mt: 1, flexWrap: 'wrap', gap: 1 }}>
        <TextField
          type="datetime-local"
          size="small"
          label={translate('svc.item.moment')}
          value={moment}
          onChange={(event) => setMoment(event.target.value)}
          slotProps={{ inputLabel: { shrink: true }, htmlInput: { step: 1 } }}
          sx={{ flex: '1 1 12rem', minWidth: 0, '& input': { minWidth: 0 } }}
        />
        <Button size="small" variant="outlined" disabled={moment === '' || isBusy} onClick={() => void show()}>
          {translate('svc.item.show_moment')}
        </Button>
      </Stack>
      {shown !== null && (
        <Box
          role="region"
          aria-label={translate('svc.item.at_moment', { when: whenOf(shown.at) })}
          className="as-of"
          sx={{ mt: 1, p: 1, border: 1, borderColor: 'divider', borderRadius: 1 }}
        >
          <Typography variant="body2" sx={{ fontWeight: 600 }}>
            {translate('svc.item.at_moment', { when: whenOf(shown.at) })}
          </Typography>
          <ItemValues item={shown.item} fields={visibleFields(collection).map((f) => f.name)} />
          <Stack direction="row" spacing={1} sx={{ mt: 1 }}>
            {collection.can.update && (
              <Button size="small" variant="contained" disabled={isBusy} onClick={() => void restore()}>
                {translate('svc.item.restore')}
              </Button>
            )}
            <Button size="small" onClick={() => setShown(null)}>
              {translate('svc.item.close')}
            </Button>
          </Stack>
        </Box>
      )}
    </Box>
  );
}

export function HistoryPanel(props: PanelProps) {
  const { collection, id, onWritten } = props;
  const translate = useTranslate();
  const notify = useNotify();
  const [page, setPage] = useState(1);
  const [reverting, setReverting] = useState<HistoryEntry | null>(null);
  const { data, error } = useQuery({
    queryKey: ['studio.item.history', collection.name, String(id), page],
    queryFn: async () => (await client.revisions.history(collection.name, id, { limit: PAGE, page })) ?? [],
  });
  const entries = data ?? [];
  const names = useUserNames(entries.map((e) => e.user).filter((u): u is string => typeof u === 'string'));
  const revert = async (entry: HistoryEntry) => {
    setReverting(null);
    try {
      await client.utils.revert(entry.revision);
      notify('svc.item.reverted', { type: 'success', messageArgs: { revision: entry.revision } });
      onWritten();
    } catch (failure) {
      notify(errorText(failure), { type: 'error' });
    }
  };
  return (
    <Box>
      <AsOf {...props} />
      <Typography variant="subtitle2" component="h3">
        {translate('svc.item.revisions')}
      </Typography>
      {error !== null && <Typography role="alert">{errorText(error)}</Typography>}
      {data !== undefined && entries.length === 0 && (
        <Typography variant="body2">{translate('svc.item.no_revisions')}</Typography>
      )}
      <List dense aria-label={translate('svc.item.revisions')}>
        {entries.map((entry) => (
          <Revision
            key={entry.revision}
            entry={entry}
            who={entry.user === null ? translate('svc.item.system') : (names.get(entry.user) ?? entry.user)}
            mayRevert={collection.can.update}
            onRevert={setReverting}
          />
        ))}
      </List>
      <Stack direction="row" spacing={1} component="nav" aria-label={translate('svc.item.revision_pages')}>
        {page > 1 && (
          <Button size="small" onClick={() => setPage(page - 1)}>
            {translate('svc.item.newer')}
          </Button>
        )}
        {entries.length === PAGE && (
          <Button size="small" onClick={() => setPage(page + 1)}>
            {translate('svc.item.older')}
          </Button>
        )}
      </Stack>
      <Confirm
        isOpen={reverting !== null}
        title="svc.item.revert_title"
        content="svc.item.revert_confirm"
        translateOptions={{ revision: reverting?.revision ?? '' }}
        onConfirm={() => {
          if (reverting !== null) void revert(reverting);
        }}
        onClose={() => setReverting(null)}
      />
    </Box>
  );
}
