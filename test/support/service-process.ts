import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/** The service's entry point, run the way `make start` runs it (from source through tsx). */
export const SERVER_ENTRY = new URL('../../src/server.ts', import.meta.url).pathname;

export interface Exited {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the service as its own process with only `env` (and PATH) and waits for it to exit
 * (a start that fails); killed after `timeoutMs` so a start that hangs fails the test.
 */
export function runUntilExit(env: Readonly<Record<string, string>>, timeoutMs = 30_000): Promise<Exited> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER_ENTRY], {
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

export interface StartedProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly output: () => string;
  readonly port: number;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Runs the service the way `make start` does (one process, real environment) on a random
 * loopback port, and waits for its "listening" line (raw logs).
 */
export async function startServiceProcess(env: Readonly<Record<string, string>>): Promise<StartedProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER_ENTRY], {
    env: { PATH: process.env['PATH'] ?? '', HOST: '127.0.0.1', PORT: '0', LOG_STYLE: 'raw', ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line:\n${output}`)), 20_000);
    const onData = () => {
      const match = /"port":(\d+),"msg":"listening"/.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${output}`));
    });
  });
  return {
    child,
    output: () => output,
    port,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
