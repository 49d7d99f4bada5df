import express, { Router, type RequestHandler } from 'express';
import { existsSync } from 'node:fs';
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
 * Only this origin: no inline script or style, no CDN. GraphiQL's stylesheet embeds its fonts
 * and icons as data: URLs; downloads are blob: URLs.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

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
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index, (error) => {
      if (error !== undefined && !res.headersSent) next(error);
    });
  });
  return router;
}
