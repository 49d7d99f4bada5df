import { requireCollection, requireTable } from '../../catalog/overview/lookup.js';
import type { CollectionOverview, SchemaOverview } from '../../catalog/overview/types.js';
import { ForbiddenError } from '../errors.js';

/**
 * System collections whose items are not written as items, by any door (REST, GraphQL, the
 * WebSocket, imports, extensions): the journal is read only, the schema collections change
 * through /collections, /fields and /relations, content versions through /versions.
 */
const NOT_WRITABLE_AS_ITEMS: ReadonlySet<string> = new Set([
  'svc_activity',
  'svc_revisions',
  'svc_collections',
  'svc_fields',
  'svc_relations',
  'svc_versions',
]);

/** Whether `collection`'s rows are written as items: not the journal's, not the schema's. */
export function isWritableAsItems(collection: string): boolean {
  return !NOT_WRITABLE_AS_ITEMS.has(collection);
}

/**
 * The collection written to as items, or FORBIDDEN when it is unknown or not written as
 * items (spec, Errors, rule 1). An administrator's write to a folder is 422, saying why it has no items.
 */
export function requireWritable(overview: SchemaOverview, name: string, isAdmin: boolean): CollectionOverview {
  if (isAdmin) requireTable(overview, name);
  if (!isWritableAsItems(name)) throw new ForbiddenError();
  return requireCollection(overview, name);
}
