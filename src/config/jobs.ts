import type { EnvReader } from './env-reader.js';

/** Background jobs (exports): bull settings with Redis, the in-process runner without. */
export interface JobsConfig {
  /** Tries of a failing job before it is given up. */
  readonly attempts: number;
  /** A worker holds a job's lock this long between renewals; a dead worker's job is retried after it. */
  readonly lockDurationMs: number;
  /** How often workers look for jobs whose worker died. */
  readonly stalledIntervalMs: number;
  /** Jobs one worker process runs at once. */
  readonly concurrency: number;
}

/**
 * Issue 18, retention: svc_activity rows (ACTIVITY_RETENTION) and svc_revisions rows
 * (REVISIONS_RETENTION) older than these durations are deleted by a background pruner every
 * RETENTION_INTERVAL, RETENTION_BATCH_SIZE rows per statement; null (unset) keeps them forever.
 */
export interface RetentionConfig {
  readonly activityMs: number | null;
  readonly revisionsMs: number | null;
  /**
   * EXPORT_RETENTION: exports older than this are deleted with their file (svc_files row and
   * stored content) by the export cleanup job every RETENTION_INTERVAL; null keeps them.
   */
  readonly exportMs: number | null;
  readonly intervalMs: number;
  readonly batchSize: number;
}

/** JOBS_*. */
export function readJobsConfig(env: EnvReader): JobsConfig {
  return {
    attempts: env.int('JOBS_ATTEMPTS', 3, { min: 1 }),
    lockDurationMs: env.duration('JOBS_LOCK_DURATION', '30s'),
    stalledIntervalMs: env.duration('JOBS_STALLED_INTERVAL', '30s'),
    concurrency: env.int('JOBS_CONCURRENCY', 1, { min: 1 }),
  };
}

/** ACTIVITY_RETENTION, REVISIONS_RETENTION, RETENTION_*. */
export function readRetentionConfig(env: EnvReader): RetentionConfig {
  return {
    activityMs: env.raw('ACTIVITY_RETENTION') === undefined ? null : env.duration('ACTIVITY_RETENTION', 0),
    revisionsMs: env.raw('REVISIONS_RETENTION') === undefined ? null : env.duration('REVISIONS_RETENTION', 0),
    exportMs: isKeepForever(env.raw('EXPORT_RETENTION')) ? null : env.duration('EXPORT_RETENTION', '7d'),
    intervalMs: env.duration('RETENTION_INTERVAL', '1h'),
    batchSize: env.int('RETENTION_BATCH_SIZE', 1000, { min: 1 }),
  };
}

/** `0` or `false` (case aside): no retention limit. */
function isKeepForever(value: string | undefined): boolean {
  return value !== undefined && ['0', 'false'].includes(value.trim().toLowerCase());
}
