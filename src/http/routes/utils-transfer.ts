import { Router } from 'express';
import { handleImport, requireImportAllowed } from '../../commands/import/handle-import.js';
import { limitImportSize } from '../../commands/import/size-limit.js';
import { InvalidPayloadError, UnsupportedMediaTypeError } from '../../errors.js';
import { prepareExport, queueExport } from '../../files/export/export-job.js';
import { retryExport } from '../../files/export/export-retry.js';
import { EXPORT_JOB_HEADER, readExportJob } from '../../files/export/export-status.js';
import type { JobQueue } from '../../jobs/job.js';
import { toCollectionName } from '../collection-name.js';
import { readMultipart } from '../multipart.js';
import { ItemsService } from '../../items/items-service.js';
import type { ItemWriteDeps } from './item-writes.js';

/** Import: the file part's type decides the format. */
export const IMPORT_FORMATS: Readonly<Record<string, 'csv' | 'json'>> = {
  'application/json': 'json',
  'text/csv': 'csv',
  'application/vnd.ms-excel': 'csv',
};

export interface TransferRouteDeps extends ItemWriteDeps {
  readonly jobs: JobQueue;
}

/**
 * POST /utils/import/:collection, POST /utils/export/:collection, GET /utils/export/jobs/:id
 * and POST /utils/export/jobs/:id/retry.
 */
export function utilsTransferRoutes(deps: TransferRouteDeps): Router {
  const router = Router();

  // The part named `file` is imported as it arrives; other parts are skipped. 200, empty body.
  router.post('/import/:collection', async (req, res) => {
    const items = new ItemsService(toCollectionName(req.params['collection']), deps, {
      accountability: req.accountability,
    });
    // Before the body: a collection the caller may not import into reads like a missing one.
    const collection = await items.requireWritable();
    const ctx = await items.commandContext();
    requireImportAllowed(ctx, collection);
    let isImported = false;
    for await (const part of readMultipart(req, deps.config.maxPayloadSize)) {
      if (part.kind !== 'file' || part.name !== 'file') continue;
      const format = IMPORT_FORMATS[part.type];
      if (format === undefined) throw new UnsupportedMediaTypeError(part.type, 'file import');
      const source = limitImportSize(part.stream, deps.config.importMaxSize);
      await handleImport({ kind: 'import', collection: collection.collection, format, source }, ctx);
      isImported = true;
      break;
    }
    if (!isImported) throw new InvalidPayloadError('"file" is required');
    res.status(200).end();
  });

  // Checked, queued, answered at once (204); progress in the export's svc_activity row.
  router.post('/export/:collection', async (req, res) => {
    const overview = await deps.schema.getOverview();
    const job = await prepareExport(
      deps,
      req.accountability,
      overview,
      toCollectionName(req.params['collection']),
      req.body ?? {},
    );
    await queueExport(deps.db, deps.jobs, job);
    // Directus clients get their 204; others follow the job resource to its file.
    res.setHeader('Location', `${req.baseUrl}/export/jobs/${job.id}`);
    res.setHeader(EXPORT_JOB_HEADER, job.id);
    res.status(204).end();
  });

  // The export's progress and file, for the user who asked for it (or an administrator).
  router.get('/export/jobs/:id', async (req, res) => {
    res.json({ data: await readExportJob(deps.db, req.accountability, req.params['id']) });
  });

  // A failed export queued again (administrators): answers the job as it is now, `queued`.
  router.post('/export/jobs/:id/retry', async (req, res) => {
    const overview = await deps.schema.getOverview();
    await retryExport(deps, req.accountability, overview, req.params['id']);
    res.json({ data: await readExportJob(deps.db, req.accountability, req.params['id']) });
  });

  return router;
}
