import { setTimeout as delay } from 'node:timers/promises';
import type { Knex } from 'knex';

export type HealthStatus = 'ok' | 'warn' | 'error';

export interface HealthCheck {
  readonly componentType: 'datastore' | 'cache' | 'objectstore' | 'email';
  readonly observedValue?: number;
  readonly observedUnit?: 'ms';
  readonly threshold?: number;
  readonly status: HealthStatus;
  readonly output?: string;
}

/** The database's two checks: `<client>:responseTime` and `<client>:migrations`. */
export interface DatabaseHealth {
  readonly responseTime: HealthCheck;
  readonly migrations: HealthCheck;
}

/** The migrations check of each database as last read on a pool connection, for when the pool is busy. */
const lastMigrations = new WeakMap<Knex, HealthCheck>();

/**
 * The database's round trip and migrations, telling a busy service from a dead database
 * (issue 42: under load both instances' checks waited behind the request pool, timed out and
 * took the whole backend out of a load balancer). The checks take a pool connection as requests
 * do, waiting at most `thresholdMs` for it (a longer wait is a `warn` anyway): there the round
 * trip is `warn` above the threshold, and the migrations are read on the same connection. When
 * every pool connection is in use (or none came in time), the round trip runs on a connection
 * of its own, opened and closed here, as knex's own query cancelling does: the database
 * answering there is `warn` (busy: still 200), failing there is `error`; the migrations are
 * then the last ones read. A database that refuses or fails is `error` either way.
 */
export async function checkDatabase(
  db: Knex,
  thresholdMs: number,
  readMigrations: (db: Knex) => Promise<HealthCheck>,
): Promise<DatabaseHealth> {
  const started = performance.now();
  let trx: Knex.Transaction | undefined;
  try {
    if (!poolSaturated(db)) trx = await within(db.transaction(), thresholdMs, (late) => late.commit());
  } catch (error) {
    return failed(error);
  }
  if (trx === undefined) return checkBesidePool(db, thresholdMs);
  try {
    await trx.raw('SELECT 1');
    const responseTime = timedCheck(started, thresholdMs);
    const migrations = await readMigrations(trx);
    lastMigrations.set(db, migrations);
    return { responseTime, migrations };
  } catch (error) {
    return failed(error);
  } finally {
    await trx.commit().catch(() => undefined);
  }
}

/** The round trip on a connection outside the pool, whose every connection is busy. */
async function checkBesidePool(db: Knex, thresholdMs: number): Promise<DatabaseHealth> {
  const client = db.client as RawConnectionClient;
  const started = performance.now();
  let connection: unknown;
  try {
    connection = await client.acquireRawConnection();
    await client._query(connection, { sql: 'SELECT 1', bindings: [] });
  } catch (error) {
    return failed(error);
  } finally {
    if (connection !== undefined) await client.destroyRawConnection(connection).catch(() => undefined);
  }
  const pool = poolUsage(db);
  const busy =
    pool === undefined
      ? 'no pool connection within the threshold'
      : `every pool connection in use (${pool.used} of ${pool.max}, ${pool.pending} waiting)`;
  const responseTime: HealthCheck = {
    ...timedCheck(started, thresholdMs),
    status: 'warn',
    output: `busy: ${busy}; the database answered on a connection of its own`,
  };
  const known = lastMigrations.get(db);
  const migrations: HealthCheck =
    known === undefined
      ? { componentType: 'datastore', status: 'warn', output: `not read: ${busy}` }
      : { ...known, output: [known.output, `as last read (${busy})`].filter(Boolean).join('; ') };
  return { responseTime, migrations };
}

/** Every connection the pool may open is open and in use: a query now would queue. */
function poolSaturated(db: Knex): boolean {
  const pool = poolUsage(db);
  return pool !== undefined && pool.free === 0 && pool.used >= pool.max;
}

/**
 * What `promise` gives within `ms`, or undefined; a value that comes later is handed to
 * `release` (a pool connection given up on must go back to the pool).
 */
async function within<T>(promise: Promise<T>, ms: number, release: (late: T) => unknown): Promise<T | undefined> {
  const controller = new AbortController();
  let late = false;
  const expired = delay(ms, undefined, { signal: controller.signal }).then(
    () => {
      late = true;
      return undefined;
    },
    () => undefined,
  );
  const settled = promise.then((value) => {
    if (late) void Promise.resolve(release(value)).catch(() => undefined);
    return value;
  });
  try {
    return await Promise.race([settled, expired]);
  } finally {
    controller.abort();
  }
}

function failed(error: unknown): DatabaseHealth {
  const check: HealthCheck = { componentType: 'datastore', status: 'error', output: (error as Error).message };
  return { responseTime: check, migrations: check };
}

function timedCheck(started: number, thresholdMs: number): HealthCheck {
  const elapsed = Math.round(performance.now() - started);
  return {
    componentType: 'datastore',
    observedValue: elapsed,
    observedUnit: 'ms',
    threshold: thresholdMs,
    status: elapsed > thresholdMs ? 'warn' : 'ok',
  };
}

/** The worst status of all checks. */
export function overallStatus(checks: readonly HealthCheck[]): HealthStatus {
  if (checks.some((c) => c.status === 'error')) return 'error';
  if (checks.some((c) => c.status === 'warn')) return 'warn';
  return 'ok';
}

/**
 * The pool's connections in use and free (`:connectionsUsed` / `:connectionsAvailable`), as
 * Directus reports them; undefined when the dialect's pool keeps no counts.
 */
export function poolUsage(db: Knex): { used: number; free: number; pending: number; max: number } | undefined {
  const pool = (db.client as { pool?: TarnPool }).pool;
  if (pool === undefined || typeof pool.numUsed !== 'function') return undefined;
  return {
    used: pool.numUsed(),
    free: pool.numFree(),
    pending: pool.numPendingAcquires(),
    max: pool.max,
  };
}

/** The part of tarn's Pool (knex's pool) read here. */
interface TarnPool {
  readonly max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/** The part of knex's client used for a connection outside the pool (knex/types declares the first). */
interface RawConnectionClient {
  acquireRawConnection(): Promise<unknown>;
  destroyRawConnection(connection: unknown): Promise<void>;
  _query(connection: unknown, query: { sql: string; bindings: readonly unknown[] }): Promise<unknown>;
}
