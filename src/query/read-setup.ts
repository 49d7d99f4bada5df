import type { Accountability } from '../access/accountability.js';
import { defaultReadAccess } from '../access/read-access.js';
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

/**
 * The caller and what they may read: the one place requests, re-reads after writes and
 * background jobs get their read access. Until role permissions are evaluated, admins read
 * everything and everybody else nothing.
 */
export function readerOf(accountability: Accountability): Reader {
  return { accountability, access: defaultReadAccess(accountability) };
}
