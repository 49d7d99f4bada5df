/**
 * A role without app access is told so in one sentence, with who can grant it: an
 * administrator, named by e-mail only when the API lets this role read one.
 */
import { useEffect, useState, type ReactElement } from 'react';
import { Alert } from '@mui/material';
import { usePermissions, useTranslate } from 'react-admin';
import { client } from '../../session.js';
import type { Catalogue } from '../catalogue.js';

async function readAdminEmail(): Promise<string | null> {
  const answer = await client.users.readByQuery({
    filter: { role: { admin_access: { _eq: true } }, status: { _eq: 'active' } },
    fields: ['email'],
    limit: 1,
  });
  const email = (answer.data?.[0] as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' && email !== '' ? email : null;
}

export function NoAppAccess(): ReactElement | null {
  const translate = useTranslate();
  const { permissions } = usePermissions<Catalogue | null>();
  const me = permissions?.me ?? null;
  const isRefused = me !== null && !me.appAccess;
  const [admin, setAdmin] = useState<string | null>(null);
  useEffect(() => {
    if (!isRefused) return;
    readAdminEmail().then(setAdmin, () => setAdmin(null));
  }, [isRefused]);
  if (!isRefused) return null;
  return (
    <Alert severity="warning" role="alert">
      {admin === null
        ? translate('svc.list.no_app_access_anyone')
        : translate('svc.list.no_app_access', { who: admin })}
    </Alert>
  );
}
