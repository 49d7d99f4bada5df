/**
 * The list's bookmark controls: save the view as a bookmark (for the user, or an administrator's
 * role); with one open, rename or delete it, and once the view has changed since it was saved
 * (filter, search, sort, columns, layout, widths), save into it, save as a new bookmark, or revert
 * to it, as Directus offers. Only whoever may overwrite the bookmark (`maySaveBookmark`) gets Save,
 * rename and delete; others get "save as new" only (bookmark-rules.ts).
 */
import { useEffect, useRef, useState, type ReactElement } from 'react';
import {
  Button as MuiButton,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  IconButton,
  Radio,
  RadioGroup,
  Stack,
  MenuItem,
  TextField,
} from '@mui/material';
import BookmarkAddIcon from '@mui/icons-material/BookmarkAddOutlined';
import SaveIcon from '@mui/icons-material/SaveOutlined';
import UndoIcon from '@mui/icons-material/Undo';
import EditIcon from '@mui/icons-material/Edit';
import DeleteIcon from '@mui/icons-material/DeleteOutline';
import CloseIcon from '@mui/icons-material/Close';
import { useGetList, useNotify, useTranslate } from 'react-admin';
import { useRefreshBookmarks } from './bookmarks.js';
import { deleteBookmark, renameBookmark, saveBookmark, updateBookmark, type BookmarkOwner } from './presets.js';
import { showsView, useCurrentView, type ViewProps } from './view-state.js';

type DialogKind = 'save' | 'rename' | null;

/** Whom an administrator saves a bookmark for. */
type OwnerChoice = 'user' | 'role' | 'everyone';

export function BookmarkControls(props: ViewProps): ReactElement | null {
  const { collection, catalogue, state, setState } = props;
  const translate = useTranslate();
  const notify = useNotify();
  const refresh = useRefreshBookmarks();
  const [view, apply] = useCurrentView(props);
  const [dialog, setDialog] = useState<DialogKind>(null);
  const [name, setName] = useState('');
  const [owner, setOwner] = useState<OwnerChoice>('user');
  const me = catalogue.me;
  const [sharedRole, setSharedRole] = useState<string>(me?.role ?? '');
  // Saving a new bookmark replaces the button that opened the dialog (the saved bookmark's controls
  // take its place), so the dialog has nothing to give the focus back to and it fell to the page's
  // body: a keyboard user started over from the top. It goes to the new bookmark's Rename instead.
  const renameButton = useRef<HTMLButtonElement>(null);
  const focusRename = useRef(false);
  useEffect(() => {
    if (dialog !== null || !focusRename.current) return;
    focusRename.current = false;
    renameButton.current?.focus();
  });
  // An administrator shares a bookmark with any role: the roles, read once the dialog opens.
  const roles = useGetList(
    'svc_roles',
    { pagination: { page: 1, perPage: 500 }, sort: { field: 'name', order: 'ASC' }, meta: { fields: ['id', 'name'] } },
    { enabled: dialog === 'save' && me?.adminAccess === true },
  ).data;
  if (me === null) return null;
  const open = state.bookmark;
  const isChanged = open !== null && !showsView(view, open.saved, collection);
  const fail = (error: unknown) => notify((error as Error).message, { type: 'error' });
  const openDialog = (kind: DialogKind, initial: string) => {
    setName(initial);
    setOwner('user');
    setSharedRole(me.role ?? '');
    setDialog(kind);
  };
  const ownerOf = (): BookmarkOwner =>
    owner === 'everyone'
      ? { everyone: true }
      : owner === 'role' && sharedRole !== ''
        ? { role: sharedRole }
        : { user: me.id };
  const submit = async () => {
    try {
      if (dialog === 'save') {
        const id = await saveBookmark(collection.name, name, view, ownerOf());
        setState((s) => ({ ...s, bookmark: { id, name, saved: view, canSave: true } }));
        focusRename.current = true;
        notify('svc.list.bookmark_saved', { type: 'success' });
      } else if (dialog === 'rename' && open !== null) {
        await renameBookmark(open.id, name);
        setState((s) => ({ ...s, bookmark: { ...open, name } }));
      }
      refresh();
      setDialog(null);
    } catch (error) {
      fail(error);
    }
  };
  const saveInto = async () => {
    if (open === null) return;
    try {
      await updateBookmark(open.id, view);
      setState((s) => ({ ...s, bookmark: { ...open, saved: view } }));
      notify('svc.list.bookmark_updated', { type: 'success' });
    } catch (error) {
      fail(error);
    }
  };
  const remove = async () => {
    if (open === null) return;
    try {
      await deleteBookmark(open.id);
      setState((s) => ({ ...s, bookmark: null }));
      refresh();
      notify('svc.list.bookmark_deleted', { type: 'info' });
    } catch (error) {
      fail(error);
    }
  };
  const saveAsNew = (
    <MuiButton size="small" startIcon={<BookmarkAddIcon />} onClick={() => openDialog('save', '')}>
      {translate(open === null ? 'svc.list.bookmark_save' : 'svc.list.bookmark_save_new')}
    </MuiButton>
  );
  return (
    <>
      {open === null ? (
        saveAsNew
      ) : (
        <Stack direction="row" sx={{ alignItems: 'center', gap: 0.5, flexWrap: 'wrap' }}>
          <Chip
            label={translate(isChanged ? 'svc.list.bookmark_changed' : 'svc.list.bookmark_open', { name: open.name })}
          />
          <IconButton
            size="small"
            aria-label={translate('svc.list.bookmark_close')}
            onClick={() => setState((s) => ({ ...s, bookmark: null }))}
          >
            <CloseIcon fontSize="small" />
          </IconButton>
          {open.canSave && (
            <>
              <IconButton
                ref={renameButton}
                size="small"
                aria-label={translate('svc.list.bookmark_rename')}
                onClick={() => openDialog('rename', open.name)}
              >
                <EditIcon fontSize="small" />
              </IconButton>
              <IconButton size="small" aria-label={translate('svc.list.bookmark_delete')} onClick={() => void remove()}>
                <DeleteIcon fontSize="small" />
              </IconButton>
            </>
          )}
          {isChanged && (
            <>
              {open.canSave && (
                <MuiButton size="small" startIcon={<SaveIcon />} onClick={() => void saveInto()}>
                  {translate('svc.list.bookmark_update')}
                </MuiButton>
              )}
              {saveAsNew}
              <MuiButton size="small" startIcon={<UndoIcon />} onClick={() => apply(open.saved)}>
                {translate('svc.list.bookmark_revert')}
              </MuiButton>
            </>
          )}
        </Stack>
      )}
      <Dialog
        open={dialog !== null}
        onClose={() => setDialog(null)}
        aria-labelledby="bookmark-title"
        fullWidth
        maxWidth="xs"
      >
        <DialogTitle id="bookmark-title">
          {translate(
            dialog === 'rename'
              ? 'svc.list.bookmark_rename'
              : open === null
                ? 'svc.list.bookmark_save'
                : 'svc.list.bookmark_save_new',
          )}
        </DialogTitle>
        <DialogContent>
          <TextField
            autoFocus
            fullWidth
            label={translate('svc.list.bookmark_name')}
            value={name}
            onChange={(e) => setName(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && name.trim() !== '') void submit();
            }}
            sx={{ mt: 1 }}
          />
          {dialog === 'save' && me.adminAccess && (
            <>
              <RadioGroup
                value={owner}
                onChange={(e) => setOwner(e.target.value as OwnerChoice)}
                aria-label={translate('svc.list.bookmark_for')}
              >
                <FormControlLabel value="user" control={<Radio />} label={translate('svc.list.bookmark_me')} />
                <FormControlLabel value="role" control={<Radio />} label={translate('svc.list.bookmark_role')} />
                <FormControlLabel
                  value="everyone"
                  control={<Radio />}
                  label={translate('svc.list.bookmark_everyone')}
                />
              </RadioGroup>
              {owner === 'role' && (
                <TextField
                  select
                  fullWidth
                  size="small"
                  label={translate('svc.list.bookmark_which_role')}
                  value={sharedRole}
                  onChange={(e) => setSharedRole(e.target.value)}
                >
                  {(roles ?? []).map((r) => (
                    <MenuItem key={String(r.id)} value={String(r.id)}>
                      {String(r['name'])}
                    </MenuItem>
                  ))}
                </TextField>
              )}
            </>
          )}
        </DialogContent>
        <DialogActions>
          <MuiButton onClick={() => setDialog(null)}>{translate('ra.action.cancel')}</MuiButton>
          <MuiButton onClick={() => void submit()} disabled={name.trim() === ''}>
            {translate('ra.action.save')}
          </MuiButton>
        </DialogActions>
      </Dialog>
    </>
  );
}
