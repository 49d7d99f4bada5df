import type { CollectionOverview, SchemaOverview } from './types.js';

/**
 * An object keyed by names from the database (collections, fields) without a prototype: a
 * table named `constructor` or `__proto__` is an entry, never Object.prototype's member, and
 * a name that is no entry reads undefined. {@link restoreNameMaps} does the same to an
 * overview read back from JSON.
 */
export function nameMap<T>(entries: Iterable<readonly [string, T]> = []): Record<string, T> {
  const map = Object.create(null) as Record<string, T>;
  for (const [key, value] of entries) map[key] = value;
  return map;
}

/** An overview parsed from JSON (the shared schema cache) with its name maps prototype-free again. */
export function restoreNameMaps(overview: SchemaOverview): SchemaOverview {
  const collections = nameMap<CollectionOverview>();
  for (const [name, collection] of Object.entries(overview.collections)) {
    collections[name] = { ...collection, fields: nameMap(Object.entries(collection.fields)) };
  }
  return { ...overview, collections };
}
