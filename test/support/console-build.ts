import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildConsole, CONSOLE_OUT } from '../../src/console/build.js';

const ROOT = resolve(import.meta.dirname, '../..');
/** What the console's bundle is made of: a change to any of it rebuilds. */
const INPUTS = [join(ROOT, 'src/console'), join(ROOT, 'src/client'), join(ROOT, 'package-lock.json')];

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

function builtAt(): number {
  try {
    return statSync(join(CONSOLE_OUT, 'index.html')).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Builds dist/console (src/console/build.ts) when it is missing or older than its sources, as
 * `make build` does; suites that load the console call it in `before`.
 */
export async function ensureConsoleBuilt(): Promise<void> {
  if (builtAt() >= Math.max(...INPUTS.map(newestChange))) return;
  await buildConsole();
}
