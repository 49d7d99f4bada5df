import type { Knex } from 'knex';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import { ALLOW_ALL, DENY_ALL } from '../access/write-permissions.js';
import type { Config } from '../config/index.js';
import { queryLimits, readerOf } from '../query/index.js';
import type { CommandContext } from './types.js';

export interface CommandContextDeps {
  readonly config: Config;
  readonly db: Knex;
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
    readAccess: readerOf(accountability).access,
    readLimits: queryLimits(deps.config),
  };
}
