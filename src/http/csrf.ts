import type { IncomingMessage } from 'node:http';
import type { Config } from '../config/index.js';
import { ForbiddenError } from '../errors.js';

/**
 * The cross-site request forgery check of requests the session cookie authenticates
 * (request-pipeline.ts, once per request, for the fast answers and the Express app alike).
 * A browser sends the cookie with whatever another page makes it send: a form posting to
 * /utils/import or /files, a `fetch` with `mode: 'no-cors'`. So a request that changes
 * something (any method but GET, HEAD and OPTIONS) and is authenticated by the cookie, not by
 * a token it carries itself (`Authorization: Bearer`, `access_token`), must say it comes from
 * this service's own origin, or from an origin the CORS settings trust with credentials:
 * - `Sec-Fetch-Site: same-origin` (or `none`, the user's own action) passes;
 * - otherwise its `Origin` must be this service's: the request's own `Host`, or PUBLIC_URL's
 *   origin when PUBLIC_URL is absolute (behind a proxy that rewrites `Host`), or one of
 *   CORS_ORIGIN's listed origins (or its `regex:`) when CORS_ENABLED and CORS_CREDENTIALS are on.
 *   `CORS_ORIGIN=true` (any origin) and `*` trust no one with the cookie;
 * - `same-site` (a sibling subdomain) is foreign like `cross-site`: same site is not same origin;
 * - a request with neither header (curl, a server-side client) is not a browser's and passes.
 * Anything else is 403 FORBIDDEN, naming the reason, before the request is read further.
 */
export function refuseForeignCookieRequest(config: Config, req: IncomingMessage): void {
  if (SAFE_METHODS.has((req.method ?? 'GET').toUpperCase())) return;
  const fetchSite = headerValue(req.headers['sec-fetch-site'])?.toLowerCase();
  if (fetchSite === 'same-origin' || fetchSite === 'none') return;
  const origin = headerValue(req.headers.origin);
  if (origin === undefined) {
    if (fetchSite === undefined) return;
    throw crossOrigin(`Sec-Fetch-Site is "${fetchSite}" and the request has no Origin`);
  }
  if (isTrustedOrigin(config, req, origin)) return;
  throw crossOrigin(
    fetchSite === 'same-site'
      ? 'its Origin is another origin of the same site, not this service nor an allowed CORS origin'
      : 'its Origin is not this service nor an allowed CORS origin',
  );
}

/** FORBIDDEN, saying why: a misconfigured app can tell this refusal from a permission's. */
function crossOrigin(reason: string): ForbiddenError {
  return new ForbiddenError({
    message: `Cross-origin request refused: a change authenticated by the session cookie must come from this service's own origin or an allowed CORS origin (${reason}).`,
  });
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function headerValue(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first.trim() === '' ? undefined : first.trim();
}

function isTrustedOrigin(config: Config, req: IncomingMessage, origin: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    // `null` (a sandboxed frame, a redirect across origins) and anything malformed.
    return false;
  }
  if (parsed.origin === 'null') return false;
  const host = headerValue(req.headers.host)?.toLowerCase();
  if (host !== undefined && parsed.host === host) return true;
  if (parsed.origin === publicOrigin(config.publicUrl)) return true;
  return isCorsTrusted(config.cors, parsed.origin);
}

function publicOrigin(publicUrl: string): string | undefined {
  try {
    return new URL(publicUrl).origin;
  } catch {
    return undefined;
  }
}

function isCorsTrusted(cors: Config['cors'], origin: string): boolean {
  if (!cors.enabled || !cors.credentials) return false;
  const allowed = cors.origin;
  if (typeof allowed === 'boolean') return false;
  if (allowed instanceof RegExp) return allowed.test(origin);
  return allowed.some((listed) => listed !== '*' && listed.replace(/\/+$/, '').toLowerCase() === origin);
}
