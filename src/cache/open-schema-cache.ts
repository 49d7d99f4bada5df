import type { Knex } from 'knex';
import { buildOverview } from '../../catalog/overview/build.js';
import type { Config } from '../config/index.js';
import { committedReadDatabase } from '../db/replicas.js';
import type { RedisBus } from './redis-bus.js';
import { createSchemaCache, type CacheLogger, type SchemaCache } from './schema-cache.js';

/**
 * The schema cache of a process (API, worker, command line) on its Redis bus (none: in memory),
 * warmed: a database the overview cannot be built from fails the start.
 */
export async function openSchemaCache(
  config: Config,
  db: Knex,
  logger: CacheLogger,
  bus: RedisBus | undefined,
): Promise<SchemaCache> {
  // On SQLite, off the connection that writes: a long write does not hold up a rebuild.
  const reads = committedReadDatabase(db);
  const schema = await createSchemaCache({
    build: (version) => buildOverview(reads, { version, excludeTables: config.db.excludeTables, reporter: logger }),
    enabled: config.cache.schema,
    bus,
    namespace: config.cache.namespace,
    logger,
  });
  try {
    await schema.getOverview();
  } catch (error) {
    await schema.close();
    throw error;
  }
  return schema;
}
