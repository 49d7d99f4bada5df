import Bull from 'bull';
import { setTimeout as delay } from 'node:timers/promises';
import { bullRedis } from '../cache/redis-client.js';
import { RedisGuard } from '../cache/redis-guard.js';
import type { Config, RedisConfig } from '../config/index.js';
import { invariant, ServiceUnavailableError } from '../errors.js';
import { postJob, postedCount, startAdmitting, withdrawPost } from './posted-jobs.js';
import { JobStopped, type AddOptions, type JobDepth, type JobHandler, type JobQueue, type RunningJob } from './job.js';

export interface JobQueueOptions {
  /** With a URL jobs go to bull for the worker process; without, they run here. */
  readonly redis: RedisConfig;
  /** CACHE_NAMESPACE: deployments sharing one Redis keep their queues apart. */
  readonly namespace: string;
  readonly settings: Config['jobs'];
  /** The job kinds, by name (used by the in-process runner). */
  readonly handlers: Readonly<Record<string, JobHandler>>;
  readonly logger: JobLogger;
}

interface JobLogger {
  info(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}

const QUEUE_NAME = 'jobs';
/** After SHUTDOWN_TIMEOUT, how long the in-process runner gives its job to end its batch. */
const STOP_GRACE_MS = 5000;

/** The API side: a bull producer with Redis, the in-process runner without. */
export function createJobQueue(options: JobQueueOptions): JobQueue {
  return options.redis.url === undefined
    ? new InProcessJobQueue(options)
    : new BullJobQueue(openBull(options), options);
}

/** A running worker: `close(timeoutMs)` is its stop (SIGTERM). */
export interface JobWorker {
  /**
   * Takes no more jobs and lets the running ones finish within `timeoutMs` (SHUTDOWN_TIMEOUT);
   * then their signal aborts: each ends at its next safe point and goes back to the queue at
   * once, where another worker takes it (not counted against JOBS_ATTEMPTS). Then bull closes.
   */
  close(timeoutMs: number): Promise<void>;
}

/**
 * The worker side (workers/index.ts): takes jobs from bull and runs their handlers,
 * `settings.concurrency` at a time. A job whose worker died (its lock not renewed within
 * JOBS_LOCK_DURATION) is found by a stalled check (every JOBS_STALLED_INTERVAL, and at
 * start) and run again, as its next attempt; a failed one is retried up to JOBS_ATTEMPTS with
 * backoff. A dead worker's job runs again within JOBS_LOCK_DURATION (its lock expiring) plus
 * JOBS_STALLED_INTERVAL (the next check); one whose workers keep dying fails after JOBS_ATTEMPTS.
 * A stopping worker's job is handed back at once ({@link JobWorker.close}).
 */
export async function startJobWorker(options: JobQueueOptions): Promise<JobWorker> {
  const queue = openBull(options);
  const stopping = new AbortController();
  const running = new Set<Promise<unknown>>();
  await queue.isReady();
  queue.on('error', (error) => {
    options.logger.error({ err: error }, 'job queue error');
  });
  queue.on('stalled', (job: Bull.Job) => {
    options.logger.warn({ job: job.id, name: job.name }, 'job stalled: its worker died; it runs again');
  });
  queue.on('failed', (job: Bull.Job, error: Error) => {
    if (error instanceof JobStopped) options.logger.info({ job: job.id, name: job.name }, 'job handed back');
    else options.logger.warn({ err: error, job: job.id, name: job.name, attempt: job.attemptsMade }, 'job failed');
  });
  queue.on('completed', (job: Bull.Job) => {
    options.logger.info({ job: job.id, name: job.name, ms: Date.now() - (job.processedOn ?? Date.now()) }, 'job done');
  });
  // Jobs the API posted (JobQueue.post) go into the queue here, in their order.
  const waiter = queue.client.duplicate();
  waiter.on('error', () => undefined);
  const admitting = startAdmitting(queue, waiter, options.logger);
  void queue.process('*', options.settings.concurrency, async (job: Bull.Job) => {
    const handler = options.handlers[job.name];
    invariant(handler !== undefined, `no handler for job "${job.name}"`);
    const key = queue.toKey(String(job.id));
    // bull counts a run after a stall apart from failed attempts (stalledCounter, not attemptsMade),
    // and a handed back run counts in neither (HANDBACKS below): both count into the attempt shown.
    const [stalls, handbacks] = (await queue.client.hmget(key, 'stalledCounter', HANDBACKS)).map(Number);
    stopping.signal.throwIfAborted();
    options.logger.info({ job: job.id, name: job.name }, 'job started');
    const run = handler(job.data, {
      id: String(job.id),
      attempt: job.attemptsMade + (stalls || 0) + (handbacks || 0) + 1,
      attempts: (job.opts.attempts ?? options.settings.attempts) + (handbacks || 0),
      signal: stopping.signal,
    });
    running.add(run);
    try {
      await run;
    } catch (error) {
      if (error instanceof JobStopped) {
        // Handed back: bull's retry of a failure without its attempt (its backoff strategy
        // below answers 0 for it: straight back to waiting, for the next worker).
        await queue.client.hincrby(key, HANDBACKS, 1);
        job.attemptsMade -= 1;
      }
      throw error;
    } finally {
      running.delete(run);
    }
  });
  return {
    async close(timeoutMs) {
      // No new job here (the running ones go on), then they may finish within the timeout.
      admitting.stop();
      await queue.pause(true, true);
      const timeout = new AbortController();
      await Promise.race([
        Promise.allSettled([...running]),
        delay(timeoutMs, undefined, { signal: timeout.signal }).catch(() => undefined),
      ]);
      timeout.abort();
      // The ones still running end at their next safe point and go back to the queue.
      stopping.abort(new JobStopped(true));
      await queue.close();
    },
  };
}

/** The job hash's count of runs handed back by a stopping worker (not attempts: nothing failed). */
const HANDBACKS = 'svcHandbacks';

/** The backoff of a failed attempt: none for a run handed back by a stopping worker (JobStopped). */
function backoffOf(attemptsMade: number, error: unknown): number {
  return error instanceof JobStopped ? 0 : retryDelayMs(attemptsMade);
}

/** How long a job waits after its `attemptsMade`th failure (bull's exponential backoff of 1 s: 1, 3, 7 s...). */
export function retryDelayMs(attemptsMade: number): number {
  return Math.round((2 ** attemptsMade - 1) * 1000);
}

function openBull(options: JobQueueOptions): Bull.Queue {
  const queueOptions: Bull.QueueOptions = {
    prefix: `${options.namespace}:bull`,
    settings: {
      lockDuration: options.settings.lockDurationMs,
      stalledInterval: options.settings.stalledIntervalMs,
      // A job whose workers keep dying (say, it crashes them) fails like one that keeps failing.
      maxStalledCount: Math.max(0, options.settings.attempts - 1),
      backoffStrategies: { service: backoffOf },
      // After an error taking a job (Redis lost: a failover), try again soon, not after bull's 5 s.
      retryProcessDelay: 500,
    },
    defaultJobOptions: {
      attempts: options.settings.attempts,
      backoff: { type: 'service' },
      removeOnComplete: true,
      removeOnFail: 100,
    },
  };
  // The REDIS URL, or (REDIS_SENTINELS) the options bull makes its three clients with.
  const redis = bullRedis(options.redis);
  return typeof redis === 'string'
    ? new Bull(QUEUE_NAME, redis, queueOptions)
    : new Bull(QUEUE_NAME, { ...queueOptions, redis });
}

/**
 * An add waits at most this many REDIS_COMMAND_TIMEOUTs (bull makes a few round trips); past
 * it, or while Redis is known to fail, it is 503 SERVICE_UNAVAILABLE rather than a request
 * held as long as Redis hangs.
 */
const ADD_TIMEOUT_COMMANDS = 4;

class BullJobQueue implements JobQueue {
  readonly #guard: RedisGuard;
  readonly #addTimeoutMs: number;

  constructor(
    private readonly queue: Bull.Queue,
    options: JobQueueOptions,
  ) {
    this.#guard = new RedisGuard('job queue', 'jobs are refused (503)', options.logger);
    this.#addTimeoutMs = options.redis.commandTimeoutMs * ADD_TIMEOUT_COMMANDS;
    // Bull re-emits its clients' connection errors; unheard, an 'error' event would end the process.
    queue.on('error', (error) => {
      this.#guard.failed(error);
    });
    // Jobs are added through bull's client alone: once it is back, so are they.
    queue.client.on('ready', () => {
      this.#guard.reconnected();
    });
  }

  add(name: string, id: string, data: unknown, options: AddOptions = {}): Promise<void> {
    return this.#handOver(
      () => this.queue.add(name, data, { jobId: id, ...options }),
      (job) => job.remove(),
    );
  }

  post(name: string, id: string, data: unknown, options: AddOptions = {}): Promise<void> {
    return this.#handOver(
      () => postJob(this.queue, name, id, data, options),
      (entry) => withdrawPost(this.queue, entry),
    );
  }

  /**
   * Hands a job to Redis (`start`) within the add's time limit, or answers 503; should Redis
   * take it after all, `takeBack` undoes it, so a job answered as not queued does not run.
   */
  async #handOver<T>(start: () => Promise<T>, takeBack: (handed: T) => Promise<unknown>): Promise<void> {
    let handing: Promise<T> | undefined;
    try {
      await this.#guard.run(() => {
        handing = start();
        return withTimeout(handing, this.#addTimeoutMs);
      });
    } catch (error) {
      handing?.then(takeBack).catch(() => undefined);
      throw new ServiceUnavailableError(
        'jobs',
        error instanceof Error ? error.message.replace(/\.$/, '') : 'Redis is unavailable',
      );
    }
  }

  async repeat(name: string, everyMs: number): Promise<void> {
    // One repeat key per name and period: the same schedule added by every API instance; one
    // of another period (the interval changed since) is dropped, so the job never runs twice.
    await this.#guard.run(() =>
      withTimeout(
        (async () => {
          for (const job of await this.queue.getRepeatableJobs()) {
            if (job.name === name && job.every !== everyMs) await this.queue.removeRepeatableByKey(job.key);
          }
          await this.queue.add(name, {}, { repeat: { every: everyMs }, jobId: name });
        })(),
        this.#addTimeoutMs,
      ),
    );
  }

  close(): Promise<void> {
    return this.queue.close();
  }

  async depth(): Promise<JobDepth> {
    const [counts, paused, posted] = await withTimeout(
      Promise.all([this.queue.getJobCounts(), this.queue.getPausedCount(), postedCount(this.queue)]),
      this.#addTimeoutMs,
    );
    // Posted and not admitted yet, or held by a paused queue: waiting as much as the others.
    return { waiting: counts.waiting + paused + posted, active: counts.active, delayed: counts.delayed };
  }

  async running(): Promise<readonly RunningJob[]> {
    const jobs = await withTimeout(this.queue.getActive(), this.#addTimeoutMs);
    // A job that ended between the list's read and its own is read as null.
    return jobs
      .filter((job) => (job as Bull.Job | null) !== null)
      .map((job) => ({ name: job.name, data: job.data as unknown }));
  }
}

/**
 * `work`, or an error once `timeoutMs` passed. A plain timer: an AbortController with a
 * promise timer cost 0.1 ms of the API's CPU per job added (a CPU profile of bench/flows.ts).
 */
function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`Redis did not answer within ${timeoutMs}ms`));
    }, timeoutMs);
  });
  return Promise.race([work, timedOut]).finally(() => {
    clearTimeout(timer);
  });
}

/**
 * Without Redis: the same handlers, run one job at a time in this process, with the same
 * retries. The data goes through structuredClone, as it would through Redis. On close the
 * running job may finish within the timeout; then its signal asks it to end after its batch.
 */
class InProcessJobQueue implements JobQueue {
  #running: Promise<void> = Promise.resolve();
  #isClosed = false;
  /** Added and not yet ended, the one running included. */
  #queued = 0;
  #active = 0;
  readonly #stopping = new AbortController();
  readonly #timers: NodeJS.Timeout[] = [];

  constructor(private readonly options: JobQueueOptions) {}

  repeat(name: string, everyMs: number): Promise<void> {
    invariant(this.options.handlers[name] !== undefined, `no handler for job "${name}"`);
    const timer = setInterval(() => {
      // One at a time: a run still queued or running when the next is due is not doubled.
      if (this.#isClosed || this.#pending.has(name)) return;
      this.#pending.add(name);
      void this.add(name, `${name}:${String(Date.now())}`, {}).then(() =>
        this.#running.finally(() => this.#pending.delete(name)),
      );
    }, everyMs);
    timer.unref();
    this.#timers.push(timer);
    return Promise.resolve();
  }

  readonly #pending = new Set<string>();

  post(name: string, id: string, data: unknown): Promise<void> {
    return this.add(name, id, data);
  }

  add(name: string, id: string, data: unknown): Promise<void> {
    invariant(!this.#isClosed, 'job queue closed');
    const handler = this.options.handlers[name];
    invariant(handler !== undefined, `no handler for job "${name}"`);
    const copy = structuredClone(data);
    this.#queued += 1;
    this.#running = this.#running.then(async () => {
      this.#active += 1;
      this.#current = { name, data: copy };
      try {
        await this.#run(name, id, handler, copy);
      } finally {
        this.#current = undefined;
        this.#active -= 1;
        this.#queued -= 1;
      }
    });
    return Promise.resolve();
  }

  depth(): Promise<JobDepth> {
    return Promise.resolve({ waiting: this.#queued - this.#active, active: this.#active, delayed: 0 });
  }

  running(): Promise<readonly RunningJob[]> {
    return Promise.resolve(this.#current === undefined ? [] : [this.#current]);
  }

  /** The job running now (one at a time). */
  #current: RunningJob | undefined;

  async close(timeoutMs = Infinity): Promise<void> {
    this.#isClosed = true;
    for (const timer of this.#timers) clearInterval(timer);
    const timeout = Number.isFinite(timeoutMs)
      ? delay(timeoutMs).then(() => 'timeout' as const)
      : new Promise<never>(() => undefined);
    if ((await Promise.race([this.#running.then(() => 'done' as const), timeout])) === 'timeout') {
      // Nothing runs it again here: the job ends after its current batch, marked as stopped.
      this.#stopping.abort(new JobStopped(false));
      const grace = delay(STOP_GRACE_MS).then(() => 'timeout' as const);
      if ((await Promise.race([this.#running.then(() => 'done' as const), grace])) === 'timeout') {
        this.options.logger.warn({}, 'job runner closed with a job still running');
      }
    }
  }

  async #run(name: string, id: string, handler: JobHandler, data: unknown): Promise<void> {
    const { attempts } = this.options.settings;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      if (this.#isClosed && attempt > 1) return;
      try {
        await handler(data, { id, attempt, attempts, signal: this.#stopping.signal });
        return;
      } catch (error) {
        this.options.logger.warn({ err: error, job: id, name, attempt }, 'job failed');
        if (attempt < attempts && !this.#isClosed) await delay(1000 * 2 ** (attempt - 1));
      }
    }
  }
}
