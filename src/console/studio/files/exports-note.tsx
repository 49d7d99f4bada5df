/**
 * The exports folder's note: what the files are and how long they are kept, as the cleanup reads
 * it: the project's setting (svc_settings.export_retention, for a role that may read the
 * settings), else the server's default (EXPORT_RETENTION, which GET /server/info tells
 * administrators). Administrators get a link to the settings page, where it is changed.
 */
import { useEffect, useState } from 'react';
import { Alert, Link as MuiLink } from '@mui/material';
import { Link } from 'react-router-dom';
import { useTranslate } from 'react-admin';
import { client } from '../../session.js';

/**
 * The retention in force: the setting when set, else the server's default. Null: kept forever
 * (`0` or `false`, as the service reads them: src/config/durations.ts); undefined: not known here.
 */
function retentionInForce(setting: string | null | undefined, serverDefault: string | null | undefined) {
  const own = setting?.trim() ?? '';
  if (own === '') return serverDefault;
  return ['0', 'false'].includes(own.toLowerCase()) ? null : own;
}

export function ExportsNote({ isAdmin, mayReadSettings }: { isAdmin: boolean; mayReadSettings: boolean }) {
  const translate = useTranslate();
  const [setting, setSetting] = useState<string | null | undefined>(undefined);
  const [serverDefault, setServerDefault] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    if (mayReadSettings) {
      client.settings.read({ fields: ['export_retention'] }).then(
        (s) => setSetting(typeof s?.['export_retention'] === 'string' ? s['export_retention'] : null),
        () => undefined,
      );
    }
    if (isAdmin) {
      client.server.info().then(
        (info) => setServerDefault(info?.exports?.retention),
        () => undefined,
      );
    }
  }, [isAdmin, mayReadSettings]);
  const retention = retentionInForce(setting, serverDefault);
  const kept =
    retention === undefined
      ? translate('svc.files.exports_kept_unknown')
      : retention === null
        ? translate('svc.files.exports_kept_forever')
        : translate('svc.files.exports_kept', { retention });
  return (
    <Alert severity="info" sx={{ mb: 2 }}>
      {translate('svc.files.exports_note')} {kept}
      {isAdmin && (
        <>
          {' '}
          <MuiLink component={Link} to="/settings/project">
            {translate('svc.files.exports_settings')}
          </MuiLink>
        </>
      )}
    </Alert>
  );
}
