import type { Knex } from 'knex';
import type { Accountability } from '../../access/accountability.js';
import { toDatabaseTimestamp } from '../../commands/to-database-value.js';
import { dialectOf } from '../../db/index.js';

/** svc_activity `action` of an export's status row. */
export const EXPORT_ACTION = 'export';

/**
 * The progress of an export, as the user who asked sees it: one svc_activity row per export
 * (`action` `export`, `user` the caller, `collection` the exported collection, `item` the
 * job id), whose `comment` holds this object as JSON. Readable like any activity:
 * `GET /activity?filter[action][_eq]=export&filter[item][_eq]=<job id>`.
 */
export interface ExportStatus {
  readonly status: 'queued' | 'running' | 'retrying' | 'done' | 'failed';
  readonly format: string;
  readonly rows_done: number;
  /** null until counted. */
  readonly rows_total: number | null;
  readonly attempt: number;
  /** The svc_files id of the result, once stored. */
  readonly file: string | null;
  readonly error: string | null;
}

/** Inserts the status row of a new export (`queued`). */
export async function recordExportQueued(
  db: Knex,
  job: {
    readonly id: string;
    readonly collection: string;
    readonly format: string;
    readonly accountability: Accountability;
  },
): Promise<void> {
  const status: ExportStatus = {
    status: 'queued',
    format: job.format,
    rows_done: 0,
    rows_total: null,
    attempt: 0,
    file: null,
    error: null,
  };
  await db('svc_activity').insert({
    action: EXPORT_ACTION,
    user: job.accountability.user,
    timestamp: toDatabaseTimestamp(new Date(), dialectOf(db)),
    ip: job.accountability.ip,
    user_agent: job.accountability.userAgent,
    origin: job.accountability.origin,
    collection: job.collection,
    item: job.id,
    comment: JSON.stringify(status),
  });
}

/** Replaces the status of an export. */
export async function updateExportStatus(db: Knex, jobId: string, status: ExportStatus): Promise<void> {
  await db('svc_activity')
    .where({ action: EXPORT_ACTION, item: jobId })
    .update({ comment: JSON.stringify(status) });
}
