import type { Request, RequestHandler, Response } from 'express';
import { dataCacheKey, type CacheLookup, type DataCache } from '../cache/data-cache.js';
import type { SchemaCache } from '../cache/schema-cache.js';
import type { Config } from '../config/index.js';
import { requestOverview } from './request-overview.js';

export interface ResponseCacheDeps {
  readonly config: Config;
  readonly schema: SchemaCache;
  /** Undefined when CACHE_ENABLED is off: no middleware at all. */
  readonly dataCache: DataCache | undefined;
}

/** Responses a route knows must not be stored (a GraphQL mutation, a result with errors). */
const uncacheable = new WeakSet<Response>();

/** Keeps this response out of the data cache whatever its status. */
export function skipResponseCache(res: Response): void {
  uncacheable.add(res);
}

/**
 * Collections whose reads never go through the data cache: the journal is where job progress
 * (export rows of svc_activity) and the audit trail are read, and both must be current, which
 * CACHE_AUTO_PURGE_IGNORE_LIST (svc_activity by default) would otherwise prevent.
 */
export const UNCACHED_COLLECTIONS: ReadonlySet<string> = new Set(['svc_activity', 'svc_revisions']);

/**
 * The data cache around GET reads: a hit answers at once with
 * the stored status, content type and body; a miss runs the route and stores its answer when
 * it is a 200 JSON body without cookies or attachment, within CACHE_VALUE_MAX_SIZE. Streamed
 * bodies (`limit=-1`) are stored only when CACHE_VALUE_MAX_SIZE bounds what is held back.
 * The key is the method, the full URL, the caller (user, role, admin, app) and the schema
 * version, so schema and permission changes never meet old entries. Reads of
 * {@link UNCACHED_COLLECTIONS} (`collectionOf` the request) always run.
 */
export function cacheReads(deps: ResponseCacheDeps, collectionOf: (req: Request) => string): RequestHandler[] {
  return cacheResponses(deps, (req) =>
    req.method === 'GET' && !UNCACHED_COLLECTIONS.has(collectionOf(req)) ? [] : undefined,
  );
}

/**
 * The same for GraphQL (GET or JSON POST): the key adds the document, variables, operation name
 * and Accept (it picks the response type). The route marks mutations and results with errors
 * with {@link skipResponseCache}; a document sent as `application/graphql` is not cached.
 */
export function cacheGraphql(deps: ResponseCacheDeps): RequestHandler[] {
  return cacheResponses(deps, (req) => {
    const accept = req.get('accept') ?? null;
    if (req.method === 'GET') return [accept];
    if (req.method !== 'POST' || typeof req.body !== 'object' || req.body === null) return undefined;
    const { query, variables, operationName } = req.body as Record<string, unknown>;
    return [accept, query ?? null, variables ?? null, operationName ?? null];
  });
}

/** `extraKey`: what else the answer depends on, or undefined when the request is not cached. */
function cacheResponses(
  deps: ResponseCacheDeps,
  extraKey: (req: Request) => readonly unknown[] | undefined,
): RequestHandler[] {
  const { dataCache, config } = deps;
  if (dataCache === undefined) return [];
  return [
    async (req, res, next) => {
      const extra = extraKey(req);
      if (extra === undefined) {
        next();
        return;
      }
      if (config.cache.skipAllowed && req.get('cache-control')?.includes('no-store') === true) {
        res.setHeader('Cache-Control', 'no-store');
        next();
        return;
      }
      const { user, role, admin, app } = req.accountability;
      const { version } = await requestOverview(req, deps.schema);
      const lookup = await dataCache.lookup(
        dataCacheKey([version, req.method, req.originalUrl, user, role, admin, app, ...extra]),
      );
      const { hit } = lookup;
      if (hit !== undefined) {
        res.status(hit.status).setHeader('Content-Type', hit.contentType);
        res.setHeader('Cache-Control', cacheControl(config, req, hit.expiresAt - Date.now()));
        // send(): ETag and 304 for a client that has this answer already, as on a miss.
        res.send(hit.body);
        return;
      }
      storeOnEnd(req, res, lookup, deps);
      next();
    },
  ];
}

/**
 * Directus's Cache-Control of cached reads: `no-cache` when CACHE_AUTO_PURGE may drop the entry
 * at any moment, else `public` (no caller) or `private`, `max-age` = the entry's remaining TTL,
 * and `s-maxage` per CACHE_CONTROL_S_MAXAGE.
 */
function cacheControl(config: Config, req: Request, ttlMs: number): string {
  if (config.cache.autoPurge) return 'no-cache';
  const { user, role } = req.accountability;
  const seconds = Math.max(0, Math.round(ttlMs / 1000));
  const sMaxAge = config.cache.controlSMaxAge;
  const shared = sMaxAge === false ? '' : `, s-maxage=${sMaxAge === true ? seconds : sMaxAge}`;
  return `${user === null && role === null ? 'public' : 'private'}, max-age=${seconds}${shared}`;
}

const CACHED_TYPES = /^application\/(json|graphql-response\+json)\b/;

/**
 * Collects the body as the route sends it and, when the answer may be kept, stores it before
 * the response ends (so the next identical read is a hit).
 */
function storeOnEnd(req: Request, res: Response, lookup: CacheLookup, deps: ResponseCacheDeps): void {
  const { valueMaxSize } = deps.config.cache;
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  const chunks: Buffer[] = [];
  let size = 0;
  let isKept = true;
  const collect = (chunk: unknown, encoding: unknown) => {
    if (!isKept || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const buffer =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size > (valueMaxSize ?? Infinity)) {
      isKept = false;
      chunks.length = 0;
    } else chunks.push(buffer);
  };

  res.write = ((...args: unknown[]) => {
    // Held back for the cache only while CACHE_VALUE_MAX_SIZE bounds it: streams keep memory flat.
    if (valueMaxSize === undefined) isKept = false;
    collect(args[0], args[1]);
    return write(...args);
  }) as Response['write'];

  res.end = ((...args: unknown[]) => {
    res.write = write as Response['write'];
    res.end = end as Response['end'];
    collect(args[0], args[1]);
    if (!isKept || !isStorable(res)) return end(...args);
    if (!res.headersSent) res.setHeader('Cache-Control', cacheControl(deps.config, req, deps.dataCache?.ttlMs ?? 0));
    const response = {
      status: res.statusCode,
      contentType: String(res.getHeader('content-type')),
      body: Buffer.concat(chunks).toString('utf8'),
    };
    void lookup.store(response).finally(() => end(...args));
    return res;
  }) as Response['end'];
}

function isStorable(res: Response): boolean {
  return (
    res.statusCode === 200 &&
    !uncacheable.has(res) &&
    CACHED_TYPES.test(String(res.getHeader('content-type') ?? '')) &&
    res.getHeader('content-disposition') === undefined &&
    res.getHeader('set-cookie') === undefined
  );
}
