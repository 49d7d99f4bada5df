import type { JobHandler } from '../jobs/job.js';
import { CronExpression } from './cron.js';
import { queueFlowRun } from './flow-jobs.js';
import { activeFlows } from './flow-store.js';
import type { FlowDeps, FlowRow } from './types.js';

/** The job that looks every second for `schedule` flows due (a bull repeatable job: one tick across instances). */
export const FLOW_SCHEDULE_JOB = 'flow-schedule';
const FLOW_SCHEDULE_TICK_MS = 1000;

/** How far back a tick looks: a tick that ran late still queues the seconds it missed. */
const LOOK_BACK_SECONDS = 3;

/**
 * The active `schedule` flows of this process, read once and again only after a write to
 * svc_flows (on any instance: the data invalidation's pub/sub), so the tick reads nothing
 * while flows stay as they are.
 */
class ScheduledFlows {
  #flows: Promise<FlowRow[]> | undefined;
  readonly #unsubscribe: () => void;

  constructor(
    private readonly deps: FlowDeps,
    onChange: (flows: readonly FlowRow[]) => void = () => undefined,
  ) {
    this.#unsubscribe =
      deps.invalidation.onChange?.(['svc_flows'], () => {
        this.#flows = undefined;
        void this.list().then(onChange, () => undefined);
      }) ?? (() => undefined);
  }

  list(): Promise<FlowRow[]> {
    this.#flows ??= activeFlows(this.deps.db, 'schedule').catch((error: unknown) => {
      this.#flows = undefined;
      throw error;
    });
    return this.#flows;
  }

  close(): void {
    this.#unsubscribe();
  }
}

/**
 * Starts the schedule tick once a `schedule` flow exists (at start, or when one is saved):
 * every instance asks, bull keeps one schedule (or this process's timer without Redis).
 */
export async function startFlowSchedule(deps: FlowDeps): Promise<{ close(): void }> {
  let isStarted = false;
  const start = (flows: readonly FlowRow[]) => {
    if (isStarted || flows.length === 0 || deps.jobs === undefined) return;
    isStarted = true;
    deps.jobs.repeat(FLOW_SCHEDULE_JOB, FLOW_SCHEDULE_TICK_MS).catch((error: unknown) => {
      isStarted = false;
      deps.logger.warn({ err: error }, 'flows: the schedule could not be started');
    });
  };
  const scheduled = new ScheduledFlows(deps, start);
  start(await scheduled.list());
  return scheduled;
}

/**
 * The schedule tick: every `schedule` flow whose `options.cron` names one of the last few
 * seconds is queued for that second. The run's key is the flow and the second, so a second
 * two ticks (or two instances' timers) both saw runs once: the queue drops a key it holds, and
 * the run's claim (svc_flow_claims) a key that already ran.
 */
export function flowScheduleHandler(deps: () => FlowDeps): JobHandler {
  let scheduled: ScheduledFlows | undefined;
  return async () => {
    const flowDeps = deps();
    scheduled ??= new ScheduledFlows(flowDeps);
    const now = Math.floor(Date.now() / 1000);
    for (const flow of await scheduled.list()) {
      const cron = typeof flow.options['cron'] === 'string' ? CronExpression.parse(flow.options['cron']) : undefined;
      if (cron === undefined) continue;
      for (let second = now - LOOK_BACK_SECONDS + 1; second <= now; second += 1) {
        const at = new Date(second * 1000);
        if (!cron.matches(at)) continue;
        await queueFlowRun(flowDeps, {
          flowId: flow.id,
          key: `schedule:${flow.id}:${String(second)}`,
          trigger: { $schedule: at.toISOString() },
          accountability: null,
        });
      }
    }
  };
}
