/**
 * Setting up two-factor authentication for oneself: the current password (POST
 * /users/me/tfa/generate), then the secret and its otpauth URL, as text and as a QR code, and a
 * code from the authenticator app to turn it on (POST /users/me/tfa/enable). Shared by the
 * profile page and the page a role that requires TFA shows until it is on (tfa-required.tsx).
 */
import { useState } from 'react';
import { Alert, Box, Button, TextField } from '@mui/material';
import { useNotify, useTranslate } from 'react-admin';
import { errorText } from '../../dom.js';
import { client } from '../../session.js';
import { TfaQrCode } from './tfa-qr.js';

/**
 * A page's requests with their outcome: `run` notifies `message` when the request succeeds, and
 * leaves the refusal in `error` for the page to show (`setError` for its own checks).
 */
export function useRequests() {
  const notify = useNotify();
  const [error, setError] = useState<string | null>(null);
  const run = async (action: () => Promise<unknown>, message: string): Promise<boolean> => {
    try {
      await action();
      setError(null);
      notify(message, { type: 'success' });
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    }
  };
  return { error, setError, run };
}

export interface TfaSetupProps {
  /** Runs a request: true when it succeeded (the caller shows the refusal, or `message`). */
  readonly run: (action: () => Promise<unknown>, message: string) => Promise<boolean>;
  /** Called once TFA is on. */
  readonly onEnabled: () => unknown;
}

export function TfaSetup({ run, onEnabled }: TfaSetupProps) {
  const translate = useTranslate();
  const [password, setPassword] = useState('');
  const [secret, setSecret] = useState<{ secret: string; otpauth_url: string } | null>(null);
  const [otp, setOtp] = useState('');
  const generate = () =>
    run(async () => {
      setSecret((await client.users.me.tfa.generate(password)) ?? null);
      setPassword('');
    }, 'svc.access.tfa_scan');
  const enable = async () => {
    if (secret === null) return;
    if (await run(() => client.users.me.tfa.enable(secret.secret, otp), 'svc.access.tfa_enabled')) {
      setSecret(null);
      setOtp('');
      await onEnabled();
    }
  };
  if (secret === null)
    return (
      <>
        <TextField
          type="password"
          autoComplete="current-password"
          label={translate('svc.access.current_password')}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <Box>
          <Button variant="outlined" disabled={password === ''} onClick={() => void generate()}>
            {translate('svc.access.tfa_start')}
          </Button>
        </Box>
      </>
    );
  return (
    <>
      <Alert severity="info">{translate('svc.access.tfa_scan')}</Alert>
      <TfaQrCode url={secret.otpauth_url} />
      <TextField
        label={translate('svc.access.tfa_secret')}
        value={secret.secret}
        slotProps={{ htmlInput: { readOnly: true } }}
      />
      <TextField
        label={translate('svc.access.tfa_url')}
        value={secret.otpauth_url}
        multiline
        slotProps={{ htmlInput: { readOnly: true } }}
      />
      <TextField
        label={translate('svc.sign_in.otp')}
        value={otp}
        onChange={(e) => setOtp(e.target.value)}
        slotProps={{ htmlInput: { inputMode: 'numeric', autoComplete: 'one-time-code' } }}
      />
      <Box>
        <Button variant="contained" disabled={otp === ''} onClick={() => void enable()}>
          {translate('svc.access.tfa_enable')}
        </Button>
      </Box>
    </>
  );
}
