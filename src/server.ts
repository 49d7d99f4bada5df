// Over 400 lines, kept whole: the composition root wires every part, its shutdown and its start-up failure lines in one place.
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createServer, type Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { bootstrap, type BootstrapResult } from '../catalog/bootstrap.js';
import { openRedisBus, type RedisBus } from './cache/redis-bus.js';
import { createDataCache, purgeOnChange, type DataCache } from './cache/data-cache.js';
import { createDataInvalidation, type DataInvalidation } from './cache/data-invalidation.js';
import { openSchemaCache } from './cache/open-schema-cache.js';
import type { SchemaCache } from './cache/schema-cache.js';
import { loadConfigOrExit, type Config } from './config/index.js';
import { checkServerVersion, describeConnectionFailure } from './db/connection-failure.js';
import { createDatabase, type Knex } from './db/index.js';
import { committedReadDatabase } from './db/replicas.js';
import { waitForDatabase } from './db/wait.js';
import { createApp } from './http/app.js';
import { requestDoor } from './http/request-door.js';
import { createMetrics } from './http/metrics.js';
import { RequestTraffic, setAsideWaitsForConnections } from './http/traffic.js';
import { answerClientError } from './http/error-handler.js';
import { createLogger, type Logger } from './logger/index.js';
import { hashPassword, useHashConfig } from './access/passwords.js';
import { createAuthServices, type AuthServices } from './auth/auth-context.js';
import {
  FallbackCounterStore,
  MemoryCounterStore,
  RedisCounterStore,
  type CounterStore,
} from './auth/counter-store.js';
import { RedisGuard } from './cache/redis-guard.js';
import { PermissionStore } from './access/permission-store.js';
import { exportHandlers } from './files/export/export-handlers.js';
import { EXPORT_CLEANUP_JOB } from './files/export/export-retention.js';
import { FileLibrary } from './files/file-library.js';
import { createStorage } from './files/storage/create-storage.js';
import { createJobQueue } from './jobs/job-queue.js';
import type { JobQueue } from './jobs/job.js';
import {
  FLOW_LANES_EVERY_MS,
  FLOW_LANES_JOB,
  FLOW_PRUNE_JOB,
  flowJobHandlers,
  mailSender,
  refuseScriptsWhenOff,
  registerFlowHooks,
  startFlowSchedule,
  type FlowDeps,
} from './flows/index.js';
import { startJournalPruner, type JournalPruner } from './commands/journal/prune-journal.js';
import { createChangeFeed, type ChangeFeed } from './realtime/change-feed.js';
import { LiveReads } from './realtime/live-reads.js';
import { schemaWithEvents } from './realtime/schema-events.js';
import { websocketUpgrade, type UpgradeHandler } from './http/websocket-upgrade.js';
import { HookBus } from './items/hooks.js';
import { ItemsService } from './items/items-service.js';
import { loadExtensions, type Extensions } from './extensions/index.js';
import { Draining } from './http/draining.js';

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly db: Knex;
  readonly schema: SchemaCache;
  readonly bootstrap: BootstrapResult;
  /** The Express app behind the listener; its router stack is the list of routes served (tests read it). */
  readonly app: Express;
  /** What flows run with. */
  readonly flows: FlowDeps;
  /** The process's filter and action events (src/items/hooks.ts): extensions and tests register here. */
  readonly hooks: HookBus;
  /**
   * Graceful stop: `drainMs` of serving on while /server/health says `draining` (draining.ts),
   * then refuse new connections, let in-flight requests finish, close the sockets and the pools.
   */
  close(options?: { readonly drainMs?: number }): Promise<void>;
}

export interface StartOptions {
  readonly logger?: Logger;
  /** false: every request is answered by the Express app (http/request-door.ts; tests compare both). */
  readonly fastPath?: boolean;
  /** The process's hook events; a new one by default. */
  readonly hooks?: HookBus;
}

/** Composition root: config → database (migrated, bootstrapped) → app → listening server. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config);
  useHashConfig(config.hash);
  if (config.isSecretGenerated) {
    logger.info('SECRET not set: tokens end at restart (set SECRET to keep them)');
  }
  const storage = await createStorage(config.storage);
  const files = new FileLibrary({ config, storage, logger });
  const db = createDatabase(config.db, {
    warn: (message) => {
      logger.warn(message);
    },
    info: (message) => {
      logger.info(message);
    },
    debug: (message) => {
      logger.debug(message);
    },
  });
  let result: BootstrapResult;
  try {
    await waitForDatabase(db, config.db.connectWaitMs, logger);
    await checkServerVersion(db, config.db);
    result = await bootstrap(db, {
      adminEmail: config.admin.email,
      adminPassword: config.admin.password,
      adminToken: config.admin.token,
      hashPassword,
    });
  } catch (error) {
    await db.destroy();
    throw error;
  }
  if (result.appliedMigrations.length > 0) {
    logger.info({ versions: result.appliedMigrations }, 'catalogue migrated');
  }

  // One Redis bus per process (issue 37): the Redis users below share its connections (bull and
  // the health check make their own).
  let bus: RedisBus | undefined;
  let schema: SchemaCache;
  try {
    bus = await openRedisBus(config.redis);
    schema = await openSchemaCache(config, db, logger, bus);
  } catch (error) {
    await bus?.close();
    await db.destroy();
    throw error;
  }

  let invalidation: DataInvalidation;
  try {
    invalidation = await createDataInvalidation({ bus, namespace: config.cache.namespace, logger });
  } catch (error) {
    await schema.close();
    await bus?.close();
    await db.destroy();
    throw error;
  }
  let changes: ChangeFeed;
  try {
    changes = await createChangeFeed({ bus, namespace: config.cache.namespace, logger });
  } catch (error) {
    await invalidation.close();
    await schema.close();
    await bus?.close();
    await db.destroy();
    throw error;
  }
  // One bus per process: extensions register, the items service and auth run its filters and actions.
  const hooks =
    options.hooks ??
    new HookBus(({ owner, event, err }) => {
      logger.error({ err, extension: owner, event }, `extension "${owner}": the "${event}" action failed`);
    });
  const auth = createAuthServices({ db, config, logger, invalidation, hooks }, bus);
  const permissions = new PermissionStore(committedReadDatabase(db), {
    enabled: config.cache.permissions,
    log: logger,
  });
  // Without Redis exports run here, through the same handler the worker process runs.
  const exportDeps = { config, db, schema, files, permissions, invalidation };
  const jobs = createJobQueue({
    redis: config.redis,
    namespace: config.cache.namespace,
    settings: config.jobs,
    handlers: {
      ...exportHandlers({
        ...exportDeps,
        items: (collection, options) => new ItemsService(collection, { ...exportDeps, hooks }, options),
      }),
      ...flowJobHandlers(() => flows),
    },
    logger,
  });
  const flows: FlowDeps = {
    config,
    db,
    schema,
    permissions,
    invalidation,
    jobs,
    hooks,
    logger,
    sendMail: mailSender(auth.mailer),
  };
  // Event flows: filters run in the write, actions are queued after its commit.
  registerFlowHooks(hooks, flows);
  refuseScriptsWhenOff(hooks, config);
  // Schedule flows: once one exists, a tick a second for every instance (bull), run by a worker
  // (or here without Redis); claims and old runs are pruned every RETENTION_INTERVAL, and item
  // lanes nothing would start are looked for every minute.
  await startFlowSchedule(flows);
  await jobs.repeat(FLOW_PRUNE_JOB, config.retention.intervalMs).catch((error: unknown) => {
    logger.warn({ err: error }, 'flows: the pruning of old runs could not be scheduled');
  });
  await jobs.repeat(FLOW_LANES_JOB, FLOW_LANES_EVERY_MS).catch((error: unknown) => {
    logger.warn({ err: error }, 'flows: the look for idle lanes could not be scheduled');
  });
  // The export retention: one schedule for every instance (bull), run by a worker (or here
  // without Redis). Always: svc_settings.export_retention may set one while EXPORT_RETENTION keeps.
  await jobs.repeat(EXPORT_CLEANUP_JOB, config.retention.intervalMs).catch((error: unknown) => {
    logger.warn({ err: error }, 'export retention: the cleanup could not be scheduled');
  });

  const shared = openSharedState(config, bus, invalidation, logger);
  const metrics = createMetrics(config, { db, jobs });
  const { rateLimitCounters } = shared;
  const dataCache =
    metrics === undefined || shared.dataCache === undefined ? shared.dataCache : metrics.countLookups(shared.dataCache);
  const traffic = new RequestTraffic();
  const draining = new Draining();
  setAsideWaitsForConnections(db, traffic);
  const appDeps = {
    config,
    db,
    logger,
    // Schema changes made here are also system events of the live-data feed.
    schema: schemaWithEvents(schema, changes),
    auth,
    invalidation,
    permissions,
    storage,
    files,
    jobs,
    dataCache,
    rateLimitCounters,
    // Every command's committed changes go to the live-data feed (commands/change-set.ts).
    changes,
    metrics,
    traffic,
    flows,
    hooks,
    draining,
  };
  // What changed is read once committed: on SQLite beside a long write that holds the writer.
  const live = new LiveReads({ config, db: committedReadDatabase(db), schema, permissions, feed: changes, logger });
  const realtime: Realtime = { changes, live, upgrade: undefined };
  const { retention } = config;
  const pruner =
    retention.activityMs === null && retention.revisionsMs === null
      ? undefined
      : startJournalPruner(db, config.db.client, retention, (error) => {
          logger.warn({ err: error }, 'journal retention: prune failed');
        });
  const extensions = await loadExtensions({
    config,
    db,
    schema: appDeps.schema,
    logger,
    hooks,
    redis: bus?.commands,
    // The caller's (or, with none, the service's own) items service: filters, journal, actions.
    items: (collection, accountability) => new ItemsService(collection, appDeps, { accountability }),
    sendMail: (mail) =>
      auth.mailer.send({
        to: typeof mail.to === 'string' ? mail.to : mail.to.join(', '),
        subject: mail.subject,
        text: mail.text ?? '',
        html: mail.html ?? mail.text ?? '',
      }),
  });
  const app = await createApp(appDeps, extensions);
  // node:http's own 5 minutes would cut a large import that streams in as it is written.
  const server = createServer(
    {
      requestTimeout: config.requestTimeoutMs,
      // node's minute for the headers, never longer than the whole request.
      headersTimeout: config.requestTimeoutMs === 0 ? 60_000 : Math.min(60_000, config.requestTimeoutMs),
      // How often node looks for requests past it: its 30 s default, or sooner for a short timeout.
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, config.requestTimeoutMs / 4 || 30_000)),
    },
    // An extension's middleware sees every request: none is answered before Express then.
    requestDoor(app, appDeps, { fastAnswers: options.fastPath !== false && !extensions.precedesRoutes }),
  );
  server.on('clientError', answerClientError);
  if (config.websockets.enabled) {
    realtime.upgrade = websocketUpgrade({ ...appDeps, live });
    server.on('upgrade', realtime.upgrade);
  }
  try {
    await listen(server, config.port, config.host);
  } catch (error) {
    await shutdown(
      server,
      { db, bus, schema, jobs, auth, invalidation, shared, pruner, realtime, extensions },
      config.shutdownTimeoutMs,
      logger,
      {
        isStartFailure: true,
      },
    );
    throw describeListenFailure(error, config);
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  logger.info({ port }, 'listening');
  extensions.started(server);

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    db,
    schema,
    bootstrap: result,
    app,
    flows,
    hooks,
    close({ drainMs = 0 } = {}) {
      closing ??= drain(draining, drainMs, logger).then(() =>
        shutdown(
          server,
          { db, bus, schema, jobs, auth, invalidation, shared, pruner, realtime, extensions },
          config.shutdownTimeoutMs,
          logger,
        ),
      );
      return closing;
    },
  };
}

/** The live-data feed, its subscriptions and the WebSocket endpoints (when WEBSOCKETS_ENABLED). */
interface Realtime {
  readonly changes: ChangeFeed;
  readonly live: LiveReads;
  upgrade: UpgradeHandler | undefined;
}

interface SharedState {
  readonly dataCache: DataCache | undefined;
  readonly rateLimitCounters: CounterStore;
  close(): void;
}

/**
 * The data cache (cleared after the writes `invalidation` reports) and the general rate
 * limiters' counters, each in memory or in Redis per CACHE_STORE / RATE_LIMITER_STORE, on the
 * bus's command connection (config checked that REDIS is set when a store needs it).
 * While Redis fails the cache is bypassed and the limiters follow RATE_LIMITER_REDIS_FALLBACK.
 */
function openSharedState(
  config: Config,
  bus: RedisBus | undefined,
  invalidation: DataInvalidation,
  logger: Logger,
): SharedState {
  const { cache, rateLimiter } = config;
  const isCacheInRedis = cache.enabled && cache.store === 'redis';
  const isLimiterInRedis = (rateLimiter.enabled || rateLimiter.global.enabled) && rateLimiter.store === 'redis';
  const redis = bus?.commands;
  const base = { ttlMs: cache.ttlMs, namespace: cache.namespace, logger };
  let dataCache: DataCache | undefined;
  if (cache.enabled) {
    dataCache =
      isCacheInRedis && redis !== undefined
        ? createDataCache({ ...base, store: 'redis', redis })
        : createDataCache({ ...base, store: 'memory', maxSize: cache.memoryMaxSize });
  }
  const stopPurging =
    dataCache === undefined
      ? undefined
      : purgeOnChange(invalidation, dataCache, { autoPurge: cache.autoPurge, ignore: cache.autoPurgeIgnoreList });
  let rateLimitCounters: CounterStore = new MemoryCounterStore();
  if (isLimiterInRedis && redis !== undefined) {
    const guard = new RedisGuard('rate limiter', LIMITER_DEGRADATIONS[rateLimiter.redisFallback], logger);
    // For the process's life, as the data cache's watch: the bus closes last.
    guard.watch(redis);
    rateLimitCounters = new FallbackCounterStore(
      new RedisCounterStore(redis, `${cache.namespace}:`),
      guard,
      rateLimiter.redisFallback,
    );
  }
  return {
    dataCache,
    rateLimitCounters,
    close() {
      stopPurging?.();
    },
  };
}

const LIMITER_DEGRADATIONS: Readonly<Record<Config['rateLimiter']['redisFallback'], string>> = {
  memory: 'requests are counted in this instance only',
  open: 'requests are not limited',
  closed: 'requests are refused (503)',
};

/** A start-up failure the person starting the service can fix: its message is the one line to print. */
export class StartupFailure extends Error {
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
    this.name = 'StartupFailure';
  }
}

/** PORT / HOST problems as a StartupFailure; other errors unchanged. */
function describeListenFailure(error: unknown, config: Config): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const { port, host } = config;
  switch (code) {
    case 'EADDRINUSE':
      return new StartupFailure(
        `Port ${port} on ${host} is already in use (another instance of the service, or another program): stop it, or set PORT to a free port.`,
        error,
      );
    case 'EACCES':
      return new StartupFailure(
        `Not allowed to listen on port ${port} on ${host} (ports below 1024 need privileges): set PORT to 1024 or above.`,
        error,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new StartupFailure(
        `HOST ${host} is not an address of this machine: set HOST to one of its addresses, or to 0.0.0.0 for all of them.`,
        error,
      );
    default:
      return error;
  }
}

/**
 * The one line saying why the service could not start and what to change, or undefined for an
 * unexpected error (a bug: its stack is printed).
 */
export function describeStartupFailure(error: unknown, config: Config): string | undefined {
  if (error instanceof StartupFailure) return error.message;
  return describeConnectionFailure(error, config.db) ?? describeRedisFailure(error, config);
}

/** ioredis gives up on an unreachable REDIS with this error (caches and jobs open it at start). */
function describeRedisFailure(error: unknown, config: Config): string | undefined {
  if (config.redis.url === undefined || !(error instanceof Error) || error.message !== 'Connection is closed.')
    return undefined;
  const { sentinel } = config.redis;
  if (sentinel !== undefined)
    return `Cannot reach the Redis primary "${sentinel.name}" through the Sentinels (REDIS_SENTINELS, REDIS_NAME): start them, or check the name in their \`sentinel monitor\` line.`;
  const url = new URL(config.redis.url);
  return `Cannot reach Redis at ${url.hostname}:${url.port === '' ? '6379' : url.port} (REDIS): start it, or leave REDIS unset to keep caches in memory and run jobs in this process.`;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** SHUTDOWN_DRAIN_DELAY: serving on, reported `draining`, while the load balancer takes the instance out. */
async function drain(draining: Draining, delayMs: number, logger: Logger): Promise<void> {
  draining.begin();
  if (delayMs <= 0) return;
  logger.info({ ms: delayMs }, 'draining: /server/health answers 503 until the listener closes');
  await delay(delayMs);
}

async function shutdown(
  server: Server,
  {
    db,
    bus,
    schema,
    jobs,
    auth,
    invalidation,
    shared,
    pruner,
    realtime,
    extensions,
  }: {
    db: Knex;
    bus: RedisBus | undefined;
    schema: SchemaCache;
    jobs: JobQueue;
    auth: AuthServices;
    invalidation: DataInvalidation;
    shared: SharedState;
    pruner: JournalPruner | undefined;
    realtime: Realtime;
    extensions: Extensions;
  },
  timeoutMs: number,
  logger: Logger,
  { isStartFailure = false }: { isStartFailure?: boolean } = {},
): Promise<void> {
  const closed = new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  // Sockets never turn idle: they end with the server.
  realtime.upgrade?.close();
  // Keep-alive connections turn idle as their last request finishes: close them as they do.
  const sweeper = setInterval(() => {
    server.closeIdleConnections();
  }, 50);
  const timer = setTimeout(() => {
    logger.warn('shutdown timeout: closing the remaining connections');
    server.closeAllConnections();
  }, timeoutMs);
  await closed;
  clearInterval(sweeper);
  clearTimeout(timer);
  await extensions.close();
  await pruner?.stop();
  await realtime.live.close();
  await realtime.changes.close();
  await jobs.close(timeoutMs);
  await schema.close();
  await auth.close();
  shared.close();
  await invalidation.close();
  // The connections the Redis users above shared: closed once they all stopped.
  await bus?.close();
  await db.destroy();
  // After a failed start, the one line main() prints is all the news.
  if (isStartFailure) logger.debug('stopped');
  else logger.info('stopped');
}

function printCreatedAdmin(result: BootstrapResult): void {
  const admin = result.createdAdmin;
  if (admin === undefined) return;
  const lines = [
    'First start: the administrator account was created.',
    `  email:    ${admin.email}`,
    `  password: ${admin.isGenerated ? admin.password : '(from ADMIN_PASSWORD)'}`,
    admin.isGenerated ? 'This password is shown once: note it now.' : '',
  ];
  process.stdout.write(`\n${lines.filter((l) => l !== '').join('\n')}\n\n`);
}

async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  const logger = createLogger(config);
  // Listen for signals before starting, so one that arrives during the start is not fatal.
  let requested: string | undefined;
  let onSignal = (signal: string) => {
    requested = signal;
  };
  process.once('SIGTERM', () => {
    onSignal('SIGTERM');
  });
  process.once('SIGINT', () => {
    onSignal('SIGINT');
  });

  let running: RunningServer;
  try {
    running = await startServer(config, { logger });
  } catch (error) {
    const line = describeStartupFailure(error, config);
    if (line === undefined) throw error;
    process.stderr.write(`${line}\n`);
    // The driver's stack helps only someone debugging the service itself.
    if (config.logLevel === 'debug' || config.logLevel === 'trace') {
      const cause = error instanceof StartupFailure ? error.cause : error;
      process.stderr.write(`${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}\n`);
    }
    process.exit(1);
  }
  printCreatedAdmin(running.bootstrap);
  onSignal = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    // Ctrl-C stops at once; SIGTERM (an orchestrator, a rolling restart) drains first.
    running.close({ drainMs: signal === 'SIGTERM' ? config.shutdownDrainDelayMs : 0 }).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  if (requested !== undefined) onSignal(requested);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
