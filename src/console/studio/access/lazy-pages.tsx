/**
 * The access pages, each loaded on demand (their own chunks, outside the initial bundle):
 * roles, a role, view as role, users, the profile.
 */
import { onDemand } from '../on-demand.js';

export const RolesRoute = onDemand(async () => (await import('./roles.js')).RolesPage);
export const RoleRoute = onDemand(async () => (await import('./roles.js')).RoleEditPage);
export const RolePreviewRoute = onDemand(async () => (await import('./preview.js')).RolePreviewPage);
export const UsersRoute = onDemand(async () => (await import('./users.js')).UsersPage);
export const ProfileRoute = onDemand(async () => (await import('./profile.js')).ProfilePage);
