import type { Knex } from 'knex';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import { loadPermissions } from '../access/load-permissions.js';
import type { PermissionStore } from '../access/permission-store.js';
import { readAccessOf } from '../access/read-access.js';
import { writePermissionsOf } from '../access/write-permissions.js';
import type { DataInvalidation } from '../cache/data-invalidation.js';
import type { Config } from '../config/index.js';
import { queryLimits } from '../query/index.js';
import type { Change, SeenBy } from './change-set.js';
import { itemMatcher } from './match-items.js';
import type { CommandContext, DebugLog, PrimaryKey, Traffic } from './types.js';

export interface CommandContextDeps {
  readonly config: Config;
  readonly db: Knex;
  /** The permission rules per role (src/access/README.md). */
  readonly permissions: PermissionStore;
  /** Moved after writes that change permissions, so every instance drops its cached rules. */
  readonly schema: { invalidate(): Promise<void> };
  /** Told after every commit which collections changed (static token users, ...). */
  readonly invalidation: Pick<DataInvalidation, 'changed'>;
  /** Where a write's debug notes go (the server's logger). */
  readonly logger?: DebugLog;
  /** Where committed changes go (the live-data feed, src/realtime); none: nowhere. */
  readonly changes?: {
    publish(changes: readonly Change[]): Promise<void>;
    /** See CommandContext's `witnessDelete`. */
    witnessDelete?(trx: Knex.Transaction, collection: string, keys: readonly PrimaryKey[]): Promise<SeenBy | undefined>;
  };
  /** The requests in flight, which long writes give way to (http/traffic.ts); none: no one waits. */
  readonly traffic?: Traffic;
}

/**
 * Collections whose rows are permissions or decide them: svc_permissions rows, and svc_roles
 * (admin_access, app_access, ip_access).
 */
const PERMISSION_COLLECTIONS: ReadonlySet<string> = new Set(['svc_permissions', 'svc_roles']);

/**
 * What a write handler needs for one caller: a request, or a background job acting for the
 * user who asked for it. The caller's permissions are loaded once for the command and give
 * both its write rules and its read access (admins: everything).
 */
export async function commandContext(
  deps: CommandContextDeps,
  accountability: Accountability,
  overview: SchemaOverview,
): Promise<CommandContext> {
  const now = new Date();
  const permissions = await loadPermissions({ db: deps.db, store: deps.permissions, overview }, accountability, now);
  const readLimits = queryLimits(deps.config);
  const variables = { now, user: accountability.user, role: accountability.role };
  return {
    db: deps.db,
    overview,
    accountability,
    permissions: writePermissionsOf(permissions, itemMatcher(overview, readLimits, accountability), variables),
    maxBatchMutation: deps.config.maxBatchMutation,
    readAccess: readAccessOf(permissions),
    readLimits,
    ...(deps.logger === undefined ? {} : { log: deps.logger }),
    ...(deps.traffic === undefined ? {} : { traffic: deps.traffic }),
    ...(deps.changes === undefined
      ? {}
      : { afterCommit: (changes) => deps.changes?.publish(changes) ?? Promise.resolve() }),
    ...(deps.changes?.witnessDelete === undefined
      ? {}
      : {
          witnessDelete: (trx, collection, keys) =>
            deps.changes?.witnessDelete?.(trx, collection, keys) ?? Promise.resolve(undefined),
        }),
    // The schema version keys the permission cache (src/access/permission-store.ts): moving
    // it after the commit makes every instance reload the rules and ip_access.
    purgeCache: async (collections) => {
      if (collections.some((c) => PERMISSION_COLLECTIONS.has(c))) await deps.schema.invalidate();
      await deps.invalidation.changed(collections);
    },
  };
}
