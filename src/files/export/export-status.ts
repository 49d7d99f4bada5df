import type { Knex } from 'knex';
import type { Accountability } from '../../access/accountability.js';
import type { Item, QueryObject } from '../../commands/types.js';
import { toDatabaseTimestamp } from '../../commands/to-database-value.js';
import { dialectOf } from '../../db/index.js';
import { ForbiddenError } from '../../errors.js';

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
  /**
   * What was asked for, kept beside the progress so that a failed export can be queued again
   * (`POST /utils/export/jobs/:id/retry`): bull drops a failed job's data after a while, the
   * in-process runner at once.
   */
  readonly request?: ExportRequest;
}

/** An export's request as its status row keeps it (the collection and format are beside it). */
export interface ExportRequest {
  /** The svc_files id the result gets: a retry finds a result already stored by its key. */
  readonly fileId: string;
  /** The query object as given; `limit` missing = every row. */
  readonly query: QueryObject;
  /** The partial file object: every key overrides the defaults except `type`. */
  readonly file: Item;
  /** `export-<collection>-<YYYYMMDD>-<H><m><s>` in server time, when it was asked for. */
  readonly title: string;
}

/** An export as its status row records it. */
interface RecordedExport extends ExportRequest {
  readonly id: string;
  readonly collection: string;
  readonly format: string;
  readonly accountability: Accountability;
}

/** Inserts the status row of a new export (`queued`). */
export async function recordExportQueued(db: Knex, job: RecordedExport): Promise<void> {
  const status: ExportStatus = {
    status: 'queued',
    format: job.format,
    rows_done: 0,
    rows_total: null,
    attempt: 0,
    file: null,
    error: null,
    request: requestOf(job),
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

/** Replaces the status of an export (its request kept). */
export async function updateExportStatus(
  db: Knex,
  job: Omit<RecordedExport, 'collection' | 'format' | 'accountability'>,
  status: Omit<ExportStatus, 'request'>,
): Promise<void> {
  await db('svc_activity')
    .where({ action: EXPORT_ACTION, item: job.id })
    .update({ comment: JSON.stringify({ ...status, request: requestOf(job) }) });
}

function requestOf(job: ExportRequest): ExportRequest {
  return { fileId: job.fileId, query: job.query, file: job.file, title: job.title };
}

/** The response header of `POST /utils/export/:collection` naming the job (beside `Location`). */
export const EXPORT_JOB_HEADER = 'X-Export-Job';

/** `GET /utils/export/jobs/:id`: an export as a client follows it. */
export interface ExportJobResource {
  readonly id: string;
  readonly collection: string;
  readonly format: string;
  /** A retry in progress (`retrying` in the activity row) is `running`, its `attempt` more than 1. */
  readonly status: 'queued' | 'running' | 'done' | 'failed';
  readonly rows_done: number;
  readonly rows_total: number | null;
  readonly attempt: number;
  /** The svc_files id of the result once `done` (content at `/assets/:file`). */
  readonly file: string | null;
  readonly error: string | null;
}

/**
 * An export's job from its status row, for the user who asked for it or an administrator;
 * anyone else, or a job that does not exist (or was deleted by EXPORT_RETENTION), FORBIDDEN
 * alike, as a missing item is (docs/errors.md).
 */
export async function readExportJob(db: Knex, accountability: Accountability, id: string): Promise<ExportJobResource> {
  const row =
    id.length === 0 || id.length > 255
      ? undefined
      : await db('svc_activity')
          .where({ action: EXPORT_ACTION, item: id })
          .first<{ user: string | null; collection: string; item: string; comment: unknown } | undefined>(
            'user',
            'collection',
            'item',
            'comment',
          );
  // MariaDB's collation matches ids case-insensitively: the job is the one named exactly.
  if (row === undefined || row.item !== id) throw new ForbiddenError();
  const owner = row.user === null ? null : row.user.toLowerCase();
  if (!accountability.admin && (owner === null || owner !== accountability.user?.toLowerCase()))
    throw new ForbiddenError();
  const status = parseStatus(row.comment);
  return {
    id,
    collection: row.collection,
    format: status.format,
    status: status.status === 'retrying' ? 'running' : status.status,
    rows_done: status.rows_done,
    rows_total: status.rows_total,
    attempt: status.attempt,
    file: status.file,
    error: status.error,
  };
}

function parseStatus(comment: unknown): ExportStatus {
  const parsed: unknown = typeof comment === 'string' ? JSON.parse(comment) : comment;
  return parsed as ExportStatus;
}
