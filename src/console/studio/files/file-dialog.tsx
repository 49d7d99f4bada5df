/**
 * One file of the library in a dialog: its metadata (title, description, tags, focal point:
 * a click on the image sets focal_point_x/y in the image's pixels), the transform presets
 * (settings `storage_asset_presets`) previewed on it, replace (same id), download and delete.
 */
import { useState, type ChangeEvent, type MouseEvent } from 'react';
import {
  Box,
  Button,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  LinearProgress,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useNotify, useTranslate } from 'react-admin';
import type { FileType } from '../../../client/index.js';
import { client } from '../../session.js';
import { errorText } from '../../dom.js';
import { AssetImage, downloadAsset, useAssetUrl } from './asset-image.js';

export interface AssetPreset {
  readonly key: string;
  readonly fit?: string;
  readonly width?: number;
  readonly height?: number;
  readonly quality?: number;
  readonly format?: string;
}

const isImage = (file: FileType) => (file.type ?? '').startsWith('image/');

interface FileDialogProps {
  readonly file: FileType;
  readonly presets: readonly AssetPreset[];
  readonly onClose: (changed: boolean) => void;
}

export function FileDialog({ file, presets, onClose }: FileDialogProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const [title, setTitle] = useState(file.title ?? '');
  const [description, setDescription] = useState(file.description ?? '');
  const [tags, setTags] = useState((file.tags ?? []).join(', '));
  const [focalX, setFocalX] = useState(file.focal_point_x === null ? '' : String(file.focal_point_x));
  const [focalY, setFocalY] = useState(file.focal_point_y === null ? '' : String(file.focal_point_y));
  const [preset, setPreset] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [progress, setProgress] = useState<number | undefined>(undefined);
  const [version, setVersion] = useState(0);
  const url = useAssetUrl(isImage(file) ? file.id : undefined, { v: version });

  const setFocal = (event: MouseEvent<HTMLImageElement>) => {
    const img = event.currentTarget;
    const box = img.getBoundingClientRect();
    const width = file.width ?? img.naturalWidth;
    const height = file.height ?? img.naturalHeight;
    setFocalX(String(Math.round(((event.clientX - box.left) / box.width) * width)));
    setFocalY(String(Math.round(((event.clientY - box.top) / box.height) * height)));
  };

  const number = (value: string) => (value.trim() === '' ? null : Number(value));
  const save = async () => {
    setError(undefined);
    try {
      await client.files.updateOne(file.id, {
        title: title === '' ? null : title,
        description: description === '' ? null : description,
        tags: tags
          .split(',')
          .map((t) => t.trim())
          .filter((t) => t !== ''),
        focal_point_x: number(focalX),
        focal_point_y: number(focalY),
      });
      notify('svc.files.saved', { type: 'success' });
      onClose(true);
    } catch (e) {
      setError(errorText(e));
    }
  };

  const replace = async (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    event.target.value = '';
    if (chosen === undefined) return;
    const form = new FormData();
    form.append('file', chosen, chosen.name);
    setProgress(0);
    try {
      await client.transport.patch(`/files/${encodeURIComponent(file.id)}`, form, {
        onUploadProgress: (p) => setProgress(Math.round(p.progress * 100)),
      });
      notify('svc.files.replaced', { type: 'success' });
      setVersion((v) => v + 1);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setProgress(undefined);
    }
  };

  const remove = async () => {
    if (!window.confirm(translate('svc.files.delete_confirm', { name: file.title ?? file.filename_download }))) return;
    try {
      await client.files.deleteOne(file.id);
      notify('svc.files.deleted', { type: 'success' });
      onClose(true);
    } catch (e) {
      setError(errorText(e));
    }
  };

  const chosenPreset = presets.find((p) => p.key === preset);
  return (
    <Dialog open onClose={() => onClose(false)} aria-labelledby="file-dialog-title" fullWidth maxWidth="md">
      <DialogTitle id="file-dialog-title">{file.title ?? file.filename_download}</DialogTitle>
      <DialogContent>
        <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
          <Box sx={{ flex: 1, minWidth: 0 }}>
            {url !== undefined && (
              <Box sx={{ position: 'relative', display: 'inline-block', maxWidth: '100%' }}>
                <img
                  src={url}
                  alt={translate('svc.files.focal_hint')}
                  onClick={setFocal}
                  data-focal-image
                  style={{ maxWidth: '100%', display: 'block', cursor: 'crosshair' }}
                />
                {focalX !== '' && focalY !== '' && (file.width ?? 0) > 0 && (file.height ?? 0) > 0 && (
                  <Box
                    aria-hidden
                    sx={{
                      position: 'absolute',
                      left: `${(Number(focalX) / (file.width ?? 1)) * 100}%`,
                      top: `${(Number(focalY) / (file.height ?? 1)) * 100}%`,
                      width: 14,
                      height: 14,
                      ml: '-7px',
                      mt: '-7px',
                      borderRadius: '50%',
                      border: '2px solid #fff',
                      boxShadow: '0 0 0 2px #000',
                      pointerEvents: 'none',
                    }}
                  />
                )}
              </Box>
            )}
            <Typography variant="body2" sx={{ mt: 1 }}>
              {[
                file.type,
                file.width === null ? null : `${file.width}×${file.height ?? ''}`,
                file.filesize === null ? null : `${file.filesize} B`,
              ]
                .filter((p) => p !== null && p !== '')
                .join(' · ')}
            </Typography>
            {isImage(file) && presets.length > 0 && (
              <Box sx={{ mt: 2 }} role="group" aria-label={translate('svc.files.presets')}>
                <Typography variant="subtitle2" component="h3">
                  {translate('svc.files.presets')}
                </Typography>
                <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', gap: 1 }} useFlexGap>
                  {presets.map((p) => (
                    <Chip
                      key={p.key}
                      label={p.key}
                      color={preset === p.key ? 'primary' : 'default'}
                      aria-pressed={preset === p.key}
                      onClick={() => setPreset(preset === p.key ? undefined : p.key)}
                    />
                  ))}
                </Stack>
                {chosenPreset !== undefined && (
                  <Box sx={{ mt: 1 }}>
                    <AssetImage
                      fileId={file.id}
                      params={{ key: chosenPreset.key, v: version }}
                      alt={translate('svc.files.preset_preview', { key: chosenPreset.key })}
                      data-preset={chosenPreset.key}
                      style={{ maxWidth: '100%' }}
                    />
                  </Box>
                )}
              </Box>
            )}
          </Box>
          <Box sx={{ flex: 1, minWidth: 0 }}>
            <TextField
              label={translate('svc.files.title')}
              value={title}
              onChange={(e) => setTitle(e.target.value)}
              fullWidth
              margin="dense"
            />
            <TextField
              label={translate('svc.files.description')}
              value={description}
              onChange={(e) => setDescription(e.target.value)}
              fullWidth
              multiline
              minRows={2}
              margin="dense"
            />
            <TextField
              label={translate('svc.files.tags')}
              value={tags}
              onChange={(e) => setTags(e.target.value)}
              helperText={translate('svc.files.tags_hint')}
              fullWidth
              margin="dense"
            />
            {isImage(file) && (
              <Stack direction="row" spacing={1}>
                <TextField
                  label={translate('svc.files.focal_x')}
                  type="number"
                  value={focalX}
                  onChange={(e) => setFocalX(e.target.value)}
                  margin="dense"
                />
                <TextField
                  label={translate('svc.files.focal_y')}
                  type="number"
                  value={focalY}
                  onChange={(e) => setFocalY(e.target.value)}
                  margin="dense"
                />
              </Stack>
            )}
            {progress !== undefined && (
              <LinearProgress
                variant="determinate"
                value={progress}
                aria-label={translate('svc.files.replace_progress')}
              />
            )}
            {error !== undefined && (
              <Typography role="alert" color="error" sx={{ mt: 1 }}>
                {error}
              </Typography>
            )}
          </Box>
        </Stack>
      </DialogContent>
      <DialogActions sx={{ flexWrap: 'wrap', gap: 1 }}>
        <Button component="label">
          {translate('svc.files.replace')}
          <input type="file" hidden onChange={(e) => void replace(e)} aria-label={translate('svc.files.replace')} />
        </Button>
        <Button onClick={() => void downloadAsset(file.id, file.filename_download)}>
          {translate('svc.files.download')}
        </Button>
        <Button color="error" onClick={() => void remove()}>
          {translate('ra.action.delete')}
        </Button>
        <Box sx={{ flex: 1 }} />
        <Button onClick={() => onClose(version > 0)}>{translate('ra.action.close')}</Button>
        <Button variant="contained" onClick={() => void save()}>
          {translate('ra.action.save')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
