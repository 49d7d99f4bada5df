/**
 * Sign in: e-mail and password, the TFA code when the account asks for one, and the single
 * sign-on providers of GET /auth (links that leave for the provider and come back signed in).
 */
import { useEffect, useState, type FormEvent } from 'react';
import { Alert, Box, Button, Card, CardContent, Link, Stack, TextField, Typography } from '@mui/material';
import { useLogin, useTranslate } from 'react-admin';
import { useLocation } from 'react-router-dom';
import { errorText } from '../dom.js';
import { client } from '../session.js';
import { OtpRequired } from './providers.js';

/** Where a single sign-on provider sends the browser back (on its REDIRECT_ALLOW_LIST). */
const SSO_RETURN = '/admin/content?sso';

interface Provider {
  readonly name: string;
  readonly label?: string | null;
}

export function LoginPage() {
  const translate = useTranslate();
  const login = useLogin();
  const location = useLocation();
  const [providers, setProviders] = useState<{ data: Provider[]; disableDefault: boolean } | null>(null);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [otp, setOtp] = useState<string | null>(null);
  const [status, setStatus] = useState<{ text: string; isError: boolean } | null>(null);
  // The project's public note (svc_settings.public_note, public in GET /server/info): the
  // sign-in page is where a visitor meets it, as in Directus. Asked without the token: a session
  // that just ended (a password changed) would be refused.
  const [note, setNote] = useState<string | null>(null);

  useEffect(() => {
    document.title = `${translate('svc.sign_in.title')} · ${translate('svc.app.title')}`;
    client.auth.providers().then(
      (answer) => setProviders({ data: [...answer.data] as Provider[], disableDefault: answer.disableDefault }),
      () => setProviders({ data: [], disableDefault: false }),
    );
    client.server.info({ public: true }).then(
      (info) => {
        const value = info?.project?.['public_note'];
        setNote(typeof value === 'string' && value.trim() !== '' ? value : null);
      },
      () => setNote(null),
    );
  }, [translate]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setStatus({ text: translate('svc.sign_in.signing_in'), isError: false });
    const next = (location.state as { nextPathname?: string } | null)?.nextPathname;
    login({ email, password, ...(otp === null ? {} : { otp }) }, next ?? '/content').then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof OtpRequired) {
          setOtp('');
          setStatus({ text: translate('svc.sign_in.otp_needed'), isError: false });
          return;
        }
        setStatus({ text: errorText(error), isError: true });
      },
    );
  };

  return (
    <Box component="main" sx={{ maxWidth: 420, mx: 'auto', my: 6, px: 2 }}>
      <Typography variant="h4" component="h1" id="sign-in-title" gutterBottom>
        {translate('svc.sign_in.title')}
      </Typography>
      {note !== null && (
        <Typography data-public-note sx={{ mb: 2, whiteSpace: 'pre-line' }}>
          {note}
        </Typography>
      )}
      {providers !== null && !providers.disableDefault && (
        <Card component="form" aria-labelledby="sign-in-title" onSubmit={submit} sx={{ mb: 2 }}>
          <CardContent>
            <Stack spacing={2}>
              <TextField
                label={translate('svc.sign_in.email')}
                type="email"
                autoComplete="username"
                required
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
              <TextField
                label={translate('svc.sign_in.password')}
                type="password"
                autoComplete="current-password"
                required
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
              {otp !== null && (
                <TextField
                  label={translate('svc.sign_in.otp')}
                  autoComplete="one-time-code"
                  required
                  autoFocus
                  slotProps={{ htmlInput: { inputMode: 'numeric', pattern: '[0-9]*' } }}
                  value={otp}
                  onChange={(e) => setOtp(e.target.value)}
                />
              )}
              <Button type="submit" variant="contained">
                {translate('svc.sign_in.submit')}
              </Button>
              <div role="status" aria-live="polite">
                {status !== null &&
                  (status.isError ? (
                    <Alert severity="error">{status.text}</Alert>
                  ) : (
                    <Typography>{status.text}</Typography>
                  ))}
              </div>
              <Link href="/admin/reset-password">{translate('svc.sign_in.forgot')}</Link>
            </Stack>
          </CardContent>
        </Card>
      )}
      {providers !== null && providers.data.length > 0 && (
        <Card component="nav" aria-label={translate('svc.sign_in.sso_label')}>
          <CardContent>
            <Typography variant="h6" component="h2" gutterBottom>
              {translate('svc.sign_in.sso')}
            </Typography>
            <Stack spacing={1}>
              {providers.data.map((p) => (
                <Button
                  key={p.name}
                  variant="outlined"
                  href={client.auth.loginUrl(p.name, `${window.location.origin}${SSO_RETURN}`)}
                >
                  {p.label ?? p.name}
                </Button>
              ))}
            </Stack>
          </CardContent>
        </Card>
      )}
    </Box>
  );
}
