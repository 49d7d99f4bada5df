import type { JobHandler } from '../../jobs/job.js';
import { EXPORT_JOB } from './export-job.js';
import { EXPORT_CLEANUP_JOB, exportCleanupHandler } from './export-retention.js';
import { exportJobHandler, type ExportDeps } from './run-export.js';

/**
 * The export job kinds by job name, for the worker process and the API's in-process runner
 * alike: an export, and the cleanup of exports older than their retention (the project's
 * setting, else EXPORT_RETENTION).
 */
export function exportHandlers(deps: ExportDeps): Record<string, JobHandler> {
  return {
    [EXPORT_JOB]: exportJobHandler(deps),
    [EXPORT_CLEANUP_JOB]: exportCleanupHandler(deps),
  };
}
