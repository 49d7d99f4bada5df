/**
 * Promoting a schema between environments: download this server's snapshot (GET /schema/snapshot,
 * as JSON or YAML),
 * or upload one, see what it would change here (POST /schema/diff) and apply it (/schema/apply,
 * with allow_destructive only after confirming the collections and fields it deletes).
 */
import { useState, type ChangeEvent, type ReactElement } from 'react';
import {
  Alert,
  Box,
  Button,
  Checkbox,
  FormControlLabel,
  List,
  ListItem,
  ListItemText,
  Stack,
  Typography,
} from '@mui/material';
import DownloadIcon from '@mui/icons-material/Download';
import UploadIcon from '@mui/icons-material/Upload';
import { useNotify, useTranslate } from 'react-admin';
import type { SchemaDiff } from '../../../client/index.js';
import { errorText } from '../../dom.js';
import { client } from '../../session.js';
import { useCatalogueChanged } from '../providers.js';

interface Change {
  readonly what: string;
  readonly kind: 'N' | 'D' | 'E';
}

/** The diff's entries as lines: "+ collection articles", "− field articles.body", "~ …". */
function changesOf(diff: SchemaDiff['diff']): Change[] {
  const out: Change[] = [];
  const walk = (list: unknown, label: (e: Record<string, unknown>) => string) => {
    if (!Array.isArray(list)) return;
    for (const entry of list as Record<string, unknown>[]) {
      const parts = Array.isArray(entry['diff']) ? (entry['diff'] as { kind?: string; path?: unknown }[]) : [];
      const whole = parts.find((p) => p.path === undefined);
      const kind = (whole?.kind ?? 'E') as Change['kind'];
      out.push({ what: label(entry), kind });
    }
  };
  walk(diff['collections'], (e) => `collection ${String(e['collection'])}`);
  walk(diff['fields'], (e) => `field ${String(e['collection'])}.${String(e['field'])}`);
  walk(diff['relations'], (e) => `relation ${String(e['collection'])}.${String(e['field'])}`);
  return out;
}

const SIGN = { N: '+', D: '−', E: '~' } as const;

export function SnapshotPanel(): ReactElement {
  const translate = useTranslate();
  const notify = useNotify();
  const changed = useCatalogueChanged();
  const [diff, setDiff] = useState<SchemaDiff | null | undefined>(undefined);
  const [fileName, setFileName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [isConfirmed, setIsConfirmed] = useState(false);
  const [isBusy, setIsBusy] = useState(false);

  // YAML as the service writes it (?export=yaml): no YAML library in the app.
  const download = async (format: 'json' | 'yaml') => {
    try {
      const blob =
        format === 'json'
          ? new Blob([JSON.stringify(await client.schema.snapshot(), null, 2)], { type: 'application/json' })
          : new Blob(
              [
                (
                  await client.transport.get<never, string>('/schema/snapshot', {
                    params: { export: 'yaml' },
                    responseType: 'text',
                  })
                ).raw,
              ],
              { type: 'text/yaml' },
            );
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = `snapshot-${new Date().toISOString().slice(0, 10)}.${format}`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    } catch (e) {
      setError(errorText(e));
    }
  };
  const upload = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (file === undefined) return;
    setFileName(file.name);
    setError(null);
    setIsConfirmed(false);
    try {
      setDiff(await client.schema.diff(file));
    } catch (e) {
      setDiff(undefined);
      setError(errorText(e));
    }
  };
  const changes = diff === null || diff === undefined ? [] : changesOf(diff.diff);
  const deletions = changes.filter((c) => c.kind === 'D' || c.kind === 'E');
  const apply = async () => {
    if (diff === null || diff === undefined) return;
    setIsBusy(true);
    try {
      await client.schema.apply(diff, isConfirmed);
      notify('svc.datamodel.applied', { type: 'success' });
      setDiff(undefined);
      changed();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setIsBusy(false);
    }
  };

  return (
    <Box component="section" aria-labelledby="snapshot-title" sx={{ mt: 4 }}>
      <Typography variant="h6" component="h2" id="snapshot-title">
        {translate('svc.datamodel.snapshot')}
      </Typography>
      <Typography variant="body2" sx={{ mb: 1 }}>
        {translate('svc.datamodel.snapshot_help')}
      </Typography>
      <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
        <Button variant="outlined" startIcon={<DownloadIcon />} onClick={() => void download('json')}>
          {translate('svc.datamodel.download')}
        </Button>
        <Button variant="outlined" startIcon={<DownloadIcon />} onClick={() => void download('yaml')}>
          {translate('svc.datamodel.download_yaml')}
        </Button>
        <Button variant="outlined" component="label" startIcon={<UploadIcon />}>
          {translate('svc.datamodel.upload')}
          <input
            type="file"
            accept=".json,.yaml,.yml,application/json,text/yaml"
            hidden
            onChange={(e) => void upload(e)}
          />
        </Button>
      </Stack>
      {error !== null && (
        <Alert severity="error" role="alert" sx={{ mt: 1 }}>
          {error}
        </Alert>
      )}
      {diff === null && (
        <Alert severity="success" sx={{ mt: 1 }}>
          {translate('svc.datamodel.no_difference', { file: fileName })}
        </Alert>
      )}
      {diff !== null && diff !== undefined && (
        <Box sx={{ mt: 1 }}>
          <Typography variant="subtitle1" component="h3">
            {translate('svc.datamodel.diff_of', { file: fileName })}
          </Typography>
          <List dense aria-label={translate('svc.datamodel.diff_of', { file: fileName })}>
            {changes.map((c, i) => (
              <ListItem key={i} disableGutters>
                <ListItemText primary={`${SIGN[c.kind]} ${c.what}`} />
              </ListItem>
            ))}
          </List>
          {deletions.length > 0 && (
            <FormControlLabel
              control={<Checkbox checked={isConfirmed} onChange={(e) => setIsConfirmed(e.target.checked)} />}
              label={translate('svc.datamodel.allow_destructive', {
                what: deletions.map((d) => d.what).join(', '),
              })}
            />
          )}
          <Box>
            <Button variant="contained" disabled={isBusy} onClick={() => void apply()}>
              {translate('svc.datamodel.apply_snapshot')}
            </Button>
          </Box>
        </Box>
      )}
    </Box>
  );
}
