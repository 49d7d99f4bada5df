import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { MIGRATIONS } from '../catalog/migrations/index.js';
import { useHashConfig } from '../src/access/passwords.js';
import { PermissionStore } from '../src/access/permission-store.js';
import { createDataInvalidation } from '../src/cache/data-invalidation.js';
import { openSchemaCache } from '../src/cache/open-schema-cache.js';
import { openRedisBus } from '../src/cache/redis-bus.js';
import { loadConfigOrExit } from '../src/config/index.js';
import { createDatabase, type Knex } from '../src/db/index.js';
import { committedReadDatabase } from '../src/db/replicas.js';
import { waitForDatabase } from '../src/db/wait.js';
import { FileLibrary } from '../src/files/file-library.js';
import { createStorage } from '../src/files/storage/create-storage.js';
import { createJobQueue, startJobWorker } from '../src/jobs/job-queue.js';
import { flowJobHandlers, registerFlowHooks, type FlowDeps } from '../src/flows/index.js';
import { HookBus } from '../src/items/hooks.js';
import { loadWorkerOperations } from '../src/extensions/worker.js';
import { ItemsService } from '../src/items/items-service.js';
import { createLogger, type Logger } from '../src/logger/index.js';
import { processors } from './processors.js';

/**
 * The worker process (`node dist/workers/index.js`, `make worker`): the same configuration
 * as the API (database, REDIS, CACHE_NAMESPACE, STORAGE_*, TEMP_PATH, EXTENSIONS_PATH), takes
 * the jobs the API queues in bull and runs them (flows with the operation extensions); any
 * number of workers may run. The API migrates the database; a worker only uses it.
 * SIGTERM/SIGINT: it takes no more jobs, the running ones may finish within SHUTDOWN_TIMEOUT,
 * the others go back to the queue for another worker; then it exits.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  if (config.redis.url === undefined) {
    process.stderr.write('The worker needs REDIS: without it the API runs jobs itself.\n');
    process.exit(1);
  }
  const logger = createLogger(config);
  useHashConfig(config.hash);
  const storage = await createStorage(config.storage);
  const db = createDatabase(config.db, logger);
  await waitForDatabase(db, config.db.connectWaitMs, logger);
  await waitForCatalogue(db, logger);
  // The schema cache and the data invalidation share the process's Redis connections (bull has its own).
  const bus = await openRedisBus(config.redis);
  const schema = await openSchemaCache(config, db, logger, bus);
  const files = new FileLibrary({ config, storage, logger });
  const invalidation = await createDataInvalidation({ bus, namespace: config.cache.namespace, logger });
  const permissions = new PermissionStore(committedReadDatabase(db), {
    enabled: config.cache.permissions,
    log: logger,
  });
  // A flow's write with `emitEvents` starts other flows here as in the API: their runs are
  // queued in bull (this queue only adds), and filter flows run in the write.
  const hooks = new HookBus(({ owner, event, err }) => {
    logger.error({ err, owner, event }, `the "${event}" action of ${owner} failed`);
  });
  const jobs = createJobQueue({
    redis: config.redis,
    namespace: config.cache.namespace,
    settings: config.jobs,
    handlers: {},
    logger,
  });
  const flows: FlowDeps = { config, db, schema, permissions, invalidation, jobs, hooks, logger };
  registerFlowHooks(hooks, flows);
  // Queued flow runs here use the operation extensions of EXTENSIONS_PATH, as the API's do.
  const extensions = await loadWorkerOperations({ config, db, schema, permissions, logger });
  const exportDeps = { config, db, schema, files, permissions, invalidation };
  const worker = await startJobWorker({
    redis: config.redis,
    namespace: config.cache.namespace,
    settings: config.jobs,
    handlers: {
      ...processors({
        ...exportDeps,
        // No extensions load here: an export's read events run only where the API runs it (no Redis).
        items: (collection, options) => new ItemsService(collection, exportDeps, options),
      }),
      // Flows queued by the API (after-commit events, async webhooks) run here.
      ...flowJobHandlers(() => flows),
    },
    logger,
  });
  logger.info({ concurrency: config.jobs.concurrency }, 'worker ready');

  const stop = (signal: string) => {
    logger.info({ signal }, 'worker stopping');
    worker
      .close(config.shutdownTimeoutMs)
      .then(() => jobs.close())
      .then(() => extensions.close())
      .then(() => schema.close())
      .then(() => invalidation.close())
      .then(() => bus?.close())
      .then(() => db.destroy())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'worker stop failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => {
    stop('SIGTERM');
  });
  process.once('SIGINT', () => {
    stop('SIGINT');
  });
}

/**
 * Waits until the API has migrated the catalogue (a worker started beside a fresh API, as
 * docker-compose does, must not build, and share through Redis, the overview of a database
 * without its system tables).
 */
async function waitForCatalogue(db: Knex, logger: Logger): Promise<void> {
  const expected = MIGRATIONS.map((m) => m.version);
  for (let attempt = 0; ; attempt += 1) {
    const applied = await db('svc_migrations')
      .select<{ version: string }[]>('version')
      .then((rows) => new Set(rows.map((r) => r.version)))
      .catch(() => new Set<string>());
    if (expected.every((version) => applied.has(version))) return;
    if (attempt === 0) logger.info('waiting for the API to migrate the catalogue');
    await delay(1000);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
