/**
 * An empty install's first stop: an administrator whose catalogue holds no collection (folders
 * aside) is sent from the collections page to create the first one. Small, in the initial
 * bundle; the data model page itself is loaded on demand.
 */
import type { ReactElement, ReactNode } from 'react';
import { usePermissions } from 'react-admin';
import { Navigate } from 'react-router-dom';
import type { Catalogue } from '../catalogue.js';
import { onDemand } from '../on-demand.js';

export function FirstRunGate({ children }: { readonly children: ReactNode }): ReactElement {
  const { permissions } = usePermissions<Catalogue | null>();
  const isEmpty =
    permissions?.me?.adminAccess === true &&
    permissions.error === null &&
    permissions.collections.every((c) => c.isFolder);
  return isEmpty ? <Navigate to="/settings/data-model/first-run" replace /> : <>{children}</>;
}

/** The route's element: the data model page, loaded on demand. */
export const LazyDataModelPage = onDemand(async () => (await import('./data-model-page.js')).default);
