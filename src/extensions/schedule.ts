import { CronExpressionParser } from 'cron-parser';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger/index.js';

/** A `schedule(cron, handler)` handler: its outcome is logged, never answered. */
export type ScheduleHandler = () => unknown;

/**
 * Claims one tick of one schedule for this instance: true for the first instance to ask, false
 * for every other (the key keeps the last tick claimed; a later tick wins, an earlier or equal
 * one loses). KEYS[1] = the schedule's key, ARGV = tick (ms), the key's time to live (ms).
 */
const CLAIM_TICK = `
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if last >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

const CLAIM_TTL_MS = 24 * 60 * 60 * 1000;
/** setTimeout's longest delay; a later tick is waited for in steps. */
const MAX_DELAY_MS = 2_147_483_647;

interface Job {
  readonly owner: string;
  readonly cron: string;
  readonly key: string;
  readonly handler: ScheduleHandler;
  timer?: NodeJS.Timeout;
}

/**
 * The extensions' `schedule(cron, handler)` jobs: a timer per job in every instance, each tick
 * run by exactly one: with Redis the instances claim the tick (an atomic compare-and-set on the
 * job's key, so instances whose clocks agree within a tick run it once between them); without
 * Redis, this process is the only one. Cron expressions take five fields, or six with seconds first.
 */
export class Scheduler {
  private readonly jobs: Job[] = [];
  private isClosed = false;

  constructor(
    private readonly options: {
      readonly redis: Redis | undefined;
      readonly namespace: string;
      readonly logger: Logger;
    },
  ) {}

  /** Checks `cron` now (an invalid one throws, failing the extension's registration) and starts the job. */
  add(owner: string, cron: string, handler: ScheduleHandler): void {
    try {
      CronExpressionParser.parse(cron);
    } catch (error) {
      throw new Error(
        `schedule "${cron}" is not a cron expression (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    const index = this.jobs.filter((job) => job.owner === owner).length;
    const key = `${this.options.namespace}:extensions:schedule:${owner}:${String(index)}:${cron}`;
    const job: Job = { owner, cron, key, handler };
    this.jobs.push(job);
    this.arm(job, Date.now());
  }

  close(): void {
    this.isClosed = true;
    for (const job of this.jobs) clearTimeout(job.timer);
  }

  /** Waits for the job's first tick after `after` (ms). */
  private arm(job: Job, after: number): void {
    if (this.isClosed) return;
    const tick = CronExpressionParser.parse(job.cron, { currentDate: new Date(after) })
      .next()
      .getTime();
    const wait = (): void => {
      const delay = tick - Date.now();
      job.timer = setTimeout(
        () => {
          if (Date.now() < tick) {
            wait();
            return;
          }
          this.arm(job, tick);
          void this.fire(job, tick);
        },
        Math.min(Math.max(delay, 0), MAX_DELAY_MS),
      );
      job.timer.unref();
    };
    wait();
  }

  private async fire(job: Job, tick: number): Promise<void> {
    const { redis, logger } = this.options;
    if (redis !== undefined) {
      try {
        const claimed = await redis.eval(CLAIM_TICK, 1, job.key, String(tick), String(CLAIM_TTL_MS));
        if (claimed !== 1) return;
      } catch (error) {
        // Never once per instance: without Redis's word, this tick is left out.
        logger.warn(
          { err: error, extension: job.owner },
          `extension "${job.owner}": schedule "${job.cron}" skipped a tick (Redis failed)`,
        );
        return;
      }
    }
    try {
      await job.handler();
    } catch (error) {
      logger.error({ err: error, extension: job.owner }, `extension "${job.owner}": schedule "${job.cron}" failed`);
    }
  }
}
