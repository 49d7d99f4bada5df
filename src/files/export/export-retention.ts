import { ownAccountability } from '../../access/accountability.js';
import { commandContext } from '../../commands/command-context.js';
import { parseRetention } from '../../config/durations.js';
import { SettingsModel } from '../../db/models/system-models.js';
import { toDatabaseTimestamp } from '../../db/to-database-timestamp.js';
import { dialectOf } from '../../db/index.js';
import { ForbiddenError } from '../../errors.js';
import type { PrimaryKey } from '../../commands/types.js';
import type { JobHandler } from '../../jobs/job.js';
import type { ExportDeps } from './run-export.js';
import { EXPORT_ACTION } from './export-status.js';
import { FILES_COLLECTION } from '../file-library.js';

/** The job name of the export cleanup (svc_settings.export_retention, else EXPORT_RETENTION), a repeating job. */
export const EXPORT_CLEANUP_JOB = 'export-cleanup';

/** Status rows looked at per statement: the cleanup runs in short steps. */
const BATCH = 100;

/** Who deletes expired exports: the service itself (journaled without a user). */
const CLEANUP_ACCOUNTABILITY = ownAccountability('export cleanup');

/**
 * The retention in force, read at each run so that the administrator's setting applies from the
 * next one on every instance and worker: svc_settings.export_retention when set, else
 * EXPORT_RETENTION. Ms, or null: exports are kept. Empty counts as unset, and so does a value the
 * write side would refuse (written into the table by hand).
 */
async function retentionInForce(deps: ExportDeps): Promise<number | null> {
  const row = await SettingsModel.query(deps.db).select('export_retention').first();
  const retention = parseRetention(row?.exportRetention ?? '');
  return retention === undefined ? deps.config.retention.exportMs : retention.ms;
}

/**
 * The export retention: deletes the exports asked for more than `retentionMs` ago, their file
 * with them (the svc_files row through the write side, so it is journaled and the cache told,
 * then the stored content and its variants), then their status row, which
 * `GET /utils/export/jobs/:id` reads (so the job is gone too). Safe to run on several
 * instances at once: a file already deleted is skipped. Answers how many exports went.
 */
async function pruneExports(deps: ExportDeps, retentionMs: number, now: Date): Promise<number> {
  // A retention reaching back before 1970 (`1000y`): no export is that old, and no database
  // needs to compare a date it may not hold.
  if (retentionMs >= now.getTime()) return 0;
  const before = toDatabaseTimestamp(new Date(now.getTime() - retentionMs), dialectOf(deps.db));
  let pruned = 0;
  for (;;) {
    const rows = await deps
      .db('svc_activity')
      .where({ action: EXPORT_ACTION })
      .where('timestamp', '<', before)
      .orderBy('id')
      .limit(BATCH)
      .select<{ id: number | string; comment: unknown }[]>('id', 'comment');
    if (rows.length === 0) return pruned;
    const files = rows.map((row) => fileOf(row.comment)).filter((file): file is string => file !== null);
    if (files.length > 0) await deleteFiles(deps, files);
    await deps
      .db('svc_activity')
      .whereIn(
        'id',
        rows.map((row) => row.id),
      )
      .delete();
    pruned += rows.length;
  }
}

/** The export cleanup job's handler (worker and in-process runner alike); a no-op while exports are kept. */
export function exportCleanupHandler(deps: ExportDeps): JobHandler {
  return async () => {
    const retentionMs = await retentionInForce(deps);
    if (retentionMs !== null) await pruneExports(deps, retentionMs, new Date());
  };
}

async function deleteFiles(deps: ExportDeps, keys: readonly string[]): Promise<void> {
  // Only those still there: another instance's cleanup, or a user, may have deleted some.
  const existing = await deps
    .db(FILES_COLLECTION)
    .whereIn('id', [...keys])
    .pluck<string[]>('id');
  if (existing.length === 0) return;
  const overview = await deps.schema.getOverview();
  const ctx = await commandContext(deps, CLEANUP_ACCOUNTABILITY, overview);
  try {
    await deps.files.delete(ctx, { keys: existing });
  } catch (error) {
    // Deleted meanwhile by another instance's cleanup (a missing item is FORBIDDEN): one by one then.
    if (!(error instanceof ForbiddenError)) throw error;
    for (const key of existing) await deps.files.delete(ctx, { keys: [key] }).catch(skipForbidden);
  }
}

/** The `file` of an export's status (svc_activity.comment, JSON), or null. */
function fileOf(comment: unknown): string | null {
  if (typeof comment !== 'string') return null;
  try {
    const status = JSON.parse(comment) as { file?: unknown };
    return typeof status.file === 'string' ? status.file : null;
  } catch {
    return null;
  }
}

function skipForbidden(error: unknown): PrimaryKey[] {
  if (error instanceof ForbiddenError) return [];
  throw error;
}
