import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { Accountability } from '../../access/accountability.js';
import type { PermissionStore } from '../../access/permission-store.js';
import { requireCollection } from '../../../catalog/overview/lookup.js';
import type { SchemaOverview } from '../../../catalog/overview/types.js';
import type { DataInvalidation } from '../../cache/data-invalidation.js';
import type { SchemaCache } from '../../cache/schema-cache.js';
import { commandContext } from '../../commands/command-context.js';
import type { Config } from '../../config/index.js';
import { JobStopped, type JobHandler, type JobRun } from '../../jobs/job.js';
import {
  isAggregateQuery,
  parseQuery,
  queryLimits,
  type Item,
  type Meta,
  type Query,
  type ReadContext,
} from '../../query/index.js';
import { FILES_COLLECTION, type FileLibrary } from '../file-library.js';
import type { ExportJob } from './export-job.js';
import { CsvColumnsGrew, EXPORT_TYPES, formatItems, listedItems } from './export-formats.js';
import { updateExportStatus, type ExportStatus } from './export-status.js';

export interface ExportDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly schema: SchemaCache;
  readonly files: FileLibrary;
  /** The permission rules per role: the export reads, and stores its file, as its caller. */
  readonly permissions: PermissionStore;
  /** Told which collections the export's write changed. */
  readonly invalidation: DataInvalidation;
  /** The items service of the job's collection (src/items, above this floor: the composition root makes it). */
  readonly items: (collection: string, options: ExportReadOptions) => ExportReads;
}

/** Who the export reads as, on which overview, with which limits (none: QUERY_LIMIT_MAX does not cut an export). */
interface ExportReadOptions {
  readonly accountability: Accountability;
  readonly schema: SchemaOverview;
  readonly limits: ReadContext['limits'];
}

/** The items service's reads an export makes (its read events run as for any other read). */
interface ExportReads {
  readMeta(query: Query): Promise<Meta>;
  readByQuery(query: Query): Promise<Item[]>;
  stream(query: Query, batchSize: number): Promise<AsyncIterable<Item>>;
}

/** The export job's handler, for the worker and for the in-process runner alike. */
export function exportJobHandler(deps: ExportDeps): JobHandler {
  return (data, run) => runExport(deps, data as ExportJob, run);
}

/**
 * Runs an export with the caller's permissions: the query's items streamed through the
 * items service (its read events; the read side's cursor or key-ordered batches of
 * EXPORT_BATCH_SIZE: flat memory), formatted as they come straight into storage under the
 * file id the job reserved; the svc_files row is written only once the content is complete.
 * csv goes straight through first (no file under TEMP_PATH, so an export to S3 holds no more
 * than a part locally); a column that shows up after the header was written aborts that write
 * and the export runs again with csv's first pass.
 * A worker that dies mid-export leaves no row (nothing in the library), only the storage's
 * hidden temporary file and csv's first pass under TEMP_PATH, both overwritten or cleared by
 * the retry; a retry that finds the row already written only reports it. Progress (rows done
 * of total, per batch) goes to the export's svc_activity status row: `running` on the first
 * attempt, `retrying` with the attempt number on the later ones.
 */
async function runExport(deps: ExportDeps, job: ExportJob, run: JobRun): Promise<void> {
  const { extension, contentType } = EXPORT_TYPES[job.format];
  const report = (status: Omit<ExportStatus, 'format' | 'attempt'>) =>
    updateExportStatus(deps.db, job, { ...status, format: job.format, attempt: run.attempt });
  if ((await deps.db(FILES_COLLECTION).where('id', job.fileId).first('id')) !== undefined) {
    await report({ status: 'done', rows_done: 0, rows_total: null, file: job.fileId, error: null });
    return;
  }
  // A retry (after a failure or a dead worker) says so, and its attempt, until it ends.
  const progress = run.attempt > 1 ? 'retrying' : 'running';
  if (run.attempt > 1) await report({ status: progress, rows_done: 0, rows_total: null, file: null, error: null });
  // One folder per job (csv's first pass): a retry clears what a dead worker left in it.
  const workDir = join(deps.config.tempPath, `export-${job.id}`);
  await rm(workDir, { recursive: true, force: true });
  let done = 0;
  let total: number | null = null;
  let failure: { error: unknown } | undefined;
  try {
    const overview = await deps.schema.getOverview();
    const items = deps.items(job.collection, {
      accountability: job.accountability,
      schema: overview,
      limits: { ...queryLimits(deps.config), queryLimitMax: Infinity },
    });
    const query = exportQuery(job.query, requireCollection(overview, job.collection).primary);
    total = await countRows(items, query);
    await report({ status: progress, rows_done: 0, rows_total: total, file: null, error: null });

    const batchSize = deps.config.exportBatchSize;
    const counted = async function* (items: AsyncIterable<Item>): AsyncGenerator<Item> {
      for await (const item of items) {
        yield item;
        done += 1;
        if (done % batchSize === 0) {
          await report({ status: progress, rows_done: done, rows_total: total, file: null, error: null });
          // A stopping worker ends here, between batches: the job runs again elsewhere.
          run.signal?.throwIfAborted();
        }
      }
    };
    await mkdir(workDir, { recursive: true });

    // Formatted straight into storage: the write is all or nothing, and the row comes after it.
    const writer = await commandContext(deps, job.accountability, overview);
    const { type: _type, ...overrides } = job.file;
    const defaults = { title: job.title, filename_download: `${job.title}.${extension}`, folder: null };
    const store = async (csvDirect: boolean) => {
      const read = isAggregateQuery(query)
        ? listedItems(await items.readByQuery(query))
        : await items.stream(query, batchSize);
      const content = Readable.from(
        formatItems(counted(read), job.format, {
          tempDir: workDir,
          csvEscapeFormulas: deps.config.exportCsvEscapeFormulas,
          csvDirect,
        }),
      );
      const upload = { stream: content, filename: `${job.title}.${extension}`, type: contentType };
      return deps.files.stage(writer, upload, { ...defaults, ...overrides, id: job.fileId }, { isGenerated: true });
    };
    let staged: Awaited<ReturnType<typeof store>>;
    try {
      // csv first straight through (no first pass on disk: rows of one shape, the usual case)...
      staged = await store(job.format === 'csv');
    } catch (error) {
      if (!(error instanceof CsvColumnsGrew)) throw error;
      // ...and again with the first pass when a column appeared after the header was written.
      done = 0;
      staged = await store(false);
    }
    await deps.files.create(writer, [staged]);
  } catch (error) {
    failure = { error };
  } finally {
    // Before the status changes: whoever sees it final sees nothing left behind.
    await rm(workDir, { recursive: true, force: true });
  }
  if (failure === undefined) {
    await report({ status: 'done', rows_done: done, rows_total: total, file: job.fileId, error: null });
    return;
  }
  const reason = failure.error instanceof Error ? failure.error.message : String(failure.error);
  // A stopped run is handed back (a worker's) or failed for good (a server's, without worker).
  const isRetried = failure.error instanceof JobStopped ? failure.error.isRetried : run.attempt < run.attempts;
  await report({
    status: isRetried ? 'retrying' : 'failed',
    rows_done: done,
    rows_total: total,
    file: null,
    error: reason,
  }).catch(() => undefined);
  throw failure.error;
}

/** `limit` missing = every row; a given sort gets the key appended. */
/** An export's query: every row unless it says otherwise, ordered to the key last (stable batches). */
export function exportQuery(raw: unknown, primary: string): Query {
  const { export: _export, meta: _meta, ...query } = parseQuery((raw ?? {}) as Parameters<typeof parseQuery>[0]);
  const sort =
    query.sort === undefined || query.sort.length === 0 || query.sort.some((s) => s.replace(/^-/, '') === primary)
      ? query.sort
      : [...query.sort, primary];
  return { ...query, limit: query.limit ?? -1, ...(sort === undefined ? {} : { sort }) };
}

/** Rows the export will write: the filter's count within offset and limit. */
async function countRows(items: ExportReads, query: Query): Promise<number | null> {
  if (isAggregateQuery(query)) return null;
  const { filter_count: matching = 0 } = await items.readMeta({ ...query, meta: ['filter_count'] });
  const afterOffset = Math.max(0, matching - (query.offset ?? 0));
  return query.limit === undefined || query.limit < 0 ? afterOffset : Math.min(afterOffset, query.limit);
}
