import type { Knex } from 'knex';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import { loadPermissions } from '../access/load-permissions.js';
import type { PermissionStore } from '../access/permission-store.js';
import { readAccessOf } from '../access/read-access.js';
import type { Config } from '../config/index.js';
import type { ReadContext, Reader } from './read-context.js';

/** QUERY_LIMIT_DEFAULT, QUERY_LIMIT_MAX and MAX_RELATIONAL_DEPTH, as reads take them. */
export function queryLimits(config: Config): ReadContext['limits'] {
  return {
    queryLimitDefault: config.queryLimitDefault,
    queryLimitMax: config.queryLimitMax,
    maxRelationalDepth: config.maxRelationalDepth,
  };
}

/** Where a caller's permissions come from: the database and the per-role rule cache. */
export interface ReaderDeps {
  readonly db: Knex;
  readonly permissions: PermissionStore;
}

/**
 * The caller and what they may read: the one place requests, re-reads after writes and
 * background jobs get their read access. The caller's permissions are loaded for this read
 * (rules cached per role and schema version, variables resolved now); admins read everything.
 */
export async function readerOf(
  deps: ReaderDeps,
  overview: SchemaOverview,
  accountability: Accountability,
): Promise<Reader> {
  const permissions = await loadPermissions({ db: deps.db, store: deps.permissions, overview }, accountability);
  return { accountability, access: readAccessOf(permissions) };
}
