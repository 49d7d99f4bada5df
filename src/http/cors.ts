import type { IncomingMessage, ServerResponse } from 'node:http';
import cors, { type CorsOptions } from 'cors';
import type { CorsConfig } from '../config/cors.js';

/** Adds the CORS headers of a request, or answers its preflight; `next` routes the request on. */
export type CorsStep = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/**
 * CORS_* (config/cors.ts) with the `cors` package, as Directus 10 does, for request-door.ts:
 * every request gets its headers before anything answers it (fast-path.ts or the Express app,
 * errors included). A preflight (OPTIONS with `Origin` and `Access-Control-Request-Method`) is
 * answered here, 204; another OPTIONS gets the same headers and goes on to the routes, which
 * answer it with `Allow` (route-methods.ts). Undefined when CORS_ENABLED is false.
 */
export function corsStep(config: CorsConfig): CorsStep | undefined {
  if (!config.enabled) return undefined;
  const options: CorsOptions = {
    origin: corsOrigin(config.origin),
    methods: [...config.methods],
    allowedHeaders: [...config.allowedHeaders],
    exposedHeaders: [...config.exposedHeaders],
    credentials: config.credentials,
    maxAge: config.maxAgeSeconds,
  };
  const preflight = cors(options);
  const request = cors({ ...options, preflightContinue: true });
  return (req, res, next) => {
    const isPreflight =
      req.method === 'OPTIONS' &&
      req.headers.origin !== undefined &&
      req.headers['access-control-request-method'] !== undefined;
    (isPreflight ? preflight : request)(req, res, () => {
      next();
    });
  };
}

/**
 * The `cors` package's origin: true reflects the request's, false adds no header at all; a list
 * is checked against the request's origin, which is reflected when listed (one origin too, so
 * that another origin gets no `Access-Control-Allow-Origin`); `*` alone is any origin.
 */
function corsOrigin(origin: CorsConfig['origin']): CorsOptions['origin'] {
  if (typeof origin === 'boolean' || origin instanceof RegExp) return origin;
  if (origin.length === 1 && origin[0] === '*') return '*';
  return [...origin];
}
