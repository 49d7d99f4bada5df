import type { Knex } from 'knex';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import { defaultReadAccess } from '../access/read-access.js';
import { ALLOW_ALL, DENY_ALL } from '../access/write-permissions.js';
import type { Config } from '../config/index.js';
import type { ReadContext } from '../query/index.js';
import type { CommandContext } from './types.js';

export interface CommandContextDeps {
  readonly config: Config;
  readonly db: Knex;
}

/** QUERY_LIMIT_DEFAULT, QUERY_LIMIT_MAX and MAX_RELATIONAL_DEPTH, as reads take them. */
export function queryLimits(config: Config): ReadContext['limits'] {
  return {
    queryLimitDefault: config.queryLimitDefault,
    queryLimitMax: config.queryLimitMax,
    maxRelationalDepth: config.maxRelationalDepth,
  };
}

/**
 * What a write handler needs for one caller: a request, or a background job acting for the
 * user who asked for it. Admins may write (and read) everything; everybody else nothing
 * until role permissions are evaluated (data is private by default).
 */
export function commandContext(deps: CommandContextDeps, accountability: Accountability, overview: SchemaOverview): CommandContext {
  return {
    db: deps.db,
    overview,
    accountability,
    permissions: accountability.admin ? ALLOW_ALL : DENY_ALL,
    maxBatchMutation: deps.config.maxBatchMutation,
    readAccess: defaultReadAccess(accountability),
    readLimits: queryLimits(deps.config),
  };
}
