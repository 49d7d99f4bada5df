/**
 * What a user whose role requires two-factor authentication (svc_roles.enforce_tfa) sees on every
 * page of the Studio until they have it, as Directus's app does: one sentence saying so and the
 * setup (tfa-setup.tsx); the app bar keeps Sign out. Once TFA is on the catalogue is read again
 * and the page asked for opens. The API itself does not hold them back.
 */
import { useEffect } from 'react';
import { Alert, Box, Stack, Typography } from '@mui/material';
import { Title, useTranslate } from 'react-admin';
import { useCatalogueChanged } from '../providers.js';
import { TfaSetup, useRequests } from './tfa-setup.js';

export function TfaRequiredPage() {
  const translate = useTranslate();
  const catalogueChanged = useCatalogueChanged();
  const { error, run } = useRequests();
  const title = translate('svc.access.tfa_required_title');
  useEffect(() => {
    document.title = `${title} · ${translate('svc.app.title')}`;
  }, [title, translate]);
  return (
    <Box sx={{ p: { xs: 1, sm: 2 }, maxWidth: 560, minWidth: 0 }}>
      <Title title={title} />
      <Typography sx={{ mb: 2 }}>{translate('svc.access.tfa_required')}</Typography>
      {error !== null && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {error}
        </Alert>
      )}
      <Stack sx={{ gap: 1 }}>
        <TfaSetup run={run} onEnabled={catalogueChanged} />
      </Stack>
    </Box>
  );
}
