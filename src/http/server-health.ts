import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { createRedis } from '../cache/redis-client.js';
import type { Knex } from 'knex';
import { pendingMigrations } from '../../catalog/migrate.js';
import { closeRedis, redisClientOptions } from '../cache/redis-guard.js';
import type { Config } from '../config/index.js';
import { checkDatabase, overallStatus, poolUsage, type HealthCheck, type HealthStatus } from '../db/health.js';
import type { Storage } from '../files/storage/create-storage.js';

/** A check that has not answered by then is an `error`: a load balancer must not wait on a hung component. */
const CHECK_TIMEOUT_MS = 3000;
/** A storage round trip (write, read, delete) slower than this is a `warn` (Directus: 750 ms). */
const STORAGE_THRESHOLD_MS = 750;
/** A Redis PING slower than this is a `warn`. */
const REDIS_THRESHOLD_MS = 150;

export interface HealthDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly storage?: Storage;
  /** The mail transport's state (`email:connection`), once verified or used. */
  readonly auth?: { readonly mailer: { health(): HealthCheck | undefined } };
}

export interface HealthReport {
  readonly status: HealthStatus;
  readonly checks: Record<string, HealthCheck[]>;
}

/**
 * Every component the service needs, checked now and in parallel (each within
 * CHECK_TIMEOUT_MS), under Directus's names: `<client>:responseTime` (a round trip),
 * `<client>:connectionsAvailable` / `:connectionsUsed` (the pool), `<client>:migrations`
 * (`warn` when the database is behind this version's migrations), `redis:responseTime` (when
 * REDIS is set), `storage:<location>:responseTime` (a file written, read back and deleted),
 * `email:connection` (once the transport was verified or used). The status is the worst. A
 * pool whose every connection is busy is `warn`, not `error`, when the database answers
 * beside it (db/health.ts): a busy instance stays behind its load balancer.
 */
export async function checkHealth({ config, db, storage, auth }: HealthDeps): Promise<HealthReport> {
  const client = config.db.client;
  const database = checkDatabase(db, config.db.healthcheckThresholdMs, checkMigrations);
  const named: [string, Promise<HealthCheck>][] = [
    [`${client}:responseTime`, database.then((d) => d.responseTime)],
    [`${client}:migrations`, database.then((d) => d.migrations)],
  ];
  if (config.redis.url !== undefined) named.push(['redis:responseTime', checkRedis(config)]);
  for (const location of storage?.locations ?? []) {
    named.push([`storage:${location}:responseTime`, checkStorage(storage as Storage, location)]);
  }
  const results = await Promise.all(named.map(([name, check]) => withTimeout(name, check)));
  const checks: Record<string, HealthCheck[]> = {};
  for (const [index, [name]] of named.entries()) checks[name] = [results[index] as HealthCheck];
  const pool = poolUsage(db);
  if (pool !== undefined) {
    checks[`${client}:connectionsAvailable`] = [
      { componentType: 'datastore', status: 'ok', observedValue: pool.max - pool.used },
    ];
    checks[`${client}:connectionsUsed`] = [{ componentType: 'datastore', status: 'ok', observedValue: pool.used }];
  }
  const mail = auth?.mailer.health();
  if (mail !== undefined) checks['email:connection'] = [mail];
  return { status: overallStatus(Object.values(checks).flat()), checks };
}

async function checkMigrations(db: Knex): Promise<HealthCheck> {
  try {
    const pending = await pendingMigrations(db);
    return pending.length === 0
      ? { componentType: 'datastore', status: 'ok', observedValue: 0 }
      : {
          componentType: 'datastore',
          status: 'warn',
          observedValue: pending.length,
          output: `pending migrations: ${pending.join(', ')}`,
        };
  } catch (error) {
    return { componentType: 'datastore', status: 'error', output: (error as Error).message };
  }
}

/**
 * A PING on a connection of its own, closed after: the state of Redis, not of one client's
 * retries. Not the RedisBus's command connection: there a PING would wait behind the other
 * users' commands (a large XADD) and, while that client reconnects, in its queue, and answer how
 * that client is doing rather than whether Redis takes a new connection now.
 */
async function checkRedis(config: Config): Promise<HealthCheck> {
  const redis = createRedis(config.redis, {
    ...redisClientOptions(config.redis.commandTimeoutMs),
    lazyConnect: true,
    connectTimeout: CHECK_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  const started = performance.now();
  try {
    await redis.connect();
    await redis.ping();
    return timed('cache', started, REDIS_THRESHOLD_MS);
  } catch (error) {
    return { componentType: 'cache', status: 'error', output: (error as Error).message };
  } finally {
    await closeRedis(redis).catch(() => {
      redis.disconnect();
    });
  }
}

/** Writes a small file, reads it back and deletes it: the location is writable, not merely there. */
async function checkStorage(storage: Storage, location: string): Promise<HealthCheck> {
  const driver = storage.location(location);
  const path = `health-${randomUUID()}`;
  const content = `health check ${path}`;
  const started = performance.now();
  try {
    await driver.write(path, Readable.from([Buffer.from(content)]));
    let read = '';
    for await (const chunk of await driver.read(path)) read += String(chunk);
    if (read !== content) throw new Error('the file read back differs from the one written');
    return timed('objectstore', started, STORAGE_THRESHOLD_MS);
  } catch (error) {
    return { componentType: 'objectstore', status: 'error', output: (error as Error).message };
  } finally {
    await driver.delete(path).catch(() => undefined);
  }
}

function timed(componentType: HealthCheck['componentType'], started: number, threshold: number): HealthCheck {
  const elapsed = Math.round(performance.now() - started);
  return {
    componentType,
    observedValue: elapsed,
    observedUnit: 'ms',
    threshold,
    status: elapsed > threshold ? 'warn' : 'ok',
  };
}

function withTimeout(name: string, check: Promise<HealthCheck>): Promise<HealthCheck> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<HealthCheck>((resolve) => {
    timer = setTimeout(() => {
      resolve({
        componentType: name.startsWith('storage:') ? 'objectstore' : name.startsWith('redis:') ? 'cache' : 'datastore',
        status: 'error',
        output: `no answer within ${CHECK_TIMEOUT_MS}ms`,
      });
    }, CHECK_TIMEOUT_MS);
  });
  return Promise.race([check, timeout]).finally(() => {
    clearTimeout(timer);
  });
}
