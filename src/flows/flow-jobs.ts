import type { Accountability } from '../access/accountability.js';
import type { JobHandler } from '../jobs/job-queue.js';
import { runFlow } from './run-flow.js';
import type { FlowDeps } from './types.js';

/** The job that runs one flow for one event (after-commit events, async webhooks, schedules). */
export const FLOW_RUN_JOB = 'flow-run';

/**
 * The job of one item event that several after-commit flows match: the worker queues each
 * flow's run from it, so the API adds one job per write however many flows listen (each add is
 * a Redis script and its JSON on the API's event loop, beside the next request).
 */
export const FLOW_EVENT_JOB = 'flow-event';

/** A queued run: the event's key is the job id and the run's claim, so it runs once. */
export interface FlowRunJob {
  readonly flowId: string;
  readonly key: string;
  readonly trigger: unknown;
  readonly accountability: Accountability | null;
  /** How deep in a chain of flows the run starts (a run started by another flow's write: chain-depth.ts). */
  readonly depth?: number;
}

/**
 * The job handler of queued runs (src/server.ts without Redis, workers/ with it), at most
 * FLOWS_CONCURRENCY at once in this process. `deps` is asked for when a job runs, as the API
 * builds its queue before the flows' deps.
 */
export function flowRunHandler(deps: () => FlowDeps): JobHandler {
  const slots = new Slots();
  return async (data, run) => {
    const flowDeps = deps();
    const job = data as FlowRunJob;
    await slots.run(flowDeps.config.flows.concurrency, () =>
      runFlow(flowDeps, {
        flowId: job.flowId,
        trigger: job.trigger,
        accountability: job.accountability,
        depth: job.depth ?? 0,
        claim: { key: job.key, isRetry: run.attempt > 1, job, canRetry: run.attempt < run.attempts },
      }),
    );
  };
}

/** One event's runs: every matching flow under its own key (its claim, its retries, its dead letter). */
export interface FlowEventJob {
  readonly runs: readonly { readonly flowId: string; readonly key: string }[];
  readonly trigger: unknown;
  readonly accountability: Accountability | null;
  readonly depth: number;
}

/**
 * The fan-out of a {@link FlowEventJob}: one queued run per flow, under the keys the API gave
 * them, so a fan-out retried (an add failed) or delivered twice queues nothing twice (the
 * queue ignores a job id it holds; a run already done is refused by its claim).
 */
export function flowEventHandler(deps: () => FlowDeps): JobHandler {
  return async (data) => {
    const flowDeps = deps();
    const { runs, trigger, accountability, depth } = data as FlowEventJob;
    await Promise.all(
      runs.map(({ flowId, key }) => queueFlowRun(flowDeps, { flowId, key, trigger, accountability, depth })),
    );
  };
}

/**
 * Queues the runs of one event: a lone run as itself, several as one {@link FlowEventJob}
 * (fanned out in the worker); without a queue each runs here.
 */
export async function queueEventRuns(deps: FlowDeps, event: FlowEventJob): Promise<void> {
  const [first] = event.runs;
  if (first === undefined) return;
  if (deps.jobs !== undefined && event.runs.length > 1) {
    await deps.jobs.add(FLOW_EVENT_JOB, `flow-event:${first.key}`, event);
    return;
  }
  const { trigger, accountability, depth } = event;
  await Promise.all(event.runs.map((run) => queueFlowRun(deps, { ...run, trigger, accountability, depth })));
}

/** Queues a run of `flowId` for the event `key` (the queue ignores a key it holds already). */
export async function queueFlowRun(deps: FlowDeps, job: FlowRunJob): Promise<void> {
  if (deps.jobs === undefined) {
    void runFlow(deps, { ...job, claim: { key: job.key, isRetry: false, job } }).catch((error: unknown) => {
      deps.logger.warn({ err: error, flow: job.flowId }, 'flow run failed');
    });
    return;
  }
  // FLOWS_RETRY_ATTEMPTS, not JOBS_ATTEMPTS: a receiver down for minutes still gets its delivery.
  await deps.jobs.add(FLOW_RUN_JOB, `flow:${job.key}`, job, { attempts: deps.config.flows.retryAttempts });
}

/** A counting semaphore: FLOWS_CONCURRENCY. */
class Slots {
  #busy = 0;
  readonly #waiting: (() => void)[] = [];

  async run<T>(limit: number, work: () => Promise<T>): Promise<T> {
    if (this.#busy >= limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#busy += 1;
    try {
      return await work();
    } finally {
      this.#busy -= 1;
      this.#waiting.shift()?.();
    }
  }
}
