import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The mocha timeout of a test that starts processes (the service, the worker, the command
 * line): each loads its modules at start, a second on a quiet machine and far more on a busy
 * one, so these suites wait on the processes' answers, never on the default 30 s.
 */
export const PROCESS_TEST_TIMEOUT_MS = 240_000;

const ROOT = new URL('../..', import.meta.url).pathname;

/**
 * Whether dist/ was compiled after the last change to the sources a child process runs (`make
 * test` builds first): then children run the compiled files, as `make start` does, at half the
 * CPU of compiling their sources through tsx at each start.
 */
function isBuildFresh(): boolean {
  let built: number;
  try {
    built = statSync(join(ROOT, 'dist/.build-stamp')).mtimeMs;
  } catch {
    return false;
  }
  return ['src', 'catalog', 'workers'].every((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }).every(
      (file) => !file.endsWith('.ts') || statSync(join(ROOT, dir, file)).mtimeMs <= built,
    ),
  );
}

const IS_BUILD_FRESH = isBuildFresh();

/** The file a child process runs for the source `path`: its compiled file when dist/ is fresh, else the source. */
function entryOf(path: string): string {
  return IS_BUILD_FRESH ? join(ROOT, 'dist', path.replace(/\.ts$/, '.js')) : join(ROOT, path);
}

/** Node's arguments to run `entry` (after `flags`): a source goes through tsx. */
export function nodeArgsOf(entry: string, flags: readonly string[] = []): string[] {
  return [...flags, ...(entry.endsWith('.ts') ? ['--import', 'tsx'] : []), entry];
}

/** The service's entry point, run the way `make start` runs it. */
export const SERVER_ENTRY = entryOf('src/server.ts');

export interface Exited {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the service as its own process with only `env` (and PATH) and waits for it to exit
 * (a start that fails); killed after `timeoutMs` so a start that hangs fails the test.
 */
export function runUntilExit(
  env: Readonly<Record<string, string>>,
  timeoutMs = PROCESS_TEST_TIMEOUT_MS - 10_000,
): Promise<Exited> {
  const child = spawn(process.execPath, nodeArgsOf(SERVER_ENTRY), {
    env: { PATH: process.env['PATH'] ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The worker's entry point, run the way `make worker` runs it. */
export const WORKER_ENTRY = entryOf('workers/index.ts');

/** A running service or worker process. */
export interface ServiceProcess {
  /** The API's address (`http://127.0.0.1:<port>`); empty for a worker. */
  readonly url: string;
  /** The process id (for CPU and memory readings). */
  readonly pid: number;
  /** Everything it printed so far. */
  output(): string;
  /** Sends `signal` (unless it has exited already) and answers its exit code once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the API (`SERVER_ENTRY`, on 127.0.0.1 and a free port unless `env` says otherwise) or a
 * worker (`WORKER_ENTRY`, ready at its `worker ready` line) with only `env` (and PATH), logging
 * raw JSON; fails when it exits or says nothing within `timeoutMs`. `flags`: node's own (a bench
 * runs dist/ with the flags `make start` uses); a source entry runs through tsx.
 */
export async function startServiceProcess(
  entry: string,
  env: Readonly<Record<string, string>>,
  timeoutMs = 30_000,
  flags: readonly string[] = [],
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, nodeArgsOf(entry, flags), {
    env: { PATH: process.env['PATH'] ?? '', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...env, LOG_STYLE: 'raw' },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // 'close', not 'exit': its last lines may still be in the pipe when it has exited.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} did not get ready:\n${output}`));
    }, timeoutMs);
    const onData = () => {
      const port = /"port":(\d+),"msg":"listening"/.exec(output)?.[1];
      if (port === undefined && !output.includes('"msg":"worker ready"')) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      resolve(port === undefined ? '' : `http://127.0.0.1:${port}`);
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}:\n${output}`));
    });
  });
  return { url, pid: child.pid ?? 0, output: () => output, stop };
}

/** The command line's entry point (src/cli), run as `npx content-data-service ...` would run it. */
const CLI_ENTRY = entryOf('src/cli/index.ts');

/** Runs the command line with `args` in a child process, with only `env` (and PATH) set. */
export function runCli(args: readonly string[], env: Readonly<Record<string, string>>): Promise<Exited> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgsOf(CLI_ENTRY), ...args], {
      env: {
        PATH: process.env['PATH'] ?? '',
        SECRET: 'cli-secret',
        LOG_LEVEL: 'silent',
        CONFIG_PATH: '/dev/null',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
