/**
 * The flows pages' guard. The navigation offers Flows to whoever may read svc_flows; someone who
 * opens a flows URL anyway (a bookmark, a link from an administrator) is told their role may not,
 * rather than shown the API's refusal of requests sent regardless, or a page half drawn from it.
 */
import type { ReactNode } from 'react';
import { Alert, Box, LinearProgress } from '@mui/material';
import { Title, useAuthenticated, usePermissions, useTranslate } from 'react-admin';
import { mayReadSystem, type Catalogue } from '../catalogue.js';

export function FlowsGate({ children }: { children: ReactNode }) {
  const { isPending: isChecking } = useAuthenticated();
  const { permissions, isPending } = usePermissions<Catalogue | null>();
  const translate = useTranslate();
  if (isChecking || isPending) return <LinearProgress />;
  if (mayReadSystem(permissions, 'svc_flows')) return children;
  return (
    <Box sx={{ mt: 2 }}>
      <Title title={translate('svc.flows.title')} />
      <Alert severity="warning">{translate('svc.flows.not_allowed')}</Alert>
    </Box>
  );
}
