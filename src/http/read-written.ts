import type { Knex } from 'knex';
import type { PermissionStore } from '../access/permission-store.js';
import type { CollectionOverview, SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import type { PrimaryKey } from '../commands/types.js';
import type { Config } from '../config/index.js';
import { ForbiddenError } from '../errors.js';
import { readItemByKey, readItemsByKeys, type Item, type Query } from '../query/index.js';
import { queryLimits, readerOf } from '../query/index.js';

export interface ReadWrittenDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly permissions: PermissionStore;
}

/**
 * Written items re-read after the commit with the caller's read access and `fields`
 * (reference/routes.md, Items): one item, or the items in key order. Undefined when the
 * re-read is forbidden: the write stays and the answer is 204.
 */
export async function readWritten(
  deps: ReadWrittenDeps,
  accountability: Accountability,
  overview: SchemaOverview,
  collection: CollectionOverview,
  keys: readonly PrimaryKey[],
  query: Query,
  shape: 'one' | 'many',
): Promise<Item | Item[] | undefined> {
  const ctx = { db: deps.db, overview, limits: queryLimits(deps.config) };
  const reader = await readerOf(deps, overview, accountability);
  try {
    if (shape === 'many') return await readItemsByKeys(ctx, collection.collection, keys, query, reader);
    const [key] = keys;
    return key === undefined ? undefined : await readItemByKey(ctx, collection.collection, key, query, reader);
  } catch (error) {
    if (error instanceof ForbiddenError) return undefined;
    throw error;
  }
}
