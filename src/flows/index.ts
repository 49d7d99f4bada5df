/**
 * Flows (issue 44): svc_flows and svc_operations run as Directus 10 runs them. Entry points for
 * the composition roots: {@link flowTriggerRoutes} (webhook and manual triggers, dead letters),
 * {@link registerFlowHooks} (event flows on the items service's events), {@link flowJobHandlers}
 * and {@link startFlowSchedule} (queued runs and the schedule, in the API without Redis and in
 * workers with it), {@link registerOperation} (operation extensions), and
 * {@link refuseScriptsWhenOff} (no `exec` operation saved while FLOWS_EXEC_ALLOWED is off).
 */
export { flowTriggerRoutes } from './trigger-routes.js';
export { registerFlowHooks } from './event-hooks.js';
export { flowJobHandlers, FLOW_LANES_EVERY_MS, FLOW_LANES_JOB, FLOW_PRUNE_JOB } from './flow-job-handlers.js';
export { startFlowSchedule } from './schedule.js';
export { registerOperation } from './operations.js';
export { refuseScriptsWhenOff } from './run-script.js';
export { sandboxedOperation } from './sandboxed-operation.js';
export { mailSender } from './mail-sender.js';
export type { FlowDeps, OperationHandler, OperationContext } from './types.js';
