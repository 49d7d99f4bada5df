/**
 * What the access pages share: the admin-only guard, the API's refusal as one line, a page's
 * frame with its title.
 */
import type { ReactNode } from 'react';
import { Alert, Box, CircularProgress } from '@mui/material';
import { Title, useAuthenticated, usePermissions, useTranslate } from 'react-admin';
import { errorText } from '../../dom.js';
import type { Catalogue } from '../catalogue.js';

export { errorText };

/** A page's frame: its title (the app bar's h1) and, for `admin` pages, the admin-only guard. */
export function AccessPage({ title, admin = true, children }: { title: string; admin?: boolean; children: ReactNode }) {
  useAuthenticated();
  const translate = useTranslate();
  const { permissions, isPending } = usePermissions<Catalogue | null>();
  return (
    <Box sx={{ p: { xs: 1, sm: 2 }, maxWidth: 1100, minWidth: 0 }}>
      <Title title={title} />
      {isPending ? (
        <CircularProgress aria-label={translate('svc.page.loading')} />
      ) : admin && permissions?.me?.adminAccess !== true ? (
        <Alert severity="warning">{translate('svc.access.admin_only')}</Alert>
      ) : (
        children
      )}
    </Box>
  );
}

/** A comma- or line-separated list as the API's array (null when empty). */
export function listOf(text: string): string[] | null {
  const items = text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return items.length === 0 ? null : items;
}
