import type { JobHandler } from '../jobs/job.js';
import { FLOW_EVENT_JOB, FLOW_RUN_JOB, flowEventHandler, flowRunHandler, requeueIdleLanes } from './flow-jobs.js';
import { pruneFlowRuns } from './prune-runs.js';
import { FLOW_SCHEDULE_JOB, flowScheduleHandler } from './schedule.js';
import type { FlowDeps } from './types.js';

/**
 * The job that deletes old claims and, with FLOWS_LOG_RETENTION, old runs (every
 * RETENTION_INTERVAL), then queues again the runs of item lanes nothing would start.
 */
export const FLOW_PRUNE_JOB = 'flow-prune';

/**
 * The job kinds of flows, for the composition roots' queues: queued runs, an event's fan-out
 * to them, and the schedule tick
 * (src/server.ts without Redis, workers/ with it). `deps` is asked for when a job runs.
 */
export function flowJobHandlers(deps: () => FlowDeps): Record<string, JobHandler> {
  return {
    [FLOW_RUN_JOB]: flowRunHandler(deps),
    [FLOW_EVENT_JOB]: flowEventHandler(deps),
    [FLOW_SCHEDULE_JOB]: flowScheduleHandler(deps),
    [FLOW_PRUNE_JOB]: async () => {
      const flowDeps = deps();
      const { db, config } = flowDeps;
      await pruneFlowRuns(db, config.db.client, config.flows.logRetentionMs);
      await requeueIdleLanes(flowDeps);
    },
  };
}
