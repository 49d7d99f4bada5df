import { InvalidQueryError } from '../../errors.js';
import type { Deep, Filter, Query } from '../query.js';

/**
 * MAX_RELATIONAL_DEPTH as Directus 10 counts it (validate-query): the field names along a
 * path. `title` is 1, `author.name` 2; in a filter every key that is not an operator (`_eq`,
 * `_and`, `_some`, ...) adds one; in `deep` every relation adds one, and its `_filter` and
 * `_sort` add their own depth below it.
 */
export function pathDepth(path: string): number {
  return path.split('.').length;
}

export function filterDepth(filter: unknown): number {
  if (Array.isArray(filter)) return Math.max(0, ...filter.map(filterDepth));
  if (typeof filter !== 'object' || filter === null) return 0;
  let depth = 0;
  for (const [key, value] of Object.entries(filter)) {
    if (typeof value !== 'object' || value === null) continue;
    depth = Math.max(depth, filterDepth(value) + (key.startsWith('_') ? 0 : 1));
  }
  return depth;
}

export function deepDepth(deep: Deep | undefined): number {
  let depth = 0;
  for (const nested of Object.values(deep ?? {})) {
    const below = Math.max(
      filterDepth(nested.filter),
      ...(nested.sort ?? []).map((entry) => pathDepth(entry.replace(/^-/, ''))),
      deepDepth(nested.deep),
    );
    depth = Math.max(depth, below + 1);
  }
  return depth;
}

/**
 * The query's `fields` (or `groupBy`), `filter`, `sort` and `deep` each within `max`
 * relations; INVALID_QUERY "Max relational depth exceeded" otherwise.
 */
export function checkRelationalDepth(query: Query, max: number): void {
  const hasAggregate = Object.keys(query.aggregate ?? {}).length > 0;
  const fields = query.groupBy ?? (hasAggregate ? [] : (query.fields ?? []));
  const depths = [
    ...fields.map(pathDepth),
    filterDepth(query.filter satisfies Filter | undefined),
    ...(query.sort ?? []).map(pathDepth),
    deepDepth(query.deep),
  ];
  if (depths.some((depth) => depth > max)) throw new InvalidQueryError('Max relational depth exceeded');
}
