import type { QueryLimits } from './ast/build-context.js';
import { resolveLimit } from './ast/build-level.js';
import type { Query } from './query.js';

/** True when the read has no limit: `limit=-1` and no QUERY_LIMIT_MAX. */
export function isUnlimited(query: Query, limits: QueryLimits): boolean {
  return resolveLimit(query.limit, limits) === null;
}
