import type { Knex } from 'knex';
import { ownAccountability } from '../access/accountability.js';
import type { PermissionStore } from '../access/permission-store.js';
import type { SchemaCache } from '../cache/schema-cache.js';
import type { Config } from '../config/index.js';
import { ForbiddenError } from '../errors.js';
import {
  queryLimits,
  readerOf,
  readItemByKey,
  readItems,
  readItemsByKeys,
  readSingleton,
  type Query,
} from '../query/index.js';
import type { ItemsBackend, ServicesDeps } from './services.js';

export interface ReadItemsDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly schema: Pick<SchemaCache, 'getOverview'>;
  readonly permissions: PermissionStore;
}

/** The service's own admin work (a service made without accountability). */
const SERVICE = ownAccountability();

/**
 * The facades' items in a command-line run (cli.ts) or a worker (worker.ts), through the read side with the caller's
 * read permissions: reads only. A write would change data behind the running API instances'
 * caches, which the command line does not reach; the API's extensions write through the items
 * service (server.ts).
 */
export function readOnlyItems(deps: ReadItemsDeps, where = 'the command line'): ServicesDeps['items'] {
  return (collection, accountability) => {
    const setup = async () => {
      const overview = await deps.schema.getOverview();
      const ctx = { db: deps.db, overview, limits: queryLimits(deps.config) };
      return { ctx, reader: await readerOf(deps, overview, accountability ?? SERVICE) };
    };
    const refuse = () =>
      Promise.reject(new ForbiddenError({ message: `Extensions cannot write through services from ${where}.` }));
    const backend: ItemsBackend = {
      async readByQuery(query: Query) {
        const { ctx, reader } = await setup();
        return readItems(ctx, collection, query, reader);
      },
      async readOne(key, query = {}) {
        const { ctx, reader } = await setup();
        return readItemByKey(ctx, collection, key, query, reader);
      },
      async readMany(keys, query = {}) {
        const { ctx, reader } = await setup();
        return readItemsByKeys(ctx, collection, keys, query, reader);
      },
      async readSingleton(query = {}) {
        const { ctx, reader } = await setup();
        return readSingleton(ctx, collection, query, reader);
      },
      createOne: refuse,
      createMany: refuse,
      updateOne: refuse,
      updateMany: refuse,
      updateBatch: refuse,
      updateByQuery: refuse,
      upsertOne: refuse,
      upsertMany: refuse,
      upsertSingleton: refuse,
      deleteOne: refuse,
      deleteMany: refuse,
      deleteByQuery: refuse,
    };
    return backend;
  };
}
