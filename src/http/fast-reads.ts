import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { authenticate } from '../auth/authenticate.js';
import { dialectOf } from '../db/index.js';
import { parseQuery, parseQueryString, readerOf } from '../query/index.js';
import { authLookups, bearerToken } from './accountability.js';
import type { AppDeps } from './app.js';
import { toCollectionName } from './collection-name.js';
import { ENVELOPE_HEADERS } from './envelope-headers.js';
import { readContext } from './read-context.js';
import { databaseEnvelope } from './routes/items-read.js';

/** Headers that ask for more than a plain read: conditional requests, a body, a proxy's view. */
const EXPRESS_HEADERS = ['if-none-match', 'if-modified-since', 'content-length', 'transfer-encoding', 'x-forwarded-for'] as const;

type EtagOf = (body: string, encoding: BufferEncoding) => string | undefined;

/**
 * The HTTP server's request listener: `GET /items/:collection[/:id]` that the database writes
 * as JSON (routes/items-read.ts, databaseEnvelope) is answered here, everything else by the
 * Express app. Express's routing and the middleware in front of the read route cost about as
 * much CPU as the read itself (bench/README.md, Reads); here the same steps run directly:
 * the token through `authenticate`, the query through `parseQuery`, the read through
 * `databaseEnvelope`, and the response gets Express's headers and ETag.
 *
 * Only where nothing Express adds could change the answer: PostgreSQL, no request logging,
 * no data cache, no rate limiter (decided once), and per request no cookie or query-string
 * token, no conditional or proxied request, no body. A read that is not plain, or that fails
 * in any way, goes to the Express app untouched, which answers it from the start (reads change
 * nothing), errors included: there is one error path.
 */
export function requestListener(app: Express, deps: AppDeps): RequestListener {
  const { config, logger } = deps;
  const usable =
    dialectOf(deps.db) === 'pg' &&
    !logger.isLevelEnabled('info') &&
    !config.cache.enabled &&
    !config.rateLimiter.enabled &&
    !config.rateLimiter.global.enabled;
  if (!usable) return app;
  const lookups = authLookups(deps.permissions, deps.schema, deps.auth.staticTokens);
  const etagOf = app.get('etag fn') as EtagOf | undefined;
  const customIpHeader = config.ipCustomHeader === false ? undefined : config.ipCustomHeader.toLowerCase();

  /** The envelope of a plain read, or null for Express to answer. */
  async function read(req: IncomingMessage): Promise<string | null> {
    const url = req.url ?? '';
    const queryStart = url.indexOf('?');
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    const search = queryStart === -1 ? '' : url.slice(queryStart);
    const [, , rawCollection, rawId, ...rest] = path.split('/');
    if (rawCollection === undefined || rawCollection === '' || rawId === '' || rest.length > 0) return null;
    if (search.includes('access_token') && new URLSearchParams(search).has('access_token')) return null;
    const headers = req.headers;
    if (headers.authorization === undefined && headers.cookie !== undefined) return null;
    const customIp = customIpHeader === undefined ? undefined : headers[customIpHeader];
    if (Array.isArray(customIp)) return null;
    const accountability = await authenticate(
      deps.db,
      config.secret,
      bearerToken(headers.authorization),
      { ip: customIp ?? req.socket.remoteAddress ?? null, userAgent: headers['user-agent'] ?? null, origin: headers.origin ?? null },
      lookups,
    );
    const ctx = await readContext(deps);
    const reader = await readerOf(deps, ctx.overview, accountability);
    const collection = toCollectionName(decodeURIComponent(rawCollection));
    const id = rawId === undefined ? undefined : decodeURIComponent(rawId);
    return databaseEnvelope(ctx, reader, collection, parseQuery(parseQueryString(search)), id);
  }

  function respond(res: ServerResponse, body: string): void {
    const headers: Record<string, string | number> = {
      ...ENVELOPE_HEADERS,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
    };
    const etag = etagOf?.(body, 'utf8');
    if (etag !== undefined) headers['ETag'] = etag;
    res.writeHead(200, headers).end(body);
  }

  return (req, res) => {
    if (req.method !== 'GET' || !req.url?.startsWith('/items/') || EXPRESS_HEADERS.some((h) => req.headers[h] !== undefined)) {
      app(req, res);
      return;
    }
    read(req).then(
      (body) => {
        if (body === null) app(req, res);
        else respond(res, body);
      },
      () => app(req, res),
    );
  };
}
