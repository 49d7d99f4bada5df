/**
 * `/admin/content/<collection>` for a collection that is not a resource here (the role may not
 * read it, or it does not exist; the API tells the two apart for nobody): one sentence and the
 * way back, where react-admin would show its generic "not found". A role without app access is
 * told that instead, as on the collections page.
 */
import type { ReactElement } from 'react';
import { Alert, Box, Button } from '@mui/material';
import { Title, useAuthenticated, usePermissions, useTranslate } from 'react-admin';
import { Link, useParams } from 'react-router-dom';
import type { Catalogue } from '../catalogue.js';
import { NoAppAccess } from './no-app-access.js';

export function NoCollectionAccess(): ReactElement {
  useAuthenticated();
  const translate = useTranslate();
  const { collection = '' } = useParams<{ collection: string }>();
  const { permissions } = usePermissions<Catalogue | null>();
  return (
    <Box sx={{ py: 2, display: 'flex', flexDirection: 'column', gap: 2, alignItems: 'flex-start' }}>
      <Title title={translate('svc.list.no_access_title')} />
      <NoAppAccess />
      {permissions?.me?.appAccess !== false && (
        <Alert severity="warning" role="alert">
          {translate('svc.list.no_access', { collection })}
        </Alert>
      )}
      <Button component={Link} to="/content">
        {translate('svc.list.no_access_back')}
      </Button>
    </Box>
  );
}
