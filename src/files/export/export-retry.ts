import { randomUUID } from 'node:crypto';
import type { SchemaOverview } from '../../../catalog/overview/types.js';
import { publicAccountability, type Accountability } from '../../access/accountability.js';
import { findUserById } from '../../auth/auth-user.js';
import { toDatabaseTimestamp } from '../../commands/to-database-value.js';
import { dialectOf } from '../../db/index.js';
import { ForbiddenError, InvalidPayloadError } from '../../errors.js';
import type { JobQueue } from '../../jobs/job.js';
import { enqueueExport, prepareExport, type ExportJob, type PrepareExportDeps } from './export-job.js';
import { EXPORT_ACTION, type ExportStatus } from './export-status.js';

interface StatusRow {
  readonly user: string | null;
  readonly collection: string;
  readonly item: string;
  readonly comment: string;
  readonly ip: string | null;
  readonly user_agent: string | null;
  readonly origin: string | null;
}

/**
 * `POST /utils/export/jobs/:id/retry`, administrators only (FORBIDDEN otherwise, and for an
 * unknown job, as `GET /utils/export/jobs/:id`): a `failed` export queued again under its own
 * id, so whoever follows the job sees it run again, with the request its status row kept. It
 * runs for the user who asked for it, with their role as it is now (checked again as a new
 * export is: a user no longer active, or who may no longer read the collection, is
 * INVALID_PAYLOAD, as is an export that is not `failed`). Its status becomes `queued` with a
 * new timestamp (EXPORT_RETENTION counts from the retry); of two retries at once, one wins.
 */
export async function retryExport(
  deps: PrepareExportDeps & { readonly jobs: JobQueue },
  accountability: Accountability,
  overview: SchemaOverview,
  id: string,
): Promise<void> {
  if (!accountability.admin) throw new ForbiddenError();
  const row =
    id.length === 0 || id.length > 255
      ? undefined
      : await deps
          .db('svc_activity')
          .where({ action: EXPORT_ACTION, item: id })
          .first<StatusRow | undefined>('user', 'collection', 'item', 'comment', 'ip', 'user_agent', 'origin');
  // MariaDB's collation matches ids case-insensitively: the job is the one named exactly.
  if (row === undefined || row.item !== id) throw new ForbiddenError();
  const status = JSON.parse(row.comment) as ExportStatus;
  if (status.status !== 'failed')
    throw new InvalidPayloadError(`Only a failed export can be retried; this one is "${status.status}"`);
  const { request } = status;
  if (request === undefined)
    throw new InvalidPayloadError('The export kept no request to queue again (it was asked for before retries)');

  const caller = await callerOf(deps, row);
  const prepared = await prepareExport(deps, caller, overview, row.collection, {
    format: status.format,
    query: request.query,
    file: request.file,
  }).catch((error: unknown) => {
    // Not the administrator's rights: the export's user's.
    if (error instanceof ForbiddenError)
      throw new InvalidPayloadError(`The export's user may no longer read "${row.collection}"`);
    throw error;
  });
  const job: ExportJob = { ...prepared, id, fileId: request.fileId, title: request.title };

  const queued: ExportStatus = {
    status: 'queued',
    format: job.format,
    rows_done: 0,
    rows_total: null,
    attempt: 0,
    file: null,
    error: null,
    request,
  };
  // Only from the failed status read above: a second retry at the same time finds it changed.
  const claimed = await deps
    .db('svc_activity')
    .where({ action: EXPORT_ACTION, item: id, comment: row.comment })
    .update({
      comment: JSON.stringify(queued),
      timestamp: toDatabaseTimestamp(new Date(), dialectOf(deps.db)),
    });
  if (claimed === 0) throw new InvalidPayloadError('The export is being retried already');
  await enqueueExport(deps.db, deps.jobs, job, `${id}:retry:${randomUUID()}`);
}

/** Who the export runs for: its user as they are now (role, access), from where they asked. */
async function callerOf(deps: PrepareExportDeps, row: StatusRow): Promise<Accountability> {
  const origin = { ip: row.ip, userAgent: row.user_agent, origin: row.origin };
  if (row.user === null) return publicAccountability(origin);
  const user = await findUserById(deps.db, row.user);
  if (user?.status !== 'active') throw new InvalidPayloadError("The export's user is no longer active");
  return Object.freeze({ user: user.id, role: user.role, admin: user.adminAccess, app: user.appAccess, ...origin });
}
