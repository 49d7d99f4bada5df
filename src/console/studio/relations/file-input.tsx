/**
 * A file field (`file`, `file-image`: a many-to-one to svc_files): the chosen file's thumbnail
 * and name, open and download links, choose (upload or library) and remove.
 */
import { useState } from 'react';
import { Box, Button as MuiButton, FormHelperText, FormLabel, Stack, Typography } from '@mui/material';
import DownloadIcon from '@mui/icons-material/Download';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import { useGetOne, useInput, useTranslate, required as requiredValidator, type RaRecord } from 'react-admin';
import type { FieldInfo } from '../catalogue.js';
import { CONTENT } from '../providers.js';
import { FileDialog } from './file-dialog.js';
import { FILES, fileName, isImage, thumbnail, useAssetUrl } from './shared.js';
import { TextButton } from './text-button.js';

const IMAGES = { 'image/*': [] as string[] };

/** The square thumbnail of a file (an image's cover crop, else nothing). */
export function FileThumbnail({ file, size }: { file: Readonly<Record<string, unknown>> | undefined; size: number }) {
  const url = useAssetUrl(isImage(file) ? file?.['id'] : undefined, thumbnail(size));
  if (url === undefined) return null;
  return (
    <img src={url} alt={fileName(file)} width={size} height={size} style={{ objectFit: 'cover', borderRadius: 4 }} />
  );
}

/** Open and download links of a file. */
export function FileLinks({ file }: { file: Readonly<Record<string, unknown>> }) {
  const translate = useTranslate();
  const open = useAssetUrl(file['id']);
  const download = useAssetUrl(file['id'], { download: true });
  if (open === undefined || download === undefined) return null;
  const name = fileName(file);
  return (
    <>
      <MuiButton
        size="small"
        href={open}
        target="_blank"
        rel="noopener"
        startIcon={<OpenInNewIcon />}
        aria-label={translate('svc.relations.open_named', { name })}
      >
        {translate('svc.relations.open')}
      </MuiButton>
      <MuiButton
        size="small"
        href={download}
        download={name}
        startIcon={<DownloadIcon />}
        aria-label={translate('svc.relations.download_named', { name })}
      >
        {translate('svc.relations.download')}
      </MuiButton>
    </>
  );
}

export function FileFieldInput({ field, disabled }: { field: FieldInfo; disabled: boolean }) {
  const translate = useTranslate();
  const [isChoosing, setChoosing] = useState(false);
  const {
    field: input,
    fieldState,
    id,
  } = useInput({
    source: field.name,
    ...(field.required && !disabled ? { validate: requiredValidator() } : {}),
  });
  const value: unknown = input.value;
  const key = typeof value === 'object' && value !== null ? (value as RaRecord).id : value;
  const hasFile = key !== null && key !== undefined && key !== '';
  const { data: file } = useGetOne(`${CONTENT}${FILES}`, { id: String(key) }, { enabled: hasFile });
  const labelId = `${id}-label`;
  return (
    <Box sx={{ my: 1, width: '100%' }} role="group" aria-labelledby={labelId}>
      <FormLabel id={labelId}>{field.name}</FormLabel>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center', flexWrap: 'wrap', mt: 1 }} useFlexGap>
        {hasFile && file !== undefined ? (
          <>
            <FileThumbnail file={file} size={96} />
            <Typography sx={{ overflowWrap: 'anywhere' }}>{fileName(file)}</Typography>
            <FileLinks file={file} />
          </>
        ) : (
          <Typography color="text.secondary">{translate('svc.relations.no_file')}</Typography>
        )}
        {disabled ? null : (
          <>
            <TextButton
              label={translate('svc.relations.choose_file_named', { name: field.name })}
              onClick={() => setChoosing(true)}
              variant="outlined"
            />
            {hasFile ? (
              <TextButton
                label={translate('svc.relations.remove_file', { name: field.name })}
                onClick={() => input.onChange(null)}
              />
            ) : null}
          </>
        )}
      </Stack>
      {fieldState.error?.message === undefined ? null : (
        <FormHelperText error>{translate(fieldState.error.message, { _: fieldState.error.message })}</FormHelperText>
      )}
      {field.note === undefined ? null : <FormHelperText>{field.note}</FormHelperText>}
      {isChoosing ? (
        <FileDialog
          isMultiple={false}
          {...(field.interface === 'file-image' ? { accept: IMAGES } : {})}
          onPick={(files) => {
            setChoosing(false);
            if (files[0] !== undefined) input.onChange(files[0].id);
          }}
          onClose={() => setChoosing(false)}
        />
      ) : null}
    </Box>
  );
}
