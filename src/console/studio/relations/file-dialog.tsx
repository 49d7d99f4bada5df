/**
 * Choosing files: upload (react-admin's FileInput dropzone: drag and drop or the file chooser,
 * with the upload's progress) to svc_files through the client's files handler, or pick from the
 * file library (svc_files searched). Either way the chosen files come back through `onPick`.
 */
import { useState, type FormEvent } from 'react';
import {
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  LinearProgress,
  Typography,
  useMediaQuery,
  type Theme,
} from '@mui/material';
import { FileInput, Form, useNotify, useTranslate, type RaRecord } from 'react-admin';
import { TransportError } from '../../../client/index.js';
import { client } from '../../session.js';
import { PickerDialog } from './picker-dialog.js';
import { FILES, fileName } from './shared.js';
import { TextButton } from './text-button.js';

export interface FileDialogProps {
  readonly isMultiple: boolean;
  readonly accept?: Record<string, string[]>;
  readonly onPick: (files: RaRecord[]) => void;
  readonly onClose: () => void;
}

/** Uploads `file` to svc_files, reporting its progress (0 to 1). */
async function upload(file: File, onProgress: (progress: number) => void): Promise<RaRecord> {
  const form = new FormData();
  form.append('title', file.name.replace(/\.[^.]+$/, ''));
  form.append('file', file, file.name);
  const created = await client.files.createOne(form, undefined, {
    requestOptions: { onUploadProgress: (p) => onProgress(p.progress) },
  });
  return { ...(created as unknown as Record<string, unknown>), id: (created as { id: string }).id };
}

export function FileDialog({ isMultiple, accept, onPick, onClose }: FileDialogProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const isSmall = useMediaQuery<Theme>((theme) => theme.breakpoints.down('sm'));
  const [progress, setProgress] = useState<number>();
  const [isLibrary, setLibrary] = useState(false);
  const onDrop = async (dropped: File[]) => {
    const done: RaRecord[] = [];
    try {
      for (const [index, file] of dropped.entries()) {
        setProgress(index / dropped.length);
        done.push(await upload(file, (p) => setProgress((index + p) / dropped.length)));
      }
      setProgress(1);
      onPick(done);
    } catch (error) {
      setProgress(undefined);
      notify(error instanceof TransportError ? error.message : translate('svc.relations.upload_failed'), {
        type: 'error',
      });
    }
  };
  if (isLibrary)
    return (
      <PickerDialog
        collection={FILES}
        info={undefined}
        title={translate('svc.relations.library')}
        isMultiple={isMultiple}
        exclude={[]}
        label={(item) => fileName(item)}
        onPick={onPick}
        onClose={onClose}
      />
    );
  return (
    <Dialog open onClose={onClose} fullScreen={isSmall} fullWidth maxWidth="sm" aria-labelledby="svc-file-dialog">
      <DialogTitle id="svc-file-dialog">{translate('svc.relations.choose_file')}</DialogTitle>
      <DialogContent>
        <div onSubmit={(event: FormEvent) => event.stopPropagation()}>
          <Form>
            <FileInput
              source="upload"
              label={translate('svc.relations.upload')}
              multiple={isMultiple}
              {...(accept === undefined ? {} : { accept })}
              options={{ onDrop: (files: File[]) => void onDrop(files) }}
              placeholder={<p>{translate('svc.relations.drop_here')}</p>}
              inputProps={{ 'aria-label': translate('svc.relations.upload') }}
            />
          </Form>
        </div>
        {progress === undefined ? null : (
          <>
            <LinearProgress
              variant="determinate"
              value={Math.round(progress * 100)}
              aria-label={translate('svc.relations.upload_progress')}
            />
            <Typography variant="body2">{Math.round(progress * 100)} %</Typography>
          </>
        )}
      </DialogContent>
      <DialogActions>
        <TextButton label={translate('ra.action.cancel')} onClick={onClose} />
        <TextButton label={translate('svc.relations.library')} onClick={() => setLibrary(true)} />
      </DialogActions>
    </Dialog>
  );
}
