/**
 * The read side (src/query/README.md). Callers build a `Query` (from a request
 * with `parseQuery`, or directly, as GraphQL and the write side do) and read with the
 * functions below; each read is one SQL statement however deeply it nests.
 */

/**
 * The typed query of every read, shared by REST, SEARCH, GraphQL and
 * the write side's re-reads.
 */
export type { Query, NestedQuery, Filter, AggregateFunction, ExportFormat } from './query.js';

/** Raw parameters (query string or SEARCH body `query`) → `Query`; INVALID_QUERY on bad syntax. */
export { deepFreeze, parseQuery, parseQueryString, parseFilter, queryOfSearch } from './parse/parse-query.js';

/** The database, the current schema overview and the limits a read runs with. */
export type { ReadContext, Reader } from './read-context.js';
export { queryLimits, readerOf, type ReaderDeps } from './read-setup.js';

/**
 * Items of a query (or aggregate rows when it aggregates); meta counts; items by primary key
 * (in key order; `readItemByKey` is FORBIDDEN when missing); a singleton's item or defaults.
 * `readItemsJson` / `readItemJsonByKey`: the same as JSON text written by the database, where
 * the dialect and fields allow (null otherwise).
 */
export {
  readItems,
  readMeta,
  readItemsByKeys,
  readItemByKey,
  readItemsJson,
  readItemJsonByKey,
  itemJsonStatement,
  readSingleton,
  isAggregateQuery,
  type Item,
  type Meta,
} from './read-items.js';

/** Items one at a time with flat memory, for `limit=-1` and exports. */
export { streamItems } from './stream-items.js';

/** Whether a query reads without a limit (`limit=-1` with no QUERY_LIMIT_MAX). */
export { isUnlimited } from './is-unlimited.js';
export { dateFunctionsOf } from './ast/build-condition.js';

/**
 * History (issue 18): a diff between two revisions, an item's revisions (or one field's), an
 * item as it was at a moment; each shows only what the caller may read now.
 */
export { readRevisionDiff } from './history/revision-diff.js';
export { readItemHistory, historyOptions } from './history/item-history.js';
export { readItemAsOf, readItemStateAsOf, stateOfRevisionData, parseAsOf, type AsOf } from './history/item-as-of.js';
/** The revision `data`/`delta` column as an object; a revision's fields and values as the caller may see them now. */
export { isVisibleField, revisionValues, visibleValues, storedKey as storedItemKey } from './history/history-access.js';
export {
  readItemVersion,
  readVersionRow,
  mainItemHash,
  parseVersionKey,
  MAIN_VERSION_KEY,
  type VersionRow,
} from './history/item-version.js';
export { compareVersion, liveChangesSince } from './history/version-compare.js';
export { scalarText } from './shape/shape-value.js';
export { setOwn } from './parse/parse-values.js';
export { MAX_DOCUMENT_DEPTH, nestsDeeperThan, tooDeepMessage } from './parse/nesting-depth.js';
