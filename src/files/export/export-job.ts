import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { PermissionStore } from '../../access/permission-store.js';
import { requireCollection } from '../../../catalog/overview/lookup.js';
import type { SchemaOverview } from '../../../catalog/overview/types.js';
import type { Accountability } from '../../access/accountability.js';
import type { Item, QueryObject } from '../../commands/types.js';
import type { Config } from '../../config/index.js';
import { canReadCollection } from '../../access/read-access.js';
import { ForbiddenError, InvalidPayloadError, ServiceUnavailableError } from '../../errors.js';
import type { JobQueue } from '../../jobs/job.js';
import { parseQuery, queryLimits, readItems, readerOf, type ExportFormat } from '../../query/index.js';
import { validatePayload } from '../../commands/validate-payload.js';
import { EXPORT_QUERY_FORMATS } from './export-formats.js';
import { recordExportQueued, updateExportStatus, type ExportRequest } from './export-status.js';
import { FILES_COLLECTION } from '../file-library.js';

/** The job name of exports. */
export const EXPORT_JOB = 'export';

/** What a worker needs to run an export for its caller; JSON, as it travels through Redis. */
export interface ExportJob extends ExportRequest {
  readonly id: string;
  readonly collection: string;
  readonly format: ExportFormat;
  readonly accountability: Accountability;
}

export interface PrepareExportDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly permissions: PermissionStore;
}

/**
 * POST /utils/export/:collection `{format, query, file?}`,
 * checked before anything is queued: read permission on the collection (FORBIDDEN,
 * before the body is looked at), the body's shape (INVALID_PAYLOAD), the query
 * against the schema and the caller's read access (INVALID_QUERY, FORBIDDEN: the query is
 * run with limit 0), the file object's fields.
 */
export async function prepareExport(
  deps: PrepareExportDeps,
  accountability: Accountability,
  overview: SchemaOverview,
  collectionName: string,
  body: unknown,
): Promise<ExportJob> {
  const collection = requireCollection(overview, collectionName);
  // Read permission first: a collection the caller may not read answers like a missing one,
  // whatever the body (spec, Errors, rule 1).
  const reader = await readerOf(deps, overview, accountability);
  if (!canReadCollection(reader.access, collection.collection)) throw new ForbiddenError();
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new InvalidPayloadError('"value" must be of type object');
  const { format, query, file } = body as Record<string, unknown>;
  if (format === undefined || format === null) throw new InvalidPayloadError('"format" is required');
  if (typeof format !== 'string' || !(EXPORT_QUERY_FORMATS as readonly string[]).includes(format)) {
    throw new InvalidPayloadError(`"format" must be one of [${EXPORT_QUERY_FORMATS.join(', ')}]`);
  }
  if (query === undefined || query === null) throw new InvalidPayloadError('"query" is required');
  if (typeof query !== 'object' || Array.isArray(query))
    throw new InvalidPayloadError('"query" must be of type object');
  const fileObject = file === undefined || file === null ? {} : file;
  if (typeof fileObject !== 'object' || Array.isArray(fileObject))
    throw new InvalidPayloadError('"file" must be of type object');
  const files = requireCollection(overview, FILES_COLLECTION);
  const unknown = Object.keys(fileObject).find((name) => !Object.hasOwn(files.fields, name));
  if (unknown !== undefined) throw new InvalidPayloadError(`"file.${unknown}" is not allowed`);
  // The values too, as the file's row will be checked when the job writes it: a job bound to
  // fail would answer 204 and fail in the background, after its retries.
  const { user, role } = accountability;
  validatePayload(overview, files, fileObject as Item, {
    action: 'update',
    variables: { now: new Date(), user, role },
  });

  const { export: _export, ...parsed } = parseQuery(query as QueryObject);
  const ctx = { db: deps.db, overview, limits: queryLimits(deps.config) };
  await readItems(ctx, collection.collection, { ...parsed, limit: 0, offset: 0 }, reader);

  const title = `export-${collection.collection}-${titleStamp(new Date())}`;
  return {
    id: randomUUID(),
    fileId: randomUUID(),
    collection: collection.collection,
    format: format as ExportFormat,
    query: query as QueryObject,
    file: fileObject as Item,
    title,
    accountability,
  };
}

/** Records the export's status row, then queues it; a job that cannot be queued is marked failed. */
export async function queueExport(db: Knex, jobs: JobQueue, job: ExportJob): Promise<void> {
  await recordExportQueued(db, job);
  await enqueueExport(db, jobs, job, job.id);
}

/**
 * Queues an export whose status row says `queued` under the queue's id `queueId` (the job id,
 * or for a retry a new one: bull keeps a failed job under its id for a while, and an id
 * already there is not queued again); one that cannot be queued is marked failed.
 */
export async function enqueueExport(db: Knex, jobs: JobQueue, job: ExportJob, queueId: string): Promise<void> {
  try {
    await jobs.add(EXPORT_JOB, queueId, job);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    await updateExportStatus(db, job, {
      status: 'failed',
      format: job.format,
      rows_done: 0,
      rows_total: null,
      attempt: 0,
      file: null,
      error: reason,
    });
    throw new ServiceUnavailableError('jobs', 'The export could not be queued');
  }
}

/** `YYYYMMDD-<H><m><s>`, server time, hours, minutes and seconds not padded (reference). */
function titleStamp(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}-${date.getHours()}${date.getMinutes()}${date.getSeconds()}`;
}
