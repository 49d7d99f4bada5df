/**
 * Flows (issue 44): svc_flows and svc_operations run as Directus 10 runs them. Entry points for
 * the composition roots: {@link flowTriggerRoutes} (webhook and manual triggers),
 * {@link registerFlowHooks} (event flows on the items service's events), {@link flowJobHandlers}
 * (the queued runs, in the API without Redis and in workers with it) and
 * {@link registerOperation} (operation extensions).
 */
export { flowTriggerRoutes } from './trigger-routes.js';
export { registerFlowHooks, FLOW_EVENTS } from './event-hooks.js';
export { flowJobHandlers, FLOW_PRUNE_JOB } from './flow-job-handlers.js';
export { startFlowSchedule } from './schedule.js';
export { queueFlowRun, FLOW_RUN_JOB } from './flow-jobs.js';
export { pruneFlowRuns } from './prune-runs.js';
export { registerOperation } from './operations.js';
export { runFlow, FlowRunRefused, type FlowRunResult } from './run-flow.js';
export { mailSender } from './mail-sender.js';
export type { FlowDeps, OperationHandler, OperationContext } from './types.js';
