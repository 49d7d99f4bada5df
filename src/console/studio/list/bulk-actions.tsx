/**
 * What the list does to its selected items: set fields on all of them (one updateMany), delete
 * them, export them (or every item the filter selects) through the service's export job. After
 * an edit or a delete, the notification offers Undo: the API's /utils/undo over the activity
 * rows the change wrote.
 */
import { useState, type ReactElement } from 'react';
import {
  Alert,
  Button as MuiButton,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  MenuItem,
  TextField,
} from '@mui/material';
import EditIcon from '@mui/icons-material/EditNote';
import DeleteIcon from '@mui/icons-material/DeleteOutline';
import DownloadIcon from '@mui/icons-material/Download';
import {
  Button,
  Form,
  SaveButton,
  useListContext,
  useNotify,
  useRefresh,
  useTranslate,
  useCloseNotification,
} from 'react-admin';
import type { ExportFormat, Filter, ID } from '../../../client/index.js';
import { client } from '../../session.js';
import { mayWrite, type CollectionInfo } from '../catalogue.js';
import { inputOf, visibleFields } from '../fields.js';

/** The newest svc_activity id now: the change's rows come after it. */
async function newestActivity(): Promise<number> {
  const rows = (await client.activity.readByQuery({ sort: '-id', limit: 1, fields: ['id'] })).data ?? [];
  return Number((rows[0] as { id?: unknown } | undefined)?.id ?? 0);
}

/** The notification of a change, with its Undo (which closes it). */
function UndoNotice({ text, undo }: { text: string; undo: (() => void) | undefined }): ReactElement {
  const translate = useTranslate();
  const close = useCloseNotification();
  return (
    <Alert
      severity="success"
      variant="filled"
      action={
        undo === undefined ? undefined : (
          <MuiButton
            color="inherit"
            size="small"
            onClick={() => {
              close();
              undo();
            }}
          >
            {translate('svc.list.undo')}
          </MuiButton>
        )
      }
    >
      {text}
    </Alert>
  );
}

function useUndoableChange(collection: CollectionInfo) {
  const notify = useNotify();
  const refresh = useRefresh();
  const translate = useTranslate();
  return async (ids: readonly ID[], change: () => Promise<void>, done: string) => {
    const since = await newestActivity().catch(() => undefined);
    await change();
    refresh();
    const undo = async () => {
      try {
        await client.utils.undo({
          id: { _gt: since },
          collection: { _eq: collection.name },
          item: { _in: ids.map(String) },
          user: { _eq: '$CURRENT_USER' },
        });
        notify('svc.list.undone', { type: 'info' });
        refresh();
      } catch (error) {
        notify(translate('svc.list.undo_failed', { error: (error as Error).message }), { type: 'error' });
      }
    };
    notify(
      <UndoNotice
        text={translate(done, { smart_count: ids.length })}
        undo={since === undefined ? undefined : () => void undo()}
      />,
      { autoHideDuration: 10000 },
    );
  };
}

/** Sets the chosen fields on every selected item: one PATCH with the keys. */
export function BulkEditButton({ collection }: { collection: CollectionInfo }): ReactElement {
  const translate = useTranslate();
  const notify = useNotify();
  const { selectedIds, onUnselectItems } = useListContext();
  const change = useUndoableChange(collection);
  const [open, setOpen] = useState(false);
  const [chosen, setChosen] = useState<string[]>([]);
  const fields = visibleFields(collection).filter(
    (f) => !f.isPrimaryKey && !f.readonly && !f.isGenerated && mayWrite(collection, 'update', f.name),
  );
  const submit = async (values: Record<string, unknown>) => {
    const data: Record<string, unknown> = {};
    for (const name of chosen) data[name] = values[name] ?? null;
    const ids = [...selectedIds] as ID[];
    try {
      await change(
        ids,
        () =>
          client
            .items(collection.name)
            .updateMany(ids, data)
            .then(() => undefined),
        'svc.list.bulk_saved',
      );
      setOpen(false);
      setChosen([]);
      onUnselectItems();
    } catch (error) {
      notify(translate('svc.list.bulk_failed', { error: (error as Error).message }), { type: 'error' });
    }
  };
  return (
    <>
      <Button label={translate('svc.list.bulk_edit')} onClick={() => setOpen(true)}>
        <EditIcon />
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} fullWidth maxWidth="sm" aria-labelledby="bulk-edit-title">
        <DialogTitle id="bulk-edit-title">
          {translate('svc.list.bulk_edit_title', { smart_count: selectedIds.length })}
        </DialogTitle>
        <Form onSubmit={(values: Record<string, unknown>) => submit(values)}>
          <DialogContent>
            <TextField
              select
              fullWidth
              label={translate('svc.list.bulk_fields')}
              value={chosen}
              slotProps={{ select: { multiple: true } }}
              onChange={(e) => setChosen(e.target.value as unknown as string[])}
              sx={{ mb: 2 }}
            >
              {fields.map((f) => (
                <MenuItem key={f.name} value={f.name}>
                  {f.name}
                </MenuItem>
              ))}
            </TextField>
            {fields
              .filter((f) => chosen.includes(f.name))
              .map((f) => inputOf(f, { isCreate: false, writable: () => true }))}
          </DialogContent>
          <DialogActions>
            <MuiButton onClick={() => setOpen(false)}>{translate('ra.action.cancel')}</MuiButton>
            <SaveButton
              label={translate('svc.list.bulk_apply')}
              alwaysEnable={chosen.length > 0}
              disabled={chosen.length === 0}
            />
          </DialogActions>
        </Form>
      </Dialog>
    </>
  );
}

/** Deletes the selected items, with Undo. */
export function BulkDeleteWithUndo({ collection }: { collection: CollectionInfo }): ReactElement {
  const translate = useTranslate();
  const notify = useNotify();
  const { selectedIds, onUnselectItems } = useListContext();
  const change = useUndoableChange(collection);
  const [open, setOpen] = useState(false);
  const remove = async () => {
    const ids = [...selectedIds] as ID[];
    try {
      await change(ids, () => client.items(collection.name).deleteMany(ids), 'svc.list.bulk_deleted');
      onUnselectItems();
    } catch (error) {
      notify(translate('svc.list.bulk_failed', { error: (error as Error).message }), { type: 'error' });
    }
    setOpen(false);
  };
  return (
    <>
      <Button label={translate('ra.action.delete')} color="error" onClick={() => setOpen(true)}>
        <DeleteIcon />
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} aria-labelledby="bulk-delete-title">
        <DialogTitle id="bulk-delete-title">
          {translate('svc.list.bulk_delete_title', { smart_count: selectedIds.length })}
        </DialogTitle>
        <DialogActions>
          <MuiButton onClick={() => setOpen(false)}>{translate('ra.action.cancel')}</MuiButton>
          <MuiButton color="error" onClick={() => void remove()}>
            {translate('ra.action.delete')}
          </MuiButton>
        </DialogActions>
      </Dialog>
    </>
  );
}

/** Saves a file the session fetched from /assets (the export's result). */
async function download(fileId: string): Promise<void> {
  const file = await client.files.readOne(fileId, { fields: ['filename_download'] });
  const bytes = (
    await client.transport.get<never, ArrayBuffer>(`/assets/${encodeURIComponent(fileId)}`, {
      responseType: 'arraybuffer',
    })
  ).raw;
  const url = URL.createObjectURL(new Blob([bytes]));
  const link = document.createElement('a');
  link.href = url;
  link.download = file?.filename_download ?? `export-${fileId}`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Exports the selected items (`keys`) or, without a selection, every item `filter` and
 * `search` select, through the export job (POST /utils/export), then downloads the file.
 */
export function ExportButton(props: {
  collection: CollectionInfo;
  filter: Filter | undefined;
  search: string | undefined;
  selected?: readonly ID[];
}): ReactElement {
  const translate = useTranslate();
  const notify = useNotify();
  const [open, setOpen] = useState(false);
  const [format, setFormat] = useState<ExportFormat>('csv');
  const [isBusy, setBusy] = useState(false);
  const { collection, selected = [] } = props;
  const run = async () => {
    setBusy(true);
    const filter = selected.length > 0 ? ({ [collection.primaryKey]: { _in: selected } } as Filter) : props.filter;
    try {
      const handle = await client.utils.export(
        collection.name,
        {
          ...(filter === undefined ? {} : { filter }),
          ...(selected.length > 0 || props.search === undefined ? {} : { search: props.search }),
          limit: -1,
        },
        { format },
      );
      const file = await handle.done;
      await download(String(file.id));
      notify('svc.list.exported', { type: 'success', messageArgs: { smart_count: selected.length } });
      setOpen(false);
    } catch (error) {
      notify(translate('svc.list.export_failed', { error: (error as Error).message }), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  const label = translate(selected.length > 0 ? 'svc.list.export_selected' : 'svc.list.export_filtered');
  return (
    <>
      <Button label={label} onClick={() => setOpen(true)}>
        <DownloadIcon />
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} aria-labelledby="export-title">
        <DialogTitle id="export-title">{label}</DialogTitle>
        <DialogContent>
          <TextField
            select
            label={translate('svc.list.export_format')}
            value={format}
            onChange={(e) => setFormat(e.target.value as ExportFormat)}
            sx={{ mt: 1, minWidth: 160 }}
          >
            {(['csv', 'json', 'xml', 'yaml'] as const).map((f) => (
              <MenuItem key={f} value={f}>
                {f.toUpperCase()}
              </MenuItem>
            ))}
          </TextField>
        </DialogContent>
        <DialogActions>
          <MuiButton onClick={() => setOpen(false)}>{translate('ra.action.cancel')}</MuiButton>
          <MuiButton onClick={() => void run()} disabled={isBusy}>
            {translate(isBusy ? 'svc.list.exporting' : 'svc.list.export_start')}
          </MuiButton>
        </DialogActions>
      </Dialog>
    </>
  );
}

/** The export button of a selection. */
export function BulkExportButton({ collection }: { collection: CollectionInfo }): ReactElement {
  const { selectedIds } = useListContext();
  return <ExportButton collection={collection} filter={undefined} search={undefined} selected={selectedIds as ID[]} />;
}
