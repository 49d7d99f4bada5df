/**
 * Builds the web console into dist/console (served at /admin by src/http/console.ts):
 * app.js + app.css from main.ts (the console, plain DOM over src/client), graphiql.js +
 * graphiql.css (GraphiQL and React, loaded only by /admin/graphql), and index.html.
 * Run: `node --import tsx src/console/build.ts [outdir]`. No source maps, minified.
 */
import { build } from 'esbuild';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const CONSOLE_SOURCE = HERE;
export const CONSOLE_OUT = resolve(HERE, '../../dist/console');

/** Builds the console into `outdir` (default dist/console), replacing what was there. */
export async function buildConsole(outdir: string = CONSOLE_OUT): Promise<void> {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  await build({
    entryPoints: { app: join(HERE, 'main.ts'), graphiql: join(HERE, 'graphiql.tsx') },
    outdir,
    bundle: true,
    splitting: false,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    minify: true,
    jsx: 'automatic',
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    loader: { '.woff2': 'dataurl', '.svg': 'dataurl' },
    logLevel: 'warning',
  });
  await copyFile(join(HERE, 'index.html'), join(outdir, 'index.html'));
  await copyFile(join(HERE, 'app.css'), join(outdir, 'app.css'));
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildConsole(process.argv[2] === undefined ? CONSOLE_OUT : resolve(process.argv[2]));
}
