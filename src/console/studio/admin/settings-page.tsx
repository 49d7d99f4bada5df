/**
 * The project's settings (/admin/settings/project, administrators): name, logo, colour, public
 * note, default language, the image transform presets (storage_asset_presets), how long exports
 * are kept (export_retention, with the server's default from GET /server/info), public
 * registration and its role, and a mail check that sends a test mail (POST /utils/mail/test).
 * The name and colour show in the app bar once saved; a value the API refuses is said under its
 * field as well as in the notification.
 */
import { useEffect, useState, type ChangeEvent } from 'react';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  LinearProgress,
  Stack,
  TextField as MuiTextField,
  Typography,
} from '@mui/material';
import {
  ArrayInput,
  BooleanInput,
  Form,
  NumberInput,
  SaveButton,
  SelectInput,
  SimpleFormIterator,
  TextInput,
  Title,
  useAuthenticated,
  useNotify,
  useTranslate,
} from 'react-admin';
import { client } from '../../session.js';
import { errorEntries, errorText } from '../../dom.js';
import { AssetImage } from '../files/asset-image.js';
import { reloadProject } from './nav.js';

const FIELDS = [
  'project_name',
  'project_logo',
  'project_color',
  'public_note',
  'default_language',
  'storage_asset_presets',
  'export_retention',
  'public_registration',
  'public_registration_role',
] as const;

const FITS = ['cover', 'contain', 'inside', 'outside'].map((id) => ({ id, name: id }));
const FORMATS = ['auto', 'jpg', 'png', 'webp', 'tiff', 'avif'].map((id) => ({ id, name: id }));

/** The API's refusals that name a field of the form (FAILED_VALIDATION), for the form to show under it. */
function fieldErrors(error: unknown): Record<string, string> | undefined {
  const errors: Record<string, string> = {};
  for (const { field, message } of errorEntries(error)) {
    if (field !== undefined && (FIELDS as readonly string[]).includes(field)) errors[field] = message;
  }
  return Object.keys(errors).length === 0 ? undefined : errors;
}

function MailCheck() {
  const translate = useTranslate();
  const [to, setTo] = useState('');
  const [state, setState] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const send = async () => {
    setState(undefined);
    try {
      await client.utils.mail.test(to.trim());
      setState({ ok: true, text: translate('svc.admin.mail_sent', { to: to.trim() }) });
    } catch (e) {
      setState({ ok: false, text: errorText(e) });
    }
  };
  return (
    <Card component="section" aria-labelledby="mail-check-title" sx={{ mt: 2 }}>
      <CardContent>
        <Typography id="mail-check-title" variant="h6" component="h2">
          {translate('svc.admin.mail_check')}
        </Typography>
        <Box
          component="form"
          sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', mt: 1 }}
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <MuiTextField
            size="small"
            type="email"
            label={translate('svc.admin.mail_to')}
            value={to}
            onChange={(e) => setTo(e.target.value)}
            sx={{ flex: 1, minWidth: 200 }}
          />
          <Button type="submit" variant="outlined" disabled={to.trim() === ''}>
            {translate('svc.admin.mail_send')}
          </Button>
        </Box>
        {state !== undefined && (
          <Alert severity={state.ok ? 'success' : 'error'} role={state.ok ? 'status' : 'alert'} sx={{ mt: 1 }}>
            {state.text}
          </Alert>
        )}
      </CardContent>
    </Card>
  );
}

export default function SettingsPage() {
  const { isPending: isChecking } = useAuthenticated();
  const translate = useTranslate();
  const notify = useNotify();
  const [record, setRecord] = useState<Record<string, unknown> | undefined>(undefined);
  const [roles, setRoles] = useState<{ id: string; name: string }[]>([]);
  const [error, setError] = useState<string | undefined>(undefined);
  // EXPORT_RETENTION, what an empty export_retention means: text, null (kept), undefined (not known).
  const [exportDefault, setExportDefault] = useState<string | null | undefined>(undefined);

  useEffect(() => {
    client.server.info().then(
      (info) => setExportDefault(info?.exports?.retention),
      () => undefined,
    );
    client.settings.read({ fields: [...FIELDS] }).then(
      (s) => setRecord({ ...(s ?? {}), storage_asset_presets: s?.['storage_asset_presets'] ?? [] }),
      (e: unknown) => setError(errorText(e)),
    );
    client.roles.readByQuery({ fields: ['id', 'name'], limit: -1 }).then(
      (r) => setRoles((r.data ?? []).map((role) => ({ id: String(role.id), name: String(role.name) }))),
      () => undefined,
    );
  }, []);

  const save = async (data: Record<string, unknown>) => {
    const changes: Record<string, unknown> = {};
    for (const key of FIELDS) {
      if (JSON.stringify(data[key] ?? null) !== JSON.stringify(record?.[key] ?? null)) changes[key] = data[key] ?? null;
    }
    try {
      const saved = await client.settings.update(changes, { fields: [...FIELDS] });
      setRecord({ ...record, ...(saved ?? {}) });
      reloadProject();
      notify('svc.admin.settings_saved', { type: 'success' });
    } catch (e) {
      // A refusal that names a field is said under it (once); the notification only points there.
      const errors = fieldErrors(e);
      notify(errors === undefined ? errorText(e) : 'svc.admin.settings_refused', { type: 'error' });
      return errors;
    }
    return undefined;
  };

  const uploadLogo = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (file === undefined) return;
    const form = new FormData();
    form.append('file', file, file.name);
    try {
      const created = await client.files.createOne(form);
      const saved = await client.settings.update({ project_logo: created?.id ?? null }, { fields: [...FIELDS] });
      setRecord({ ...record, ...(saved ?? {}) });
      notify('svc.admin.logo_saved', { type: 'success' });
    } catch (e) {
      notify(errorText(e), { type: 'error' });
    }
  };

  if (isChecking) return <LinearProgress />;
  const logo = typeof record?.['project_logo'] === 'string' ? record['project_logo'] : undefined;
  const exportDefaultText = exportDefault === undefined ? '…' : (exportDefault ?? translate('svc.admin.export_kept'));
  return (
    <Box sx={{ py: 2, maxWidth: 900 }}>
      <Title title={translate('svc.admin.settings_title')} />
      {error !== undefined && <Alert severity="error">{error}</Alert>}
      {record === undefined && error === undefined && <LinearProgress aria-label={translate('svc.page.loading')} />}
      {record !== undefined && (
        <Card>
          <CardContent>
            <Form record={record} onSubmit={(data: Record<string, unknown>) => save(data)}>
              <Typography variant="h6" component="h2">
                {translate('svc.admin.project')}
              </Typography>
              <TextInput source="project_name" label="svc.admin.project_name" fullWidth />
              <Stack direction="row" spacing={2} alignItems="center" sx={{ mb: 2 }}>
                {logo !== undefined && (
                  <AssetImage
                    fileId={logo}
                    params={{ width: 64, height: 64, fit: 'contain' }}
                    alt={translate('svc.admin.logo')}
                  />
                )}
                <Button component="label" variant="outlined">
                  {translate('svc.admin.logo_upload')}
                  <input type="file" accept="image/*" hidden onChange={(e) => void uploadLogo(e)} />
                </Button>
              </Stack>
              <TextInput source="project_color" label="svc.admin.project_color" helperText="svc.admin.color_hint" />
              <TextInput source="public_note" label="svc.admin.public_note" multiline fullWidth />
              <TextInput source="default_language" label="svc.admin.default_language" />
              <Typography variant="h6" component="h2" sx={{ mt: 2 }}>
                {translate('svc.admin.presets')}
              </Typography>
              <ArrayInput source="storage_asset_presets" label={false}>
                <SimpleFormIterator inline>
                  <TextInput source="key" label="svc.admin.preset_key" />
                  <SelectInput source="fit" label="svc.admin.preset_fit" choices={FITS} />
                  <NumberInput source="width" label="svc.admin.preset_width" />
                  <NumberInput source="height" label="svc.admin.preset_height" />
                  <NumberInput source="quality" label="svc.admin.preset_quality" />
                  <SelectInput source="format" label="svc.admin.preset_format" choices={FORMATS} />
                </SimpleFormIterator>
              </ArrayInput>
              <Typography variant="h6" component="h2" sx={{ mt: 2 }}>
                {translate('svc.admin.exports')}
              </Typography>
              <TextInput
                source="export_retention"
                label="svc.admin.export_retention"
                helperText={translate('svc.admin.export_retention_hint', { default: exportDefaultText })}
              />
              <Typography variant="h6" component="h2" sx={{ mt: 2 }}>
                {translate('svc.admin.registration')}
              </Typography>
              <BooleanInput source="public_registration" label="svc.admin.public_registration" />
              <SelectInput
                source="public_registration_role"
                label="svc.admin.registration_role"
                choices={roles}
                emptyText="—"
              />
              <SaveButton alwaysEnable />
            </Form>
          </CardContent>
        </Card>
      )}
      <MailCheck />
    </Box>
  );
}
