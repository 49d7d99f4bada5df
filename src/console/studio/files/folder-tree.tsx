/**
 * The file library's folders (svc_folders) as a tree: each folder a link-like button that
 * shows its files and takes a file dropped on it; create, rename, move (nest) and delete
 * through dialogs. The service's exports have a folder of their own at the end.
 */
import { useState, type DragEvent, type ReactNode } from 'react';
import {
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  List,
  ListItem,
  ListItemButton,
  ListItemIcon,
  ListItemText,
  MenuItem,
  TextField,
} from '@mui/material';
import FolderIcon from '@mui/icons-material/FolderOutlined';
import HomeIcon from '@mui/icons-material/HomeOutlined';
import ArchiveIcon from '@mui/icons-material/ArchiveOutlined';
import { useNotify, useTranslate } from 'react-admin';
import { client } from '../../session.js';
import { errorText } from '../../dom.js';

export interface Folder {
  readonly id: string;
  readonly name: string;
  readonly parent: string | null;
}

/** Where the library looks: the root (no folder), a folder, or the exports. */
export type Place =
  { readonly kind: 'root' } | { readonly kind: 'folder'; readonly id: string } | { readonly kind: 'exports' };

/** The MIME type a dragged file card carries: its id. */
export const FILE_DRAG_TYPE = 'application/x-svc-file';

/** Folders under `parent`, by name. */
const childrenOf = (folders: readonly Folder[], parent: string | null) =>
  folders.filter((f) => f.parent === parent).sort((a, b) => a.name.localeCompare(b.name));

/** Each folder with its path (`a / b`), depth-first: for pickers. */
export function folderPaths(folders: readonly Folder[]): { id: string; path: string }[] {
  const out: { id: string; path: string }[] = [];
  const walk = (parent: string | null, prefix: string, seen: Set<string>) => {
    for (const f of childrenOf(folders, parent)) {
      if (seen.has(f.id)) continue;
      const path = prefix === '' ? f.name : `${prefix} / ${f.name}`;
      out.push({ id: f.id, path });
      walk(f.id, path, new Set([...seen, f.id]));
    }
  };
  walk(null, '', new Set());
  return out;
}

interface TreeProps {
  readonly folders: readonly Folder[];
  readonly place: Place;
  readonly onOpen: (place: Place) => void;
  readonly onDropFile: (fileId: string, folder: string | null) => void;
}

function DropTarget({
  folder,
  onDropFile,
  children,
}: {
  folder: string | null;
  onDropFile: TreeProps['onDropFile'];
  children: (isOver: boolean, handlers: Record<string, (e: DragEvent) => void>) => ReactNode;
}) {
  const [isOver, setOver] = useState(false);
  const handlers = {
    onDragOver: (e: DragEvent) => {
      if (!e.dataTransfer.types.includes(FILE_DRAG_TYPE)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'move';
      setOver(true);
    },
    onDragLeave: () => setOver(false),
    onDrop: (e: DragEvent) => {
      setOver(false);
      const id = e.dataTransfer.getData(FILE_DRAG_TYPE);
      if (id === '') return;
      e.preventDefault();
      onDropFile(id, folder);
    },
  };
  return <>{children(isOver, handlers)}</>;
}

export function FolderTree({ folders, place, onOpen, onDropFile }: TreeProps) {
  const translate = useTranslate();
  const isAt = (p: Place) =>
    p.kind === place.kind && (p.kind !== 'folder' || (place.kind === 'folder' && place.id === p.id));
  const item = (target: Place, folder: string | null, label: string, icon: ReactNode, depth: number) => (
    <DropTarget folder={folder} onDropFile={onDropFile}>
      {(isOver, handlers) => (
        <ListItemButton
          {...(target.kind === 'exports' ? {} : handlers)}
          selected={isAt(target) || isOver}
          aria-current={isAt(target) ? 'page' : undefined}
          onClick={() => onOpen(target)}
          data-folder={folder ?? ''}
          sx={{ pl: 1 + depth * 2 }}
          dense
        >
          <ListItemIcon sx={{ minWidth: 32 }}>{icon}</ListItemIcon>
          <ListItemText primary={label} />
        </ListItemButton>
      )}
    </DropTarget>
  );
  const branch = (parent: string | null, depth: number, seen: ReadonlySet<string>): ReactNode => {
    const kids = childrenOf(folders, parent).filter((f) => !seen.has(f.id));
    if (kids.length === 0) return null;
    return (
      <List dense disablePadding>
        {kids.map((f) => (
          <ListItem key={f.id} disablePadding sx={{ display: 'block' }}>
            {item({ kind: 'folder', id: f.id }, f.id, f.name, <FolderIcon />, depth)}
            {branch(f.id, depth + 1, new Set([...seen, f.id]))}
          </ListItem>
        ))}
      </List>
    );
  };
  return (
    <Box component="nav" aria-label={translate('svc.files.folders')}>
      <List dense disablePadding>
        <ListItem disablePadding sx={{ display: 'block' }}>
          {item({ kind: 'root' }, null, translate('svc.files.root'), <HomeIcon />, 0)}
          {branch(null, 1, new Set())}
        </ListItem>
        <ListItem disablePadding sx={{ display: 'block' }}>
          {item({ kind: 'exports' }, null, translate('svc.files.exports'), <ArchiveIcon />, 0)}
        </ListItem>
      </List>
    </Box>
  );
}

interface FolderDialogProps {
  readonly folders: readonly Folder[];
  /** The folder to rename or move; undefined: a new folder under `parent`. */
  readonly folder: Folder | undefined;
  readonly parent: string | null;
  readonly onClose: (changed: boolean) => void;
}

/** Create, or rename and move (its parent), a folder. */
export function FolderDialog({ folders, folder, parent, onClose }: FolderDialogProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const [name, setName] = useState(folder?.name ?? '');
  const [under, setUnder] = useState<string>((folder === undefined ? parent : folder.parent) ?? '');
  const [error, setError] = useState<string | undefined>(undefined);
  // A folder cannot go under itself or its descendants.
  const inside = new Set<string>();
  if (folder !== undefined) {
    const walk = (id: string) => {
      inside.add(id);
      for (const f of folders) if (f.parent === id && !inside.has(f.id)) walk(f.id);
    };
    walk(folder.id);
  }
  const choices = folderPaths(folders).filter((f) => !inside.has(f.id));
  const save = async () => {
    const data = { name: name.trim(), parent: under === '' ? null : under };
    try {
      if (folder === undefined) await client.folders.createOne(data);
      else await client.folders.updateOne(folder.id, data);
      notify(folder === undefined ? 'svc.files.folder_created' : 'svc.files.folder_saved', { type: 'success' });
      onClose(true);
    } catch (e) {
      setError(errorText(e));
    }
  };
  const title = folder === undefined ? 'svc.files.new_folder' : 'svc.files.edit_folder';
  return (
    <Dialog open onClose={() => onClose(false)} aria-labelledby="folder-dialog-title" fullWidth maxWidth="xs">
      <DialogTitle id="folder-dialog-title">{translate(title)}</DialogTitle>
      <Box
        component="form"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <DialogContent>
          <TextField
            label={translate('svc.files.folder_name')}
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            autoFocus
            fullWidth
            margin="dense"
            error={error !== undefined}
            helperText={error ?? ' '}
          />
          <TextField
            select
            label={translate('svc.files.parent')}
            value={under}
            onChange={(e) => setUnder(e.target.value)}
            fullWidth
            margin="dense"
          >
            <MenuItem value="">{translate('svc.files.root')}</MenuItem>
            {choices.map((c) => (
              <MenuItem key={c.id} value={c.id}>
                {c.path}
              </MenuItem>
            ))}
          </TextField>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => onClose(false)}>{translate('ra.action.cancel')}</Button>
          <Button type="submit" variant="contained" disabled={name.trim() === ''}>
            {translate('ra.action.save')}
          </Button>
        </DialogActions>
      </Box>
    </Dialog>
  );
}
