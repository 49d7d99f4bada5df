import type { JobHandler } from '../jobs/job.js';
import { FLOW_EVENT_JOB, FLOW_RUN_JOB, flowEventHandler, flowRunHandler, requeueIdleLanes } from './flow-jobs.js';
import { pruneFlowRuns } from './prune-runs.js';
import { FLOW_SCHEDULE_JOB, flowScheduleHandler } from './schedule.js';
import type { FlowDeps } from './types.js';

/** The job that deletes old claims and, with FLOWS_LOG_RETENTION, old runs (every RETENTION_INTERVAL). */
export const FLOW_PRUNE_JOB = 'flow-prune';

/**
 * The job that queues again the runs of item lanes nothing would start (a worker died between
 * settling a run and queueing the next, or Redis refused that add): every FLOW_LANES_EVERY_MS,
 * so such a lane waits a minute at most, not a RETENTION_INTERVAL.
 */
export const FLOW_LANES_JOB = 'flow-lanes';
export const FLOW_LANES_EVERY_MS = 60_000;

/**
 * The job kinds of flows, for the composition roots' queues: queued runs, an event's fan-out
 * to them, the schedule tick, the pruning and the look for idle lanes
 * (src/server.ts without Redis, workers/ with it). `deps` is asked for when a job runs.
 */
export function flowJobHandlers(deps: () => FlowDeps): Record<string, JobHandler> {
  return {
    [FLOW_RUN_JOB]: flowRunHandler(deps),
    [FLOW_EVENT_JOB]: flowEventHandler(deps),
    [FLOW_SCHEDULE_JOB]: flowScheduleHandler(deps),
    [FLOW_PRUNE_JOB]: async () => {
      const { db, config } = deps();
      await pruneFlowRuns(db, config.db.client, config.flows.logRetentionMs);
    },
    [FLOW_LANES_JOB]: () => requeueIdleLanes(deps()),
  };
}
