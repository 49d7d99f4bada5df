import { randomUUID } from 'node:crypto';
import type { Accountability } from '../access/accountability.js';
import type { JobHandler } from '../jobs/job.js';
import { queueClaims } from './run-claims.js';
import { idleLaneHeads, laneHead, laneOf, type LaneHead, type RunLane } from './run-lanes.js';
import { runFlow, type FlowRunResult } from './run-flow.js';
import type { FlowDeps } from './types.js';

/** The job that runs one flow for one event (after-commit events, async webhooks, schedules). */
export const FLOW_RUN_JOB = 'flow-run';

/**
 * The job of one item event that several after-commit flows match: the worker queues each
 * flow's run from it, so the API posts one job per write however many flows listen (each add
 * would be a Redis script and its JSON on the API's event loop, beside the next request; a
 * post is one XADD, admitted into the queue by a worker).
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
  /** An item event's place among its item's events (run-lanes.ts `nextSeq`): its run goes in its lane. */
  readonly seq?: number;
  /** Its claim was recorded `queued` by its event's fan-out. */
  readonly isQueued?: boolean;
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
      runQueued(flowDeps, job, { isRetry: run.attempt > 1, canRetry: run.attempt < run.attempts }),
    );
  };
}

/**
 * A queued run under its claim. An item event's run goes in its lane (run-lanes.ts): after the
 * lane's earlier runs, and once it settled, the lane's next run, if it waits, is queued again.
 */
function runQueued(
  deps: FlowDeps,
  job: FlowRunJob,
  { isRetry, canRetry }: { isRetry: boolean; canRetry?: boolean },
): Promise<FlowRunResult> {
  const lane = laneOfJob(deps, job);
  return runFlow(deps, {
    flowId: job.flowId,
    trigger: job.trigger,
    accountability: job.accountability,
    depth: job.depth ?? 0,
    claim: {
      key: job.key,
      isRetry,
      job,
      ...(canRetry === undefined ? {} : { canRetry }),
      lane,
      isQueued: job.isQueued,
      onSettled: lane === undefined ? undefined : () => wakeLane(deps, lane.id),
    },
  });
}

/** The lane of an item event's run (none for other runs), with the jobs running now to look at. */
function laneOfJob(deps: FlowDeps, job: FlowRunJob): RunLane | undefined {
  const { seq } = job;
  if (seq === undefined) return undefined;
  const id = laneOf(job.flowId, job.trigger);
  return { id, seq, inFlight: () => earlierInFlight(deps, id, seq) };
}

/**
 * The claim keys of `lane`'s runs of events before `seq` whose jobs some worker runs now: a
 * lone run, or the fan-out of an event one of whose runs is in the lane. Two workers (or
 * JOBS_CONCURRENCY > 1) take an item's two events' jobs at once; the later one must not go
 * ahead before the earlier one recorded its claim.
 */
async function earlierInFlight(deps: FlowDeps, lane: string, seq: number): Promise<string[]> {
  const keys: string[] = [];
  for (const { name, data } of (await deps.jobs?.running()) ?? []) {
    if (name === FLOW_RUN_JOB) {
      const run = data as FlowRunJob;
      if (run.seq !== undefined && run.seq < seq && laneOf(run.flowId, run.trigger) === lane) keys.push(run.key);
    } else if (name === FLOW_EVENT_JOB) {
      const event = data as FlowEventJob;
      if (event.seq === undefined || event.seq >= seq) continue;
      for (const run of event.runs) if (laneOf(run.flowId, event.trigger) === lane) keys.push(run.key);
    }
  }
  return keys;
}

/** Queues the lane's first unsettled run again when it waits (its job ended while it waited). */
async function wakeLane(deps: FlowDeps, lane: string): Promise<void> {
  const head = await laneHead(deps.db, lane);
  if (head?.state === 'waiting') await requeueRun(deps, head);
}

/**
 * Queues a lane's head again: a waiting run under a new job id each time (one queued while the
 * last is still in the queue must not be dropped: that one may have looked already), a queued
 * one under its own (the queue drops it if it still holds it). Its claim lets one of them run.
 */
async function requeueRun(deps: FlowDeps, head: LaneHead): Promise<void> {
  const job = head.job as FlowRunJob;
  const id = head.state === 'waiting' ? `flow:${head.key}:${randomUUID()}` : `flow:${head.key}`;
  await addRun(deps, id, job);
}

/**
 * The lanes job's look for lanes left idle (run-lanes.ts `idleLaneHeads`), every minute: a
 * worker that died between settling a run and queueing the next, or a queue that refused the
 * add, strands no run for longer.
 */
export async function requeueIdleLanes(deps: FlowDeps): Promise<void> {
  for (const head of await idleLaneHeads(deps.db)) await requeueRun(deps, head);
}

/** One event's runs: every matching flow under its own key (its claim, its retries, its dead letter). */
export interface FlowEventJob {
  readonly runs: readonly { readonly flowId: string; readonly key: string }[];
  readonly trigger: unknown;
  readonly accountability: Accountability | null;
  readonly depth: number;
  /** The event's place among its item's events (run-lanes.ts `nextSeq`); none before the lanes. */
  readonly seq?: number;
}

/**
 * The fan-out of a {@link FlowEventJob}: one queued run per flow, under the keys the API gave
 * them, so a fan-out retried (an add failed) or delivered twice queues nothing twice (the
 * queue ignores a job id it holds; a run already done is refused by its claim). The runs'
 * claims are recorded first, in one statement: a run of the item's next event waits for them.
 */
export function flowEventHandler(deps: () => FlowDeps): JobHandler {
  return async (data) => {
    const flowDeps = deps();
    const { runs, trigger, accountability, depth, seq } = data as FlowEventJob;
    const jobs = runs.map(({ flowId, key }): FlowRunJob => {
      const job = { flowId, key, trigger, accountability, depth };
      return seq === undefined ? job : { ...job, seq, isQueued: true };
    });
    if (seq !== undefined) {
      await queueClaims(
        flowDeps.db,
        jobs.map((job) => ({ key: job.key, flowId: job.flowId, job, lane: { id: laneOf(job.flowId, trigger), seq } })),
      );
    }
    await Promise.all(jobs.map((job) => queueFlowRun(flowDeps, job)));
  };
}

/**
 * Queues the runs of one event: a lone run as itself, several as one {@link FlowEventJob}
 * (fanned out in the worker); without a queue each runs here. The API adds the event's `seq`
 * to the job and nothing else: its claims and lane are the worker's work.
 */
export async function queueEventRuns(deps: FlowDeps, event: FlowEventJob): Promise<void> {
  const [first] = event.runs;
  if (first === undefined) return;
  // Posted, not added: one Redis command on the write's event loop (jobs/posted-jobs.ts).
  if (deps.jobs !== undefined && event.runs.length > 1) {
    await deps.jobs.post(FLOW_EVENT_JOB, `flow-event:${first.key}`, event);
    return;
  }
  const { runs: _runs, ...shared } = event;
  await Promise.all(event.runs.map((run) => addRun(deps, `flow:${run.key}`, { ...run, ...shared }, 'post')));
}

/** Queues a run of `flowId` for the event `key` (the queue ignores a key it holds already). */
export function queueFlowRun(deps: FlowDeps, job: FlowRunJob): Promise<void> {
  return addRun(deps, `flow:${job.key}`, job);
}

async function addRun(deps: FlowDeps, id: string, job: FlowRunJob, how: 'add' | 'post' = 'add'): Promise<void> {
  if (deps.jobs === undefined) {
    void runQueued(deps, job, { isRetry: false }).catch((error: unknown) => {
      deps.logger.warn({ err: error, flow: job.flowId }, 'flow run failed');
    });
    return;
  }
  // FLOWS_RETRY_ATTEMPTS, not JOBS_ATTEMPTS: a receiver down for minutes still gets its delivery.
  await deps.jobs[how](FLOW_RUN_JOB, id, job, { attempts: deps.config.flows.retryAttempts });
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
