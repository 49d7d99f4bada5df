import { exportHandlers } from '../src/files/export/export-handlers.js';
import type { ExportDeps } from '../src/files/export/run-export.js';
import type { JobHandler } from '../src/jobs/job.js';

/** The job kinds this worker runs, by job name (the API queues them under these names). */
export function processors(deps: ExportDeps): Record<string, JobHandler> {
  return exportHandlers(deps);
}
