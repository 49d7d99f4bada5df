import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Accountability } from '../../access/accountability.js';
import { requireCollection, requireTable } from '../../../catalog/overview/lookup.js';
import type { SchemaCache } from '../../cache/schema-cache.js';
import { InvalidPayloadError } from '../../errors.js';
import { ItemsService, type ItemsDeps } from '../../items/items-service.js';
import { collectionParam } from '../collection-name.js';
import { readContext, requestQuery } from '../read-context.js';
import { requestParams } from '../request-pipeline.js';
import { isAggregateQuery, parseAsOf, parseVersionKey, type Item, type Meta, type Query } from '../../query/index.js';
import { sendExport } from '../export-download.js';
import { listedItems } from '../../files/export/export-formats.js';

/** The items service's deps, with the schema cache a request's overview comes from. */
export interface ReadRouteDeps extends ItemsDeps {
  readonly schema: SchemaCache;
}

/**
 * System collections with their own base path:
 * the same reads as /items/svc_<x>. Writes are other routers' business.
 */
export const SYSTEM_READ_ROUTES: Readonly<Record<string, string>> = {
  '/activity': 'svc_activity',
  '/comments': 'svc_comments',
  '/files': 'svc_files',
  '/flows': 'svc_flows',
  '/folders': 'svc_folders',
  '/operations': 'svc_operations',
  '/permissions': 'svc_permissions',
  '/presets': 'svc_presets',
  '/revisions': 'svc_revisions',
  '/roles': 'svc_roles',
  '/users': 'svc_users',
  '/settings': 'svc_settings',
  '/versions': 'svc_versions',
};

/**
 * The read routes: GET and SEARCH /items/:collection, GET /items/:collection/:id, and the same
 * for the system collections' own paths. Thin: parse, read, envelope.
 * A single item with `as_of` reads as it was then (src/query/history/item-as-of.ts), with
 * `version` as a content version has it (item-version.ts; lists ignore `version`).
 * `cacheFor` gives what runs before the GET routes, told how a request names its collection
 * (http/response-cache.ts; nothing when the cache is off).
 */
export function itemsReadRoutes(
  deps: ReadRouteDeps,
  cacheFor: (collectionOf: (req: Request) => string) => readonly RequestHandler[] = () => [],
): Router {
  const router = Router();
  const reads = new ItemReads(deps);
  const cache = cacheFor(collectionParam);

  router.get('/items/:collection', ...cache, (req, res) => reads.list(req, res, collectionParam(req)));
  router.search('/items/:collection', (req, res) => reads.list(req, res, collectionParam(req)));
  router.get('/items/:collection/:id', ...cache, (req, res) => reads.one(req, res, collectionParam(req), idParam(req)));

  for (const [path, collection] of Object.entries(SYSTEM_READ_ROUTES)) {
    const cache = cacheFor(() => collection);
    router.get(path, ...cache, (req, res) => reads.list(req, res, collection));
    router.search(path, (req, res) => reads.list(req, res, collection));
    // /users/me is the users router's, mounted before this one.
    router.get(`${path}/:id`, ...cache, (req, res) => reads.one(req, res, collection, idParam(req)));
  }
  return router;
}

/** `{"meta":…,"data":…}` around data already serialized (by the database or JSON.stringify). */
function envelope(data: string, meta: Meta): string {
  const head = Object.keys(meta).length > 0 ? `{"meta":${JSON.stringify(meta)},"data":` : '{"data":';
  return `${head}${data}}`;
}

function sendEnvelope(res: Response, text: string): void {
  res.type('application/json; charset=utf-8').send(text);
}

/**
 * The items service of a read request: the caller's, on the request's overview, reading from a
 * replica unless the caller wrote lately (db/replicas.ts). The GET routes below and
 * http/fast-path.ts both read through it.
 */
export async function readService(
  deps: ReadRouteDeps,
  req: IncomingMessage,
  accountability: Accountability,
  collection: string,
): Promise<ItemsService> {
  const { db, overview, limits } = await readContext(deps, req, accountability);
  return new ItemsService(collection, deps, { accountability, schema: overview, reads: db, limits });
}

/**
 * The envelope of a plain GET read: the item's with `id`, else the list's with its meta, its
 * data as JSON text (the database's where it writes it: ItemsService.readByQueryText). Null
 * when the read is not plain (export, singleton, aggregate, unlimited stream): the caller
 * reads it otherwise.
 */
export async function plainEnvelope(items: ItemsService, query: Query, id: string | undefined): Promise<string | null> {
  if (id !== undefined) return envelope(await items.readOneText(id, query), {});
  const json = await items.readByQueryText(query);
  return json === null ? null : envelope(json, await items.readMeta(query));
}

function idParam(req: Request): string {
  return String(req.params['id']);
}

class ItemReads {
  constructor(private readonly deps: ReadRouteDeps) {}

  async list(req: Request, res: Response, collection: string): Promise<void> {
    const items = await readService(this.deps, req, req.accountability, collection);
    const overview = await items.schemaOverview();
    const body = searchBody(req);
    const query = requestQuery(req, body?.query);
    // An administrator's read of a folder says why it has no items.
    const target = (req.accountability.admin ? requireTable : requireCollection)(overview, collection);
    if (query.export !== undefined) {
      const { export: format, ...read } = query;
      const { tempPath: tempDir, exportCsvEscapeFormulas: csvEscapeFormulas } = this.deps.config;
      await sendExport(res, collection, format, await this.exported(items, read, body?.keys), {
        tempDir,
        csvEscapeFormulas,
      });
      return;
    }
    if (body?.keys !== undefined) {
      res.json({ data: await items.readMany(body.keys, query) });
      return;
    }
    if (target.singleton && !isAggregateQuery(query)) {
      res.json({ data: await items.readSingleton(query) });
      return;
    }
    // Aggregates and unlimited reads are not plain (null), and have the same meta.
    const [json, meta] = await Promise.all([items.readByQueryText(query), items.readMeta(query)]);
    if (json !== null) sendEnvelope(res, envelope(json, meta));
    else if (isAggregateQuery(query)) sendEnvelope(res, envelope(JSON.stringify(await items.readByQuery(query)), meta));
    else await this.stream(res, items, query, meta);
  }

  async one(req: Request, res: Response, collection: string, id: string): Promise<void> {
    const items = await readService(this.deps, req, req.accountability, collection);
    const query = requestQuery(req, undefined);
    // An administrator's read of a folder says why it has no items.
    if (req.accountability.admin) requireTable(await items.schemaOverview(), collection);
    const { as_of: asOf, version } = requestParams(req);
    if (version !== undefined) {
      res.json({ data: await items.readVersion(id, query, parseVersionKey(version)) });
      return;
    }
    if (asOf !== undefined) {
      res.json({ data: await items.readAsOf(id, query, parseAsOf(asOf)) });
      return;
    }
    sendEnvelope(res, envelope(await items.readOneText(id, query), {}));
  }

  /**
   * `limit=-1`: the envelope is written as the rows arrive (memory stays flat). The first
   * item is read before anything is sent, so a bad query still gets its error response.
   */
  private async stream(res: Response, service: ItemsService, query: Query, meta: Meta): Promise<void> {
    const items = await service.stream(query, this.deps.config.exportBatchSize);
    try {
      let next = await items.next();
      res.status(200).type('application/json; charset=utf-8');
      res.write(Object.keys(meta).length > 0 ? `{"meta":${JSON.stringify(meta)},"data":[` : '{"data":[');
      let separator = '';
      while (next.done !== true) {
        if (!res.write(separator + JSON.stringify(next.value)) && !(await drained(res))) return;
        separator = ',';
        next = await items.next();
      }
      res.end(']}');
    } finally {
      await items.return(undefined);
    }
  }

  /** What an export of the read downloads: the same items the read would return, streamed where they can be. */
  private async exported(items: ItemsService, query: Query, keys: SearchBody['keys']): Promise<AsyncIterable<Item>> {
    if (keys !== undefined) return listedItems(await items.readMany(keys, query));
    if (isAggregateQuery(query)) return listedItems(await items.readByQuery(query));
    if (requireCollection(await items.schemaOverview(), items.collection).singleton)
      return listedItems([await items.readSingleton(query)]);
    return items.stream(query, this.deps.config.exportBatchSize);
  }
}

/** False when the client went away instead of draining. */
async function drained(res: Response): Promise<boolean> {
  if (res.destroyed) return false;
  const closed = once(res, 'close').then(() => false);
  const drain = once(res, 'drain').then(() => true);
  return Promise.race([drain, closed]);
}

interface SearchBody {
  readonly query: Readonly<Record<string, unknown>> | undefined;
  readonly keys: readonly (string | number)[] | undefined;
}

/** SEARCH bodies: `{query?: {...}, keys?: [...]}`. */
function searchBody(req: Request): SearchBody | undefined {
  if (req.method !== 'SEARCH') return undefined;
  const body: unknown = req.body;
  if (body === undefined || body === null) return { query: undefined, keys: undefined };
  if (typeof body !== 'object' || Array.isArray(body)) throw new InvalidPayloadError('"value" must be an object');
  const { query, keys } = body as Record<string, unknown>;
  if (query !== undefined && (typeof query !== 'object' || query === null || Array.isArray(query))) {
    throw new InvalidPayloadError('"query" must be an object');
  }
  if (keys !== undefined && !isKeyList(keys)) throw new InvalidPayloadError('"keys" must be an array of primary keys');
  return { query: query as Readonly<Record<string, unknown>> | undefined, keys };
}

function isKeyList(value: unknown): value is (string | number)[] {
  return Array.isArray(value) && value.every((k) => typeof k === 'string' || typeof k === 'number');
}
