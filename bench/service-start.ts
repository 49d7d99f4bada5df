import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  SERVER_ENTRY,
  startServiceProcess,
  WORKER_ENTRY,
  type ServiceProcess,
} from '../test/support/service-process.js';

/**
 * The start-up the benchmarks that run the service as its own processes share (realtime.ts,
 * flows.ts): the processes as `make start` runs them, the database they use, the
 * administrator's calls that set up their collections, and the processes' CPU and memory.
 */

const MAKEFILE = readFileSync(new URL('../Makefile', import.meta.url), 'utf8');
const ENTRIES = {
  api: {
    built: new URL('../dist/src/server.js', import.meta.url).pathname,
    source: SERVER_ENTRY,
    flags: 'API_NODE_FLAGS',
  },
  worker: {
    built: new URL('../dist/workers/index.js', import.meta.url).pathname,
    source: WORKER_ENTRY,
    flags: 'WORKER_NODE_FLAGS',
  },
} as const;

/** A variable of the Makefile's (`NAME ?= ...`) as node flags: API_NODE_FLAGS, WORKER_NODE_FLAGS. */
export function makefileFlags(name: string): string[] {
  return (new RegExp(`^${name} \\?= (.+)$`, 'm').exec(MAKEFILE)?.[1] ?? '').split(' ').filter((f) => f !== '');
}

/**
 * The API or the worker as `make start` runs it: dist/ (`make build` first) with the Makefile's
 * API_NODE_FLAGS / WORKER_NODE_FLAGS; from source through tsx when there is no build (slower to
 * start: `sourceTimeoutMs`).
 */
export function startBenchProcess(
  kind: keyof typeof ENTRIES,
  env: Readonly<Record<string, string>>,
  timeouts: { readonly builtMs: number; readonly sourceMs: number },
): Promise<ServiceProcess> {
  const entry = ENTRIES[kind];
  return existsSync(entry.built)
    ? startServiceProcess(entry.built, env, timeouts.builtMs, makefileFlags(entry.flags))
    : startServiceProcess(entry.source, env, timeouts.sourceMs);
}

/** The DB_* of the environment, or without DB_CLIENT a SQLite file `name` in `dir`. */
export function benchDatabaseEnv(dir: string, name: string): Record<string, string> {
  return process.env['DB_CLIENT'] === undefined
    ? { DB_FILENAME: join(dir, name) }
    : Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('DB_')));
}

/** A call as the administrator (`token`): the answer's `data`; a status of 300 or more throws. */
export async function adminCall(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text === '' ? undefined : (JSON.parse(text) as { data: unknown }).data;
}

/**
 * A process's memory (resident now, and its peak) and the CPU it has used, from /proc: the sum of
 * its threads' time on a CPU in ns (schedstat), where /proc/PID/stat counts user + system in
 * 10 ms ticks (too coarse for a chunk of ten writes at a few ms each); the ticks on a kernel
 * without schedstat.
 */
export function processStat(pid: number): { rssMb: number; hwmMb: number; cpuMs: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024, cpuMs: threadsCpuMs(pid) ?? ticksCpuMs(pid) };
}

/**
 * Runs `load` (an autocannon run) and answers its result with `pid`'s CPU milliseconds per
 * request over it ({@link processStat}); undefined without a pid.
 */
export async function withCpuPerRequest<T extends { readonly requests: { readonly total: number } }>(
  pid: number | undefined,
  load: () => Promise<T>,
): Promise<{ result: T; cpuMs: number | undefined }> {
  if (pid === undefined) return { result: await load(), cpuMs: undefined };
  const before = processStat(pid).cpuMs;
  const result = await load();
  return { result, cpuMs: (processStat(pid).cpuMs - before) / Math.max(1, result.requests.total) };
}

const hasSchedstat = existsSync('/proc/self/schedstat');

function threadsCpuMs(pid: number): number | undefined {
  if (!hasSchedstat) return undefined;
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended since the listing.
    }
  }
  return ns / 1e6;
}

function ticksCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(stat[11]) + Number(stat[12])) * 1000) / 100;
}
