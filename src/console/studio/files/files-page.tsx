/**
 * The file library (/admin/files): folders as a tree (FolderTree), the files of the open folder
 * as a grid of thumbnails or a table (react-admin's Datagrid), upload by drag and drop (react-
 * admin's FileInput dropzone, many at once, each with its progress), import from a URL, and one
 * file's dialog (FileDialog). A file card is dragged onto a folder to move it, or moved by its
 * "Move to" menu (the keyboard's way). The exports' folder lists the files the service's exports
 * made (their svc_activity rows), with how long they are kept (ExportsNote).
 */
import { useEffect, useMemo, useState, type DragEvent } from 'react';
import {
  Box,
  Button,
  Card,
  CardActionArea,
  CardContent,
  Grid,
  IconButton,
  LinearProgress,
  Menu,
  MenuItem,
  Stack,
  TextField,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import MoreIcon from '@mui/icons-material/DriveFileMove';
import GridIcon from '@mui/icons-material/GridViewOutlined';
import TableIcon from '@mui/icons-material/TableRowsOutlined';
import FileIcon from '@mui/icons-material/InsertDriveFileOutlined';
import {
  Datagrid,
  FileInput,
  Form,
  FunctionField,
  ListContextProvider,
  ResourceContextProvider,
  TextField as RaTextField,
  Title,
  useAuthenticated,
  useGetList,
  useList,
  useNotify,
  usePermissions,
  useTranslate,
} from 'react-admin';
import { mayReadSystem, type Catalogue } from '../catalogue.js';
import type { FileType } from '../../../client/index.js';
import { client } from '../../session.js';
import { errorText } from '../../dom.js';
import { AssetImage } from './asset-image.js';
import { ExportsNote } from './exports-note.js';
import { FileDialog, type AssetPreset } from './file-dialog.js';
import { FILE_DRAG_TYPE, FolderDialog, FolderTree, folderPaths, type Folder, type Place } from './folder-tree.js';

const THUMB = { width: 240, height: 160, fit: 'cover' } as const;

interface Upload {
  readonly name: string;
  readonly progress: number;
  readonly error?: string;
}

function MoveMenu({
  file,
  folders,
  onMove,
}: {
  file: FileType;
  folders: readonly Folder[];
  onMove: (folder: string | null) => void;
}) {
  const translate = useTranslate();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const name = file.title ?? file.filename_download;
  return (
    <>
      <IconButton
        size="small"
        aria-label={translate('svc.files.move_to_of', { name })}
        aria-haspopup="menu"
        onClick={(e) => {
          e.stopPropagation();
          setAnchor(e.currentTarget);
        }}
      >
        <MoreIcon fontSize="small" />
      </IconButton>
      <Menu
        anchorEl={anchor}
        open={anchor !== null}
        onClose={() => setAnchor(null)}
        onClick={(e) => e.stopPropagation()}
      >
        <MenuItem
          onClick={() => {
            setAnchor(null);
            onMove(null);
          }}
        >
          {translate('svc.files.root')}
        </MenuItem>
        {folderPaths(folders).map((f) => (
          <MenuItem
            key={f.id}
            onClick={() => {
              setAnchor(null);
              onMove(f.id);
            }}
          >
            {f.path}
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}

export default function FilesPage() {
  const { isPending: isChecking } = useAuthenticated();
  const translate = useTranslate();
  const notify = useNotify();
  const [place, setPlace] = useState<Place>({ kind: 'root' });
  const [view, setView] = useState<'grid' | 'table'>('grid');
  const [open, setOpen] = useState<FileType | undefined>(undefined);
  const [folderDialog, setFolderDialog] = useState<'new' | 'edit' | undefined>(undefined);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [importUrl, setImportUrl] = useState('');
  const [importError, setImportError] = useState<string | undefined>(undefined);

  const folderList = useGetList('svc_folders', {
    pagination: { page: 1, perPage: 1000 },
    sort: { field: 'name', order: 'ASC' },
  });
  const folders = useMemo(
    () =>
      (folderList.data ?? []).map((f): Folder => ({
        id: String(f['id']),
        name: String(f['name']),
        parent: (f['parent'] as string | null) ?? null,
      })),
    [folderList.data],
  );
  const exportsList = useGetList(
    'svc_activity',
    {
      pagination: { page: 1, perPage: 500 },
      sort: { field: 'timestamp', order: 'DESC' },
      filter: { action: 'export' },
    },
    { enabled: place.kind === 'exports' },
  );
  const exportFiles = useMemo(
    () =>
      (exportsList.data ?? [])
        .map((row) => {
          try {
            return (JSON.parse(String(row['comment'])) as { file?: string | null }).file ?? null;
          } catch {
            return null;
          }
        })
        .filter((id): id is string => id !== null),
    [exportsList.data],
  );
  const filter =
    place.kind === 'folder'
      ? { folder: place.id }
      : place.kind === 'root'
        ? { json: JSON.stringify({ folder: { _null: true } }) }
        : {
            json: JSON.stringify({
              id: { _in: exportFiles.length === 0 ? ['00000000-0000-0000-0000-000000000000'] : exportFiles },
            }),
          };
  const files = useGetList<FileType & { id: string }>('svc_files', {
    pagination: { page: 1, perPage: 200 },
    sort: { field: 'uploaded_on', order: 'DESC' },
    filter,
  });
  const [presets, setPresets] = useState<readonly AssetPreset[]>([]);
  const { permissions } = usePermissions<Catalogue | null>();
  // The presets are in svc_settings: read only by a role that may (no refusal in the console).
  const mayReadSettings = mayReadSystem(permissions, 'svc_settings');
  useEffect(() => {
    if (!mayReadSettings) return;
    client.settings.read({ fields: ['storage_asset_presets'] }).then(
      (s) =>
        setPresets(Array.isArray(s?.['storage_asset_presets']) ? (s['storage_asset_presets'] as AssetPreset[]) : []),
      () => undefined,
    );
  }, [mayReadSettings]);
  const listContext = useList({ data: files.data ?? [], isPending: files.isPending });
  const current = place.kind === 'folder' ? folders.find((f) => f.id === place.id) : undefined;
  const folderOf = place.kind === 'folder' ? place.id : null;

  const refresh = () => {
    void files.refetch();
    void folderList.refetch();
  };
  const move = async (fileId: string, folder: string | null) => {
    try {
      await client.files.updateOne(fileId, { folder });
      notify('svc.files.moved', { type: 'success' });
      void files.refetch();
    } catch (e) {
      notify(errorText(e), { type: 'error' });
    }
  };

  const upload = async (chosen: File[]) => {
    const start = uploads.length;
    setUploads((u) => [...u, ...chosen.map((f) => ({ name: f.name, progress: 0 }))]);
    await Promise.all(
      chosen.map(async (file, i) => {
        const at = start + i;
        const update = (change: Partial<Upload>) =>
          setUploads((u) => u.map((up, j) => (j === at ? { ...up, ...change } : up)));
        const form = new FormData();
        if (folderOf !== null) form.append('folder', folderOf);
        form.append('file', file, file.name);
        try {
          await client.files.createOne(form, undefined, {
            requestOptions: { onUploadProgress: (p) => update({ progress: Math.round(p.progress * 100) }) },
          });
          update({ progress: 100 });
        } catch (e) {
          update({ error: errorText(e) });
        }
      }),
    );
    void files.refetch();
  };

  const importFrom = async () => {
    setImportError(undefined);
    try {
      await client.files.import({
        url: importUrl.trim(),
        ...(folderOf === null ? {} : { data: { folder: folderOf } }),
      });
      setImportUrl('');
      notify('svc.files.imported', { type: 'success' });
      void files.refetch();
    } catch (e) {
      setImportError(errorText(e));
    }
  };

  const deleteFolder = async () => {
    if (current === undefined) return;
    if (!window.confirm(translate('svc.files.delete_folder_confirm', { name: current.name }))) return;
    try {
      await client.folders.deleteOne(current.id);
      notify('svc.files.folder_deleted', { type: 'success' });
      setPlace(current.parent === null ? { kind: 'root' } : { kind: 'folder', id: current.parent });
      void folderList.refetch();
    } catch (e) {
      notify(errorText(e), { type: 'error' });
    }
  };

  if (isChecking) return <LinearProgress />;
  const heading =
    place.kind === 'exports' ? translate('svc.files.exports') : (current?.name ?? translate('svc.files.root'));
  const nameOf = (f: FileType) => f.title ?? f.filename_download;

  return (
    <Box sx={{ py: 2 }}>
      <Title title={translate('svc.files.title_page')} />
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} alignItems="flex-start">
        <Box sx={{ width: { xs: '100%', md: 240 }, flexShrink: 0 }}>
          <FolderTree
            folders={folders}
            place={place}
            onOpen={setPlace}
            onDropFile={(id, folder) => void move(id, folder)}
          />
          <Stack direction="row" sx={{ flexWrap: 'wrap', mt: 1, gap: 1 }} useFlexGap>
            <Button
              size="small"
              variant="outlined"
              onClick={() => setFolderDialog('new')}
              disabled={place.kind === 'exports'}
            >
              {translate('svc.files.new_folder')}
            </Button>
            {current !== undefined && (
              <>
                <Button size="small" onClick={() => setFolderDialog('edit')}>
                  {translate('svc.files.edit_folder')}
                </Button>
                <Button size="small" color="error" onClick={() => void deleteFolder()}>
                  {translate('svc.files.delete_folder')}
                </Button>
              </>
            )}
          </Stack>
        </Box>
        <Box sx={{ flex: 1, minWidth: 0, width: '100%' }}>
          <Stack direction="row" alignItems="center" justifyContent="space-between" sx={{ mb: 1 }}>
            <Typography variant="h6" component="h2">
              {heading}
            </Typography>
            <ToggleButtonGroup
              size="small"
              exclusive
              value={view}
              onChange={(_e, v: 'grid' | 'table' | null) => v !== null && setView(v)}
              aria-label={translate('svc.files.view')}
            >
              <ToggleButton value="grid" aria-label={translate('svc.files.grid')}>
                <GridIcon fontSize="small" />
              </ToggleButton>
              <ToggleButton value="table" aria-label={translate('svc.files.table')}>
                <TableIcon fontSize="small" />
              </ToggleButton>
            </ToggleButtonGroup>
          </Stack>
          {place.kind === 'exports' ? (
            <ExportsNote isAdmin={permissions?.me?.adminAccess === true} mayReadSettings={mayReadSettings} />
          ) : (
            <>
              <Form>
                <FileInput
                  source="upload"
                  multiple
                  label={translate('svc.files.upload')}
                  placeholder={<p>{translate('svc.files.drop')}</p>}
                  options={{ onDrop: (accepted: File[]) => void upload(accepted) }}
                  inputProps={{ 'aria-label': translate('svc.files.upload') }}
                  sx={{ '& .RaFileInput-dropZone': { p: 2 } }}
                />
              </Form>
              {uploads.length > 0 && (
                <Box sx={{ mb: 2 }} aria-live="polite">
                  {uploads.map((u, i) => (
                    <Box key={`${u.name}-${i}`} sx={{ mb: 0.5 }}>
                      <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
                        {u.error === undefined ? `${u.name}: ${u.progress}%` : `${u.name}: ${u.error}`}
                      </Typography>
                      <LinearProgress
                        variant="determinate"
                        value={u.progress}
                        color={u.error === undefined ? 'primary' : 'error'}
                        aria-label={translate('svc.files.upload_progress', { name: u.name })}
                      />
                    </Box>
                  ))}
                </Box>
              )}
              <Box
                component="form"
                sx={{ display: 'flex', gap: 1, mb: 2, flexWrap: 'wrap' }}
                onSubmit={(e) => {
                  e.preventDefault();
                  void importFrom();
                }}
              >
                <TextField
                  size="small"
                  type="url"
                  label={translate('svc.files.import_url')}
                  value={importUrl}
                  onChange={(e) => setImportUrl(e.target.value)}
                  error={importError !== undefined}
                  helperText={importError}
                  sx={{ flex: 1, minWidth: 200 }}
                />
                <Button type="submit" variant="outlined" disabled={importUrl.trim() === ''}>
                  {translate('svc.files.import')}
                </Button>
              </Box>
            </>
          )}
          {files.isPending && <LinearProgress aria-label={translate('svc.page.loading')} />}
          {files.data?.length === 0 && <Typography>{translate('svc.files.empty')}</Typography>}
          {view === 'grid' ? (
            <Grid container spacing={2} component="ul" sx={{ listStyle: 'none', p: 0, m: 0 }} aria-label={heading}>
              {(files.data ?? []).map((f) => (
                <Grid key={f.id} size={{ xs: 6, sm: 4, lg: 3 }} component="li">
                  <Card
                    draggable
                    data-file={f.id}
                    onDragStart={(e: DragEvent) => {
                      e.dataTransfer.setData(FILE_DRAG_TYPE, f.id);
                      e.dataTransfer.effectAllowed = 'move';
                    }}
                  >
                    <CardActionArea onClick={() => setOpen(f)} aria-label={nameOf(f)}>
                      <Box
                        sx={{
                          aspectRatio: '3 / 2',
                          bgcolor: 'grey.100',
                          display: 'flex',
                          alignItems: 'center',
                          justifyContent: 'center',
                        }}
                      >
                        {(f.type ?? '').startsWith('image/') ? (
                          <AssetImage
                            fileId={f.id}
                            params={THUMB}
                            style={{ width: '100%', height: '100%', objectFit: 'cover' }}
                          />
                        ) : (
                          <FileIcon fontSize="large" aria-hidden />
                        )}
                      </Box>
                    </CardActionArea>
                    <CardContent sx={{ display: 'flex', alignItems: 'center', p: 1, '&:last-child': { pb: 1 } }}>
                      <Typography variant="body2" noWrap sx={{ flex: 1, minWidth: 0 }} title={nameOf(f)}>
                        {nameOf(f)}
                      </Typography>
                      <MoveMenu file={f} folders={folders} onMove={(folder) => void move(f.id, folder)} />
                    </CardContent>
                  </Card>
                </Grid>
              ))}
            </Grid>
          ) : (
            <ResourceContextProvider value="svc_files">
              <ListContextProvider value={listContext}>
                <Datagrid
                  bulkActionButtons={false}
                  rowClick={(_id, _r, record) => (setOpen(record as FileType), false)}
                >
                  <FunctionField label="svc.files.title" render={(f: FileType) => nameOf(f)} />
                  <RaTextField source="type" label="svc.files.type" />
                  <RaTextField source="filesize" label="svc.files.size" />
                  <FunctionField
                    label="svc.files.move_to"
                    render={(f: FileType) => (
                      <MoveMenu file={f} folders={folders} onMove={(folder) => void move(f.id, folder)} />
                    )}
                  />
                </Datagrid>
              </ListContextProvider>
            </ResourceContextProvider>
          )}
        </Box>
      </Stack>
      {open !== undefined && (
        <FileDialog
          key={open.id}
          file={open}
          presets={presets}
          onClose={(changed) => {
            setOpen(undefined);
            if (changed) refresh();
          }}
        />
      )}
      {folderDialog !== undefined && (
        <FolderDialog
          folders={folders}
          folder={folderDialog === 'edit' ? current : undefined}
          parent={folderOf}
          onClose={(changed) => {
            setFolderDialog(undefined);
            if (changed) void folderList.refetch();
          }}
        />
      )}
    </Box>
  );
}
