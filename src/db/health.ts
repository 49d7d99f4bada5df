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

/** Round trip to the database: `warn` above the threshold, `error` when it fails. */
export async function checkDatabase(db: Knex, thresholdMs: number): Promise<HealthCheck> {
  const started = performance.now();
  try {
    await db.raw('SELECT 1');
  } catch (error) {
    return { componentType: 'datastore', status: 'error', output: (error as Error).message };
  }
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
