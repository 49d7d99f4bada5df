import type { EnvReader } from './env-reader.js';

/** FLOWS_*: issue 44, flows (src/flows). */
export interface FlowsConfig {
  /** FLOWS_ENV_ALLOW_LIST: the environment variables a flow may read as `$env`. */
  readonly envAllowList: readonly string[];
  /** Operations one run may take (a chain that loops stops here, with the reason in its log). */
  readonly maxSteps: number;
  /** How deep `trigger` operations may nest flows within flows. */
  readonly maxDepth: number;
  /** How long a blocking (filter) flow may hold the write it runs before. */
  readonly filterTimeoutMs: number;
  /** Time and size limits of the `request` operation. */
  readonly requestTimeoutMs: number;
  readonly requestMaxSize: number;
  /** The longest `sleep` an operation may ask for. */
  readonly sleepMaxMs: number;
  /** FLOWS_CONCURRENCY: queued runs one process runs at once. */
  readonly concurrency: number;
  /**
   * FLOWS_RETRY_ATTEMPTS: tries of a queued run of a `retry` flow (a webhook's delivery), apart
   * from JOBS_ATTEMPTS (an export retried ten times is waste): with the queue's backoff (1, 3,
   * 7 s... apart) ten tries span 17 minutes, so a receiver down for ten minutes gets it.
   */
  readonly retryAttempts: number;
  /** FLOWS_LOG_RETENTION: runs' log rows older than this are deleted; null keeps them. */
  readonly logRetentionMs: number | null;
  /** FLOWS_EXEC_ALLOWED: whether the `exec` (Run Script) operation may be saved and run. */
  readonly execAllowed: boolean;
  /** FLOWS_RUN_SCRIPT_MAX_MEMORY (MB) and FLOWS_RUN_SCRIPT_TIMEOUT (ms): one `exec` script's isolate. */
  readonly runScriptMaxMemoryMb: number;
  readonly runScriptTimeoutMs: number;
}

/** FLOWS_*. */
export function readFlowsConfig(env: EnvReader): FlowsConfig {
  return {
    envAllowList: env.list('FLOWS_ENV_ALLOW_LIST', []),
    maxSteps: env.int('FLOWS_MAX_STEPS', 100, { min: 1 }),
    maxDepth: env.int('FLOWS_MAX_DEPTH', 5, { min: 1 }),
    filterTimeoutMs: env.duration('FLOWS_FILTER_TIMEOUT', '5s'),
    requestTimeoutMs: env.duration('FLOWS_REQUEST_TIMEOUT', '10s'),
    requestMaxSize: env.size('FLOWS_REQUEST_MAX_SIZE', '1mb'),
    sleepMaxMs: env.duration('FLOWS_SLEEP_MAX', '1m'),
    concurrency: env.int('FLOWS_CONCURRENCY', 10, { min: 1 }),
    retryAttempts: env.int('FLOWS_RETRY_ATTEMPTS', 10, { min: 1 }),
    logRetentionMs: env.raw('FLOWS_LOG_RETENTION') === undefined ? null : env.duration('FLOWS_LOG_RETENTION', 0),
    execAllowed: env.bool('FLOWS_EXEC_ALLOWED', false),
    // isolated-vm's smallest isolate is 8 MB.
    runScriptMaxMemoryMb: env.int('FLOWS_RUN_SCRIPT_MAX_MEMORY', 32, { min: 8 }),
    runScriptTimeoutMs: env.duration('FLOWS_RUN_SCRIPT_TIMEOUT', 10_000),
  };
}
