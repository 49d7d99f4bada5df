import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs the examples of a page of the documentation as a reader would: the ```sh blocks with
 * the machine's bash and curl, the ```ts blocks as one program through tsx, against a test
 * server. What a page says is then what the service does (test/integration/tutorial.test.ts,
 * readme-examples.test.ts).
 */

const ROOT = new URL('../../', import.meta.url);

/** The text of a file of the repository. */
export function readDoc(path: string): string {
  return readFileSync(new URL(path, ROOT), 'utf8');
}

/** The fenced blocks of `language` in `markdown`, in order, without their fences. */
export function fencedBlocks(markdown: string, language: string): string[] {
  const blocks: string[] = [];
  const fence = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm');
  for (const match of markdown.matchAll(fence)) blocks.push(match[1] ?? '');
  return blocks;
}

/**
 * The part of `markdown` under the heading `title` (any level), up to the next heading of the
 * same level or higher: a page with a runnable guide among reference sections (docs/api.md).
 */
export function sectionOf(markdown: string, title: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^#+ /.test(line) && line.replace(/^#+ /, '') === title);
  if (start === -1) throw new Error(`no heading "${title}"`);
  const level = /^#+/.exec(lines[start] ?? '')?.[0].length ?? 1;
  let inFence = false;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (line.startsWith('```')) inFence = !inFence;
    const depth = inFence ? 0 : (/^(#+) /.exec(line)?.[1]?.length ?? 0);
    if (depth > 0 && depth <= level) {
      end = i;
      break;
    }
  }
  return lines.slice(start, end).join('\n');
}

/** What the page calls the server and the administrator's password, and what the test has instead. */
export interface Substitutions {
  readonly url: string;
  readonly adminPassword: string;
  /** More of the page's text replaced as it is met: a placeholder only known while the blocks run. */
  readonly replace?: Readonly<Record<string, string>>;
}

const PAGE_URL = 'http://localhost:8055';
const PAGE_PASSWORD = '<the password printed at the first start>';

function substitute(text: string, values: Substitutions): string {
  let result = text.replaceAll(PAGE_URL, values.url).replaceAll(PAGE_PASSWORD, values.adminPassword);
  for (const [from, to] of Object.entries(values.replace ?? {})) result = result.replaceAll(from, to);
  return result;
}

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(file: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv }) {
  return new Promise<RunResult>((resolve) => {
    execFile(file, args, { ...options, timeout: 240_000, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The blocks in order in one bash (`set -euo pipefail`), as the page's reader runs them one
 * after the other in one terminal. Each curl also gets `--fail-with-body`, so an answer of 4xx
 * or 5xx stops the run (the page writes `|| true` where it shows a refusal). A failure names
 * the block it happened in.
 */
export async function runShellBlocks(blocks: readonly string[], values: Substitutions): Promise<RunResult> {
  const script = [
    'set -euo pipefail',
    'curl() { command curl --fail-with-body --max-time 60 "$@"; }',
    ...blocks.map((block, index) => `echo '::block ${index + 1}' >&2\n${substitute(block, values)}`),
  ].join('\n');
  const result = await run('bash', ['-c', script], { env: { ...process.env } });
  if (result.code === 0) return result;
  const failed = Number(/::block (\d+)\s*(?![\s\S]*::block)/.exec(result.stderr)?.[1] ?? '0');
  throw new Error(
    `block ${failed} failed (exit ${result.code}):\n${blocks[failed - 1] ?? ''}\n--- stderr:\n${result.stderr.slice(-3000)}\n--- stdout:\n${result.stdout.slice(-3000)}`,
  );
}

/** The blocks as one program in a temporary folder (removed by `done`), imports as from the repository's root. */
function writeProgram(blocks: readonly string[], values: Substitutions): { file: string; done: () => void } {
  const source = substitute(blocks.join('\n'), values).replaceAll(
    `'./src/client/index.js'`,
    `'${fileURLToPath(new URL('src/client/index.js', ROOT))}'`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'svc-doc-example-'));
  // Bare imports (`ws`) find the repository's packages, as from its root.
  symlinkSync(fileURLToPath(new URL('node_modules', ROOT)), join(dir, 'node_modules'));
  const file = join(dir, 'example.mts');
  writeFileSync(file, source);
  return { file, done: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The blocks as one TypeScript program, run by tsx from a temporary folder: the page's
 * `./src/client/index.js` (a path from the repository's root) and bare imports such as `ws`
 * resolve as they would from the root.
 */
export async function runTypeScriptBlocks(
  blocks: readonly string[],
  values: Substitutions,
  env: Readonly<Record<string, string>> = {},
): Promise<RunResult> {
  const program = writeProgram(blocks, values);
  try {
    const result = await run(process.execPath, ['--import', 'tsx', program.file], {
      cwd: fileURLToPath(ROOT),
      env: { ...process.env, ...env },
    });
    if (result.code !== 0) {
      throw new Error(
        `the program failed (exit ${result.code}):\n--- stderr:\n${result.stderr.slice(-4000)}\n--- stdout:\n${result.stdout.slice(-2000)}`,
      );
    }
    return result;
  } finally {
    program.done();
  }
}

/** The blocks as one program, type-checked by tsc with the repository's strict options; the errors, or ''. */
export async function typeCheckTypeScriptBlocks(blocks: readonly string[]): Promise<string> {
  const program = writeProgram(blocks, { url: PAGE_URL, adminPassword: PAGE_PASSWORD });
  try {
    const tsc = fileURLToPath(new URL('node_modules/typescript/bin/tsc', ROOT));
    const options = ['--noEmit', '--strict', '--noUncheckedIndexedAccess', '--exactOptionalPropertyTypes'];
    const target = ['--target', 'es2023', '--lib', 'es2023', '--module', 'nodenext', '--moduleResolution', 'nodenext'];
    const result = await run(
      process.execPath,
      [tsc, ...options, ...target, '--verbatimModuleSyntax', '--skipLibCheck', '--types', 'node', program.file],
      { cwd: fileURLToPath(ROOT) },
    );
    return result.code === 0 ? '' : `${result.stdout}${result.stderr}`;
  } finally {
    program.done();
  }
}
