/**
 * /admin/profile, for everyone signed in: name, avatar (uploaded to svc_files), language,
 * password, two-factor authentication (on: the secret and its otpauth URL, as text and as a QR
 * code, confirmed with a code; off: with a code; /users/me/tfa/*) and a static token, shown
 * once, with a copy button. What the role may not update on its own svc_users row (GET
 * /permissions/me/svc_users/:id) is shown read-only, or not offered, rather than refused on save.
 */
import { useCallback, useEffect, useState } from 'react';
import { Alert, Avatar, Box, Button, MenuItem, Stack, TextField, Typography } from '@mui/material';
import CopyIcon from '@mui/icons-material/ContentCopy';
import UploadIcon from '@mui/icons-material/UploadFile';
import { useNotify, useTranslate } from 'react-admin';
import { client } from '../../session.js';
import { useCatalogueChanged } from '../providers.js';
import { AccessPage, errorText } from './common.js';
import { PasswordForm } from './password-form.js';
import { TfaSetup, useRequests } from './tfa-setup.js';

interface Profile {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  language: string | null;
  avatar: string | null;
  tfa_secret: string | null;
}

/** Which fields of their own svc_users row the caller may update: all of them (null), some, or none. */
type OwnWritable = readonly string[] | null;

const mayWrite = (writable: OwnWritable, field: string) =>
  writable === null || writable.includes('*') || writable.includes(field);

const LANGUAGES = ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'es-ES', 'it-IT', 'nl-NL', 'pt-BR'];

/** The avatar as a blob: URL (the asset needs the session's token, an <img> has none). */
function useAvatarUrl(avatar: string | null): string | undefined {
  const [url, setUrl] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (avatar === null) return;
    let made: string | undefined;
    let isCurrent = true;
    client.assets
      .readOne(avatar)
      .then(async (stream) => {
        if (stream === null || !isCurrent) return;
        made = URL.createObjectURL(await new Response(stream).blob());
        setUrl(made);
      })
      .catch(() => undefined);
    return () => {
      isCurrent = false;
      if (made !== undefined) URL.revokeObjectURL(made);
    };
  }, [avatar]);
  return avatar === null ? undefined : url;
}

function Section({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
  return (
    <Box component="section" aria-labelledby={id} sx={{ mb: 3, maxWidth: 560 }}>
      <Typography id={id} component="h2" variant="h6" sx={{ mb: 1 }}>
        {title}
      </Typography>
      {children}
    </Box>
  );
}

export function ProfilePage() {
  const translate = useTranslate();
  const notify = useNotify();
  const [me, setMe] = useState<Profile | null>(null);
  const { error, setError, run } = useRequests();
  const [otp, setOtp] = useState('');
  const [token, setToken] = useState<string | null>(null);
  // Nothing offered until the rights are known.
  const [writable, setWritable] = useState<OwnWritable>([]);

  const load = useCallback(async () => {
    try {
      const read = (await client.users.me.read({
        fields: ['id', 'first_name', 'last_name', 'email', 'language', 'avatar', 'tfa_secret'],
      })) as unknown as Profile;
      setMe(read);
      const rights = await client.permissions.readItemPermissions('svc_users', read.id).catch(() => undefined);
      setWritable(rights?.update.access === true ? (rights.update.fields ?? null) : []);
    } catch (e) {
      setError(errorText(e));
    }
  }, []);
  useEffect(() => void load(), [load]);

  const set = (key: keyof Profile, value: string) =>
    setMe((m) => (m === null ? m : { ...m, [key]: value === '' ? null : value }));

  const saveProfile = () =>
    run(
      () =>
        client.users.me.update({
          first_name: me?.first_name ?? null,
          last_name: me?.last_name ?? null,
          language: me?.language ?? null,
        }),
      'svc.item.saved',
    );
  const upload = async (file: File) => {
    const form = new FormData();
    form.append('title', file.name);
    form.append('file', file, file.name);
    await run(async () => {
      const created = await client.files.createOne(form);
      await client.users.me.update({ avatar: String(created?.id) });
      await load();
    }, 'svc.access.avatar_saved');
  };
  const catalogueChanged = useCatalogueChanged();
  // The session's catalogue knows whether TFA is on: a role that requires it is held to it.
  const tfaChanged = async () => {
    await load();
    catalogueChanged();
  };
  const disable = async () => {
    if (await run(() => client.users.me.tfa.disable(otp), 'svc.access.tfa_disabled')) {
      setOtp('');
      await tfaChanged();
    }
  };
  const makeToken = () =>
    run(async () => {
      const value = await client.utils.random.string(32);
      await client.users.me.update({ token: String(value) });
      setToken(String(value));
    }, 'svc.access.token_saved');

  const avatarUrl = useAvatarUrl(me?.avatar ?? null);
  const hasTfa = me?.tfa_secret !== null && me?.tfa_secret !== undefined;
  const may = (field: string) => mayWrite(writable, field);
  const mayEditDetails = ['first_name', 'last_name', 'language'].some(may);
  return (
    <AccessPage title={translate('svc.access.profile')} admin={false}>
      {error !== null && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {error}
        </Alert>
      )}
      {me !== null && (
        <>
          <Section id="profile-details" title={translate('svc.access.details')}>
            <Stack sx={{ gap: 1 }}>
              <Stack direction="row" sx={{ gap: 2, alignItems: 'center' }}>
                <Avatar
                  alt={translate('svc.access.avatar')}
                  {...(avatarUrl === undefined ? {} : { src: avatarUrl })}
                  sx={{ width: 56, height: 56 }}
                />
                {may('avatar') && (
                  <Button component="label" variant="outlined" startIcon={<UploadIcon />}>
                    {translate('svc.access.avatar_upload')}
                    <input
                      type="file"
                      accept="image/*"
                      hidden
                      onChange={(e) => {
                        const file = e.target.files?.[0];
                        if (file !== undefined) void upload(file);
                      }}
                    />
                  </Button>
                )}
              </Stack>
              <Typography color="text.secondary">{me.email}</Typography>
              <TextField
                label={translate('svc.access.first_name')}
                disabled={!may('first_name')}
                value={me.first_name ?? ''}
                onChange={(e) => set('first_name', e.target.value)}
              />
              <TextField
                label={translate('svc.access.last_name')}
                disabled={!may('last_name')}
                value={me.last_name ?? ''}
                onChange={(e) => set('last_name', e.target.value)}
              />
              <TextField
                select
                label={translate('svc.access.language')}
                disabled={!may('language')}
                value={me.language ?? ''}
                onChange={(e) => set('language', e.target.value)}
              >
                <MenuItem value="">{translate('svc.access.language_default')}</MenuItem>
                {LANGUAGES.map((l) => (
                  <MenuItem key={l} value={l}>
                    {l}
                  </MenuItem>
                ))}
              </TextField>
              {mayEditDetails ? (
                <Box>
                  <Button variant="contained" onClick={() => void saveProfile()}>
                    {translate('ra.action.save')}
                  </Button>
                </Box>
              ) : (
                <Typography color="text.secondary">{translate('svc.access.profile_read_only')}</Typography>
              )}
            </Stack>
          </Section>
          <Section id="profile-password" title={translate('svc.access.password')}>
            {may('password') ? (
              <PasswordForm
                whose="own"
                save={(password) => run(() => client.users.me.update({ password }), 'svc.access.password_saved')}
                onMismatch={setError}
              />
            ) : (
              <Typography color="text.secondary">{translate('svc.access.password_not_yours')}</Typography>
            )}
          </Section>
          <Section id="profile-tfa" title={translate('svc.access.tfa')}>
            <Stack sx={{ gap: 1 }}>
              <Typography>{translate(hasTfa ? 'svc.access.tfa_on' : 'svc.access.tfa_off')}</Typography>
              {hasTfa ? (
                <>
                  <TextField
                    label={translate('svc.sign_in.otp')}
                    value={otp}
                    onChange={(e) => setOtp(e.target.value)}
                    slotProps={{ htmlInput: { inputMode: 'numeric', autoComplete: 'one-time-code' } }}
                  />
                  <Box>
                    <Button variant="outlined" disabled={otp === ''} onClick={() => void disable()}>
                      {translate('svc.access.tfa_disable')}
                    </Button>
                  </Box>
                </>
              ) : (
                <TfaSetup run={run} onEnabled={tfaChanged} />
              )}
            </Stack>
          </Section>
          <Section id="profile-token" title={translate('svc.access.token')}>
            <Stack sx={{ gap: 1 }}>
              <Typography variant="body2" color="text.secondary">
                {translate('svc.access.token_hint')}
              </Typography>
              {token !== null && (
                <Stack direction="row" sx={{ gap: 1, alignItems: 'center' }}>
                  <TextField
                    label={translate('svc.access.token')}
                    value={token}
                    fullWidth
                    slotProps={{ htmlInput: { readOnly: true } }}
                  />
                  <Button
                    startIcon={<CopyIcon />}
                    onClick={() =>
                      void navigator.clipboard.writeText(token).then(
                        () => notify('svc.access.copied', { type: 'info' }),
                        () => undefined,
                      )
                    }
                  >
                    {translate('svc.access.copy')}
                  </Button>
                </Stack>
              )}
              {may('token') ? (
                <Box>
                  <Button variant="outlined" onClick={() => void makeToken()}>
                    {translate('svc.access.token_generate')}
                  </Button>
                </Box>
              ) : (
                <Typography color="text.secondary">{translate('svc.access.token_not_yours')}</Typography>
              )}
            </Stack>
          </Section>
        </>
      )}
    </AccessPage>
  );
}
