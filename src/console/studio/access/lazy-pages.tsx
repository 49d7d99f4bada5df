/**
 * The access pages, each loaded on demand (their own chunks, outside the initial bundle):
 * roles, a role, view as role, users, the profile.
 */
import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { Loading } from 'react-admin';

function onDemand(Page: LazyExoticComponent<ComponentType>) {
  return function OnDemand() {
    return (
      <Suspense fallback={<Loading />}>
        <Page />
      </Suspense>
    );
  };
}

export const RolesRoute = onDemand(lazy(() => import('./roles.js').then((m) => ({ default: m.RolesPage }))));
export const RoleRoute = onDemand(lazy(() => import('./roles.js').then((m) => ({ default: m.RoleEditPage }))));
export const RolePreviewRoute = onDemand(
  lazy(() => import('./preview.js').then((m) => ({ default: m.RolePreviewPage }))),
);
export const UsersRoute = onDemand(lazy(() => import('./users.js').then((m) => ({ default: m.UsersPage }))));
export const ProfileRoute = onDemand(lazy(() => import('./profile.js').then((m) => ({ default: m.ProfilePage }))));
