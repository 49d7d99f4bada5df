/**
 * A new password, the one form of the profile and of the users dialog: the caller's own (`own`:
 * typed twice, its section's main action, "Change password") or another user's, set by an
 * administrator (`user`: once, one row among the dialog's actions, "Set password"). The service's
 * password policy applies and the user's sessions end (password_stamp); the API's refusal, like
 * the two entries' mismatch, is the page's to show.
 */
import { useState } from 'react';
import { Box, Button, Stack, TextField } from '@mui/material';
import { useTranslate } from 'react-admin';

type PasswordFormProps = {
  /** Saves the password; true once saved, which empties the form. */
  save(password: string): Promise<boolean>;
} & ({ readonly whose: 'own'; onMismatch(message: string): void } | { readonly whose: 'user' });

export function PasswordForm(props: PasswordFormProps) {
  const translate = useTranslate();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const isOwn = props.whose === 'own';
  const submit = async () => {
    if (props.whose === 'own' && password !== repeat) {
      props.onMismatch(translate('svc.access.password_mismatch'));
      return;
    }
    if (await props.save(password)) {
      setPassword('');
      setRepeat('');
    }
  };
  const entry = (label: string, value: string, change: (value: string) => void) => (
    <TextField
      type="password"
      autoComplete="new-password"
      label={translate(label)}
      value={value}
      onChange={(e) => change(e.target.value)}
    />
  );
  const button = (
    <Button variant={isOwn ? 'contained' : 'text'} disabled={password === ''} onClick={() => void submit()}>
      {translate(isOwn ? 'svc.access.change_password' : 'svc.access.set_password')}
    </Button>
  );
  return isOwn ? (
    <Stack sx={{ gap: 1 }}>
      {entry('svc.access.new_password', password, setPassword)}
      {entry('svc.access.repeat_password', repeat, setRepeat)}
      <Box>{button}</Box>
    </Stack>
  ) : (
    <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1, mt: 2, alignItems: 'center' }}>
      {entry('svc.access.new_password', password, setPassword)}
      {button}
    </Stack>
  );
}
