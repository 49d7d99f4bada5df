/**
 * What a job is and where it goes: the contract the two queues keep (job-queue.ts: bull with
 * Redis, or the handlers in this process without it) and the handlers rely on. Apart from the
 * queues, so a handler (an export run by the command line) does not load bull.
 */

/** One run of a job, as its handler sees it. */
export interface JobRun {
  readonly id: string;
  /** 1 on the first try; each retry, after a failure or after its worker died, counts one more. */
  readonly attempt: number;
  readonly attempts: number;
  /**
   * Aborted when the worker stops (SIGTERM): the handler stops at its next safe point (an
   * export: after its current batch) by throwing the signal's reason, a {@link JobStopped}.
   */
  readonly signal?: AbortSignal;
}

/** The reason of an aborted {@link JobRun.signal}: whether anything runs the job again. */
export class JobStopped extends Error {
  constructor(readonly isRetried: boolean) {
    super(isRetried ? 'the worker is stopping: the job runs again' : 'the server stopped before the job finished');
  }
}

/** Does the work of one kind of job; a throw fails the attempt (retried until `attempts`). */
export type JobHandler = (data: unknown, run: JobRun) => Promise<void>;

/** Where jobs go: bull with Redis, or straight to the handlers in this process without it. */
export interface JobQueue {
  /**
   * Enqueues job `name` under `id` (an id already queued is not queued twice); `attempts`:
   * its tries, when not JOBS_ATTEMPTS (bull alone: the in-process runner's retries wait in
   * line, holding every job behind them, so it keeps JOBS_ATTEMPTS).
   */
  add(name: string, id: string, data: unknown, options?: AddOptions): Promise<void>;
  /**
   * The same as {@link add} at a third of the caller's cost: with Redis one command hands the
   * job to the workers, which add it to the queue in the order it was posted (posted-jobs.ts).
   * For a caller on a request's path; the job is in the queue once a worker runs.
   */
  post(name: string, id: string, data: unknown, options?: AddOptions): Promise<void>;
  /**
   * Runs job `name` every `everyMs` from now on, once per period across every instance
   * (bull's repeatable jobs share one schedule in Redis, whoever adds it; the in-process
   * runner has this process alone). Adding the same schedule again changes nothing.
   */
  repeat(name: string, everyMs: number): Promise<void>;
  /** Stops taking jobs; the in-process runner lets the current one finish first (up to `timeoutMs`). */
  close(timeoutMs?: number): Promise<void>;
  /** Jobs waiting and running now (the metrics' queue depth); rejects when Redis does not answer. */
  depth(): Promise<JobDepth>;
  /**
   * The jobs some worker runs now (bull's active list, every worker's; the in-process runner's
   * one): what a job taken after them may have to wait for before they record anything.
   */
  running(): Promise<readonly RunningJob[]>;
}

export interface RunningJob {
  readonly name: string;
  readonly data: unknown;
}

export interface AddOptions {
  readonly attempts?: number;
}

export interface JobDepth {
  readonly waiting: number;
  readonly active: number;
  readonly delayed: number;
}
