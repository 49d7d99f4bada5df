import type { Knex } from 'knex';
import type { PermissionStore } from '../access/permission-store.js';
import type { CollectionOverview, SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import type { DebugLog, PrimaryKey } from '../commands/types.js';
import type { Config } from '../config/index.js';
import { ForbiddenError, ServiceError } from '../errors.js';
import type { Logger } from '../logger/index.js';
import { readItemByKey, readItemsByKeys, type Item, type Query } from '../query/index.js';
import { queryLimits, readerOf } from '../query/index.js';

export interface ReadWrittenDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly permissions: PermissionStore;
  /** The app's logger (route deps type it as commands' DebugLog: `warn` is there at run time). */
  readonly logger?: DebugLog & Partial<Pick<Logger, 'warn'>>;
}

/**
 * Written items re-read after the commit with the caller's read access and `fields`:
 * one item, or the items in key order. Undefined when the
 * re-read is forbidden: the write stays and the answer is 204. A re-read that fails for any
 * other reason than the caller's input (the database dropped the connection right after the
 * commit) answers the write's success with the written keys only: a committed write is never
 * answered with an error, which a client would retry into a duplicate.
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
    if (error instanceof ServiceError) throw error;
    deps.logger?.warn?.(
      { err: error, collection: collection.collection, keys },
      'write committed; its re-read failed: answered with the keys only',
    );
    const written = keys.map((key) => ({ [collection.primary]: key }));
    return shape === 'many' ? written : written[0];
  }
}
