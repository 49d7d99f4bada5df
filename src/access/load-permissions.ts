import type { Knex } from 'knex';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from './accountability.js';
import { loadDynamicContext } from './load-dynamic-context.js';
import type { PermissionStore } from './permission-store.js';
import { ADMIN_PERMISSIONS, createPermissions, type Permissions } from './permissions.js';

export interface PermissionDeps {
  readonly db: Knex;
  readonly store: PermissionStore;
  readonly overview: SchemaOverview;
}

/**
 * The caller's permissions for one request: admins bypass everything; everyone else gets
 * their role's rules (the public rows without a role; plus the app_access rows when the
 * token says so), with dynamic variables resolved for them at `now`.
 */
export async function loadPermissions(
  deps: PermissionDeps,
  accountability: Accountability,
  now: Date = new Date(),
): Promise<Permissions> {
  if (accountability.admin) return ADMIN_PERMISSIONS;
  // Without a role there are no role flags: the public rows only.
  const app = accountability.role !== null && accountability.app;
  const rules = await deps.store.rulesFor(accountability.role, app, deps.overview);
  const context = await loadDynamicContext(deps.db, deps.overview, accountability, rules.dynamicPaths, now);
  return createPermissions(rules, context);
}
