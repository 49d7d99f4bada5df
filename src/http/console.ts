import express, { Router, type RequestHandler } from 'express';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServiceUnavailableError } from '../errors.js';

/**
 * Where the console's build lands (src/console/build.ts): dist/console at the project root,
 * found from this file in both src/http (tsx) and dist/src/http (compiled).
 */
function consoleDirectory(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'dist', 'console');
}

/**
 * Only this origin: no inline script, no CDN. GraphiQL's stylesheet embeds its fonts and icons
 * as data: URLs; downloads are blob: URLs. The Studio's component library (MUI, through
 * emotion) injects <style> elements: index.html's answer allows those carrying its own nonce
 * (`consoleCsp(nonce)`), nothing else inline.
 */
export const CONSOLE_CSP = consoleCsp();

/** The CSP, with `nonce` allowed for style elements (index.html's answers). */
function consoleCsp(nonce?: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    nonce === undefined ? "style-src 'self'" : `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Where index.html takes each answer's nonce (a meta the Studio reads for its style elements). */
const NONCE_PLACEHOLDER = '__CSP_NONCE__';

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  // Mailed links carry their token in the query string: it never leaves in a Referer.
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/**
 * GET /admin/*: the web console's static files (dist/console), revalidated on every use
 * (`no-cache` + ETag: the names carry no hash), and index.html for every other path without a
 * file extension, so the console's own routes (and the mailed links) load the app. A missing
 * build answers 503 saying how to build it.
 */
export function consoleRoutes(directory: string = consoleDirectory()): Router {
  const router = Router();
  const index = resolve(directory, 'index.html');
  const headers: RequestHandler = (_req, res, next) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    next();
  };
  router.use(headers);
  router.use(
    express.static(directory, {
      index: false,
      redirect: false,
      fallthrough: true,
      setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
    }),
  );
  router.get('/{*path}', (req, res, next) => {
    // A name with an extension is a file, and this one is not there.
    if (/\.[^/]*$/.test(req.path)) {
      next();
      return;
    }
    if (!existsSync(index)) {
      next(new ServiceUnavailableError('console', 'The console is not built: run `make build`'));
      return;
    }
    // A fresh nonce for each answer: the page's style elements carry it, nothing else may.
    const nonce = randomBytes(16).toString('base64');
    readFile(index, 'utf8').then(
      (html) => {
        res.setHeader('Cache-Control', 'no-store');
        res.setHeader('Content-Security-Policy', consoleCsp(nonce));
        res.type('html').send(html.replaceAll(NONCE_PLACEHOLDER, nonce));
      },
      (error: unknown) => {
        next(error);
      },
    );
  });
  return router;
}
