import { parseRetention, RETENTION_SYNTAX } from './durations.js';
import { ConfigError, type EnvReader } from './env-reader.js';

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
   * stored content) by the export cleanup job every RETENTION_INTERVAL; null keeps them. The
   * default of svc_settings.export_retention, which overrides it.
   */
  readonly exportMs: number | null;
  /**
   * EXPORT_RETENTION as written (`7d` when unset), null when it keeps exports: GET /server/info
   * shows administrators the default the setting overrides in the words they would write it.
   */
  readonly exportText: string | null;
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
    ...readExportRetention(env),
    intervalMs: env.duration('RETENTION_INTERVAL', '1h'),
    batchSize: env.int('RETENTION_BATCH_SIZE', 1000, { min: 1 }),
  };
}

/** EXPORT_RETENTION: a retention (config/durations.ts), as svc_settings.export_retention takes it. */
function readExportRetention(env: EnvReader): Pick<RetentionConfig, 'exportMs' | 'exportText'> {
  const text = (env.raw('EXPORT_RETENTION') ?? '7d').trim();
  const retention = parseRetention(text);
  if (retention === undefined) throw new ConfigError('EXPORT_RETENTION', `must be ${RETENTION_SYNTAX}, got "${text}"`);
  return { exportMs: retention.ms, exportText: retention.ms === null ? null : text };
}
