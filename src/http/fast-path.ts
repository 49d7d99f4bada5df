import { hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, RequestHandler } from 'express';
import { databaseDialectOf } from '../db/dialects/index.js';
import { FILES_COLLECTION } from '../files/file-library.js';
import type { AppDeps } from './app.js';
import { jsonParser } from './body.js';
import { toCollectionName } from './collection-name.js';
import { errorAnswer } from './error-handler.js';
import { checkIdempotencyKey, sendReplay } from './idempotency.js';
import { setRoute } from './metrics.js';
import { authenticateRequest, mayNameParameter, requestParams, requestQuery } from './request-pipeline.js';
import { plainEnvelope, readService } from './routes/items-read.js';
import { graphqlEndpointOf, plainQueryText, type GraphqlEndpoint } from './routes/graphql.js';
import type { Accountability } from '../access/accountability.js';
import { ITEM_WRITES, type ItemWrite } from './routes/item-writes.js';
import { decodePathSegment } from './url-path.js';

/** Headers that ask for more than Express's plain answer: conditional requests. */
const EXPRESS_HEADERS = ['if-none-match', 'if-modified-since'] as const;
/** A read with a body is not plain either. */
const BODY_HEADERS = ['content-length', 'transfer-encoding'] as const;
/** `application/json` and `application/*+json`, the types body.ts parses as JSON. */
const JSON_TYPE = /^application\/(?:[^;\s]*\+)?json\s*(?:;|$)/i;

/**
 * Express's ETag of a body as its `etag` setting makes it (express/lib/utils.js compileETag),
 * taken from the text itself and its UTF-8 length, counted once for the tag and the
 * Content-Length: the etag package's tag (a SHA-1 of the UTF-8 bytes, base64, 27 characters,
 * after the length in hex), which Express makes of the Buffer it copies the text into. No such
 * copy here: a Buffer per answer is memory outside the heap that makes the collector run, a third
 * of a list of 100's CPU (bench/README.md); and one hash call, not a Hash object per answer.
 */
function etagOfSetting(setting: unknown): ((body: string, length: number) => string) | undefined {
  if (setting === false) return undefined;
  if (typeof setting === 'function')
    return (body) => (setting as (body: string, encoding: string) => string)(body, 'utf8');
  const prefix = setting === 'strong' ? '"' : 'W/"';
  return (body, length) => `${prefix}${length.toString(16)}-${hash('sha1', body, 'base64').slice(0, 27)}"`;
}

/** `/items/:collection[/:id]`: the collection's name resolved, the id decoded. */
interface ItemsPath {
  readonly collection: string;
  readonly id: string | undefined;
  readonly path: string;
}

/** Answers a request before Express, or returns false for Express to answer it. */
export type FastAnswer = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The answers given before Express (request-door.ts runs them after its arrival steps): plain
 * reads and writes of `/items/:collection[/:id]`. Express's routing and the middleware in front
 * of the item routes cost about as much CPU as a read or write itself (bench/README.md); here
 * the route's own implementation runs directly, with the same headers and ETag, after the
 * same steps as Express's (request-pipeline.ts: the caller, the query), done once per request.
 *
 * Only where nothing Express adds could change the answer: no rate limiter (decided once); per
 * request no conditional request and no history read (`as_of`, `version`).
 * - Reads (PostgreSQL, no data cache, no body): the route's `plainEnvelope`, through the items
 *   service (its read events run once; a failed read's run again in Express). A read that
 *   fails in any way goes to the Express app, which answers it from the start (reads change
 *   nothing) with the steps' results kept: errors have one path.
 * - Writes (JSON bodies): `ITEM_WRITES`, the routes' own handlers, and the one body parser
 *   (body.ts). The body is read here, so a failure is answered here, through the error
 *   handler's `errorAnswer`.
 * Undefined when nothing may be answered before Express (rate limiters on; server.ts does not
 * ask when an extension's init handler puts something before the routes).
 */
export function fastAnswers(app: Express, deps: AppDeps, isLogged: boolean): FastAnswer | undefined {
  const { config, logger } = deps;
  if (config.rateLimiter.enabled || config.rateLimiter.global.enabled) return undefined;
  // Reads the database writes as JSON (plainEnvelope); others would be handed over every time.
  const readsHere = databaseDialectOf(deps.db).writesJsonOutput && !config.cache.enabled;
  const etagOf = etagOfSetting(app.get('etag'));
  const parseBody = promisify(jsonParser(config.maxPayloadSize, config.db.client));

  /** The envelope of a plain read, or null for Express to answer. */
  async function read(req: IncomingMessage, target: ItemsPath): Promise<string | null> {
    const accountability = await authenticateRequest(deps, req);
    const items = await readService(deps, req, accountability, target.collection);
    return plainEnvelope(items, requestQuery(req), target.id);
  }

  const graphql = graphqlEndpointOf(app);

  /**
   * GET or POST /graphql: a plain query the database answers (routes/graphql.ts: plainQueryText), with
   * the caller and the body taken as Express would take them; anything else, and any failure
   * but the body's, is answered by Express from the start (the body read stays read).
   */
  async function graphqlQuery(
    req: IncomingMessage,
    res: ServerResponse,
    endpoint: GraphqlEndpoint,
    type: GraphqlMediaType,
  ): Promise<void> {
    let accountability: Accountability;
    try {
      accountability = await authenticateRequest(deps, req);
    } catch {
      app(req, res);
      return;
    }
    try {
      if (req.method === 'POST') await parseBody(req, res);
    } catch (error) {
      answerError(res, error);
      return;
    }
    const text = await plainQueryText(deps, endpoint, req, accountability).catch(() => null);
    if (text === null) {
      app(req, res);
      return;
    }
    // The route's answer: no ETag (it ends the response itself, not through res.send).
    const length = Buffer.byteLength(text, 'utf8');
    writeHead(res, 200, { 'Content-Type': `${type}; charset=utf-8`, 'Content-Length': length }).end(text, 'utf8');
  }

  async function write(req: IncomingMessage, res: ServerResponse, target: ItemsPath, run: ItemWrite): Promise<void> {
    try {
      const accountability = await authenticateRequest(deps, req);
      await parseBody(req, res);
      const keyed = checkIdempotencyKey(deps.db, req, accountability);
      const replay = keyed === undefined ? undefined : await keyed;
      if (replay !== undefined) {
        sendReplay(res, replay);
        return;
      }
      const data = await run(deps, {
        accountability,
        collection: target.collection,
        id: target.id,
        body: (req as IncomingMessage & { body?: unknown }).body,
        query: () => requestQuery(req),
        path: target.path,
      });
      if (data === undefined) {
        writeHead(res, 204, {}).end();
      } else {
        respond(res, 200, JSON.stringify({ data }));
      }
    } catch (error) {
      answerError(res, error);
    }
  }

  /** The error handler's answer (error-handler.ts), as Express's would be. */
  function answerError(res: ServerResponse, error: unknown): void {
    const answer = errorAnswer(error, { logger, dialect: config.db.client, schema: deps.schema });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    respond(res, answer.status, JSON.stringify(answer.body), answer.headers);
  }

  /** Express's `res.json` answer: the text written as it is, its length and ETag taken from it. */
  function respond(res: ServerResponse, status: number, body: string, extra?: Readonly<Record<string, string>>): void {
    const length = Buffer.byteLength(body, 'utf8');
    const headers: Record<string, string | number> = {
      ...extra,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(length),
    };
    const tag = etagOf?.(body, length);
    if (tag !== undefined) headers['ETag'] = tag;
    writeHead(res, status, headers).end(body, 'utf8');
  }

  /**
   * The status and headers; set one by one when requests are logged, so that the log line
   * shows them as it does for Express's answers (node:http keeps no copy of writeHead's).
   */
  function writeHead(
    res: ServerResponse,
    status: number,
    headers: Readonly<Record<string, string | number>>,
  ): ServerResponse {
    if (!isLogged) return res.writeHead(status, headers);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    return res.writeHead(status);
  }

  return (req, res) => {
    if (req.url === '/graphql' || req.url?.startsWith('/graphql?') === true) {
      const type = graphql === undefined || !readsHere ? undefined : plainGraphqlRequest(req);
      if (graphql === undefined || type === undefined) return false;
      setRoute(req, '/graphql');
      void graphqlQuery(req, res, graphql, type);
      return true;
    }
    const target = plainItemsRequest(req);
    if (target === undefined) return false;
    if (req.method === 'GET') {
      if (!readsHere || BODY_HEADERS.some((h) => req.headers[h] !== undefined)) return false;
      setRoute(req, routePattern(target));
      read(req, target).then(
        (body) => {
          if (body === null) app(req, res);
          else respond(res, 200, body);
        },
        () => {
          app(req, res);
        },
      );
      return true;
    }
    const run = writeOf(req, target);
    if (run === undefined) return false;
    setRoute(req, routePattern(target));
    void write(req, res, target, run);
    return true;
  };
}

/** Parameters that make a single item's read another route's (items-read.ts: `as_of`, `version`). */
const HISTORY_PARAMETERS = ['as_of', 'version'] as const;

function hasHistoryParameter(req: IncomingMessage, search: string): boolean {
  if (!mayNameParameter(search, HISTORY_PARAMETERS)) return false;
  const params = requestParams(req);
  return HISTORY_PARAMETERS.some((name) => params[name] !== undefined);
}

/** The metrics' route label: the Express route's pattern. */
function routePattern(target: ItemsPath): string {
  return target.id === undefined ? '/items/:collection' : '/items/:collection/:id';
}

/** The item path of a request Express would add nothing to, or undefined. */
function plainItemsRequest(req: IncomingMessage): ItemsPath | undefined {
  const url = req.url ?? '';
  if (!url.startsWith('/items/')) return undefined;
  const { headers } = req;
  if (EXPRESS_HEADERS.some((h) => headers[h] !== undefined)) return undefined;
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const search = queryStart === -1 ? '' : url.slice(queryStart);
  // An item as it was (`as_of`) or as a content version has it (`version`, any spelling:
  // `version[]=` is refused there) is read by the Express route.
  if (hasHistoryParameter(req, search)) return undefined;
  const [, , collection, id, ...rest] = path.split('/');
  if (collection === undefined || collection === '' || id === '' || rest.length > 0) return undefined;
  // Not valid percent-encoding: Express answers (url-path.ts).
  const name = decodePathSegment(collection);
  const key = id === undefined ? undefined : decodePathSegment(id);
  if (name === undefined || (id !== undefined && key === undefined)) return undefined;
  return { collection: toCollectionName(name), id: key, path };
}

type GraphqlMediaType = 'application/json' | 'application/graphql-response+json';

/**
 * A POST /graphql with a JSON body, or a GET /graphql without one, that Express would add
 * nothing to: no conditional or idempotent request, and an Accept whose first type
 * graphql-http takes (its answer's type, as it chooses it); undefined for Express.
 */
function plainGraphqlRequest(req: IncomingMessage): GraphqlMediaType | undefined {
  const { headers } = req;
  const isGet = req.method === 'GET' && BODY_HEADERS.every((h) => headers[h] === undefined);
  const isPost = req.method === 'POST' && req.url === '/graphql' && JSON_TYPE.test(headers['content-type'] ?? '');
  if (!isGet && !isPost) return undefined;
  if (headers['idempotency-key'] !== undefined || EXPRESS_HEADERS.some((h) => headers[h] !== undefined))
    return undefined;
  const [first = ''] = (headers.accept ?? '*/*').replace(/\s/g, '').toLowerCase().split(',');
  const [type, ...params] = first.split(';');
  if (params.some((param) => param !== 'charset=utf-8')) return undefined;
  if (type === 'application/graphql-response+json') return type;
  return type === 'application/json' || type === 'application/*' || type === '*/*' ? 'application/json' : undefined;
}

/** The write of a plain JSON write request; undefined for Express (file uploads, other bodies). */
function writeOf(req: IncomingMessage, target: ItemsPath): ItemWrite | undefined {
  const routes =
    req.method === 'POST' || req.method === 'PATCH' || req.method === 'DELETE' ? ITEM_WRITES[req.method] : undefined;
  // File uploads: the files router is in front of the item writes for their paths (app.ts).
  if (routes === undefined || target.collection === FILES_COLLECTION) return undefined;
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !JSON_TYPE.test(req.headers['content-type'] ?? '')) return undefined;
  const byTarget: { readonly collection: ItemWrite; readonly item?: ItemWrite } = routes;
  return target.id === undefined ? byTarget.collection : byTarget.item;
}

/** An Express body parser as a promise; it sets `req.body` (body-parser works on node:http requests). */
function promisify(parser: RequestHandler): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return (req, res) =>
    new Promise((resolve, reject) => {
      const next = (error?: unknown) => {
        if (error === undefined) resolve();
        else reject(error instanceof Error ? error : new Error('the body parser failed', { cause: error }));
      };
      parser(req as Parameters<RequestHandler>[0], res as Parameters<RequestHandler>[1], next);
    });
}
