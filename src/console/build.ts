/**
 * Builds the web console (the Studio) into dist/console, served at /admin by src/http/console.ts:
 * app.js (from main.tsx: React, react-admin, MUI) with its code-split chunks under chunks/,
 * graphiql.js + graphiql.css (GraphiQL, loaded only by /admin/graphql), app.css and index.html.
 * Fails when the initial bundle (app.js and the chunks it imports statically, plus app.css,
 * gzipped) is over INITIAL_BUDGET: docs/console.md says why that figure.
 * Run: `node --import tsx src/console/build.ts [outdir]`. No source maps, minified.
 */
import { build, type Metafile } from 'esbuild';
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const HERE = dirname(fileURLToPath(import.meta.url));
export const CONSOLE_SOURCE = HERE;
export const CONSOLE_OUT = resolve(HERE, '../../dist/console');

/** The initial bundle's budget, gzipped bytes (docs/console.md). */
export const INITIAL_BUDGET = 400 * 1024;

/** Builds the console into `outdir` (default dist/console), replacing what was there; returns the initial size. */
export async function buildConsole(outdir: string = CONSOLE_OUT): Promise<number> {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const result = await build({
    entryPoints: { app: join(HERE, 'main.tsx'), graphiql: join(HERE, 'graphiql.tsx') },
    outdir,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    minify: true,
    jsx: 'automatic',
    legalComments: 'none',
    metafile: true,
    define: { 'process.env.NODE_ENV': process.env['CONSOLE_DEV'] === '1' ? '"development"' : '"production"' },
    loader: { '.woff2': 'dataurl', '.svg': 'dataurl' },
    logLevel: 'warning',
  });
  await copyFile(join(HERE, 'index.html'), join(outdir, 'index.html'));
  await copyFile(join(HERE, 'app.css'), join(outdir, 'app.css'));
  const size = await initialSize(result.metafile, outdir);
  if (size > INITIAL_BUDGET && process.env['CONSOLE_DEV'] !== '1') {
    throw new Error(
      `The console's initial bundle is ${kib(size)} gzipped, over its budget of ${kib(INITIAL_BUDGET)} (src/console/build.ts, docs/console.md)`,
    );
  }
  return size;
}

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

/** Gzipped bytes of what the first page load fetches: app.js, its static imports, app.css. */
async function initialSize(metafile: Metafile, outdir: string): Promise<number> {
  const cwd = process.cwd();
  const key = (file: string) => relative(cwd, join(outdir, file)).split('\\').join('/');
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const imported of metafile.outputs[path]?.imports ?? [])
      if (imported.kind === 'import-statement') visit(imported.path);
  };
  visit(key('app.js'));
  let total = gzipSync(await readFile(join(outdir, 'app.css'))).length;
  for (const path of seen) total += gzipSync(await readFile(resolve(cwd, path))).length;
  return total;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const size = await buildConsole(process.argv[2] === undefined ? CONSOLE_OUT : resolve(process.argv[2]));
  console.log(`console: initial bundle ${kib(size)} gzipped (budget ${kib(INITIAL_BUDGET)})`);
}
