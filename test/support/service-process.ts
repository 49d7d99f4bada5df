import { spawn } from 'node:child_process';

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
