import { Router, type Request, type Response } from 'express';
import type { Knex } from 'knex';
import type { PermissionStore } from '../../access/permission-store.js';
import type { SchemaOverview } from '../../../catalog/overview/types.js';
import type { DataInvalidation } from '../../cache/data-invalidation.js';
import type { SchemaCache } from '../../cache/schema-cache.js';
import type { DebugLog, Item, PrimaryKey, QueryObject, Selection } from '../../commands/types.js';
import type { WriteAction } from '../../access/write-permissions.js';
import type { Config } from '../../config/index.js';
import { InvalidPayloadError, RouteNotFoundError } from '../../errors.js';
import type { HookBus } from '../../items/hooks.js';
import { ItemsService } from '../../items/items-service.js';
import { collectionParam } from '../collection-name.js';
import { routerGuard } from '../route-methods.js';
import type { Query } from '../../query/index.js';
import { requestQuery } from '../request-pipeline.js';
import type { Accountability } from '../../access/accountability.js';

export interface ItemWriteDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly schema: SchemaCache;
  readonly permissions: PermissionStore;
  readonly invalidation: DataInvalidation;
  /** Debug notes of writes (commands/types.ts, DebugLog), and the warning of a failed re-read. */
  readonly logger?: DebugLog & { warn?(details: object, message: string): void };
  /** The items filters and actions (src/items/hooks.ts); none: no hooks. */
  readonly hooks?: HookBus | undefined;
}

/** The writes of /items/:collection: POST, PATCH, DELETE. */
export function itemWriteRoutes(deps: ItemWriteDeps): Router {
  const router = Router();
  router.use('/:collection', collectionWriteRoutes(deps, collectionParam));
  return router;
}

/**
 * The same writes on a dedicated system route (`/users`, `/roles`, ...): exactly the Items
 * routes with the collection fixed. `/settings` is a singleton (PATCH only).
 */
export function systemWriteRoutes(deps: ItemWriteDeps, collection: string, options: SystemRouteOptions = {}): Router {
  return collectionWriteRoutes(deps, () => collection, options.reservedIds ?? []);
}

export interface SystemRouteOptions {
  /** Path segments that are routes of their own (`/users/me`), never item ids. */
  readonly reservedIds?: readonly string[];
}

/** The dedicated system routes with writes. */
export const SYSTEM_WRITE_ROUTES: readonly (readonly [string, string, SystemRouteOptions])[] = [
  ['/comments', 'svc_comments', {}],
  // POST multipart, PATCH /:id multipart, /files/import and deletes are the files router's.
  ['/files', 'svc_files', { reservedIds: ['import'] }],
  ['/flows', 'svc_flows', { reservedIds: ['trigger', 'runs'] }],
  ['/folders', 'svc_folders', {}],
  ['/operations', 'svc_operations', {}],
  ['/permissions', 'svc_permissions', { reservedIds: ['me'] }],
  ['/presets', 'svc_presets', {}],
  ['/roles', 'svc_roles', {}],
  ['/users', 'svc_users', { reservedIds: ['me', 'invite', 'register'] }],
  ['/settings', 'svc_settings', {}],
];

const MISSING_SELECTION = '"value" must contain at least one of [query, keys]';

function collectionWriteRoutes(
  deps: ItemWriteDeps,
  nameOf: (req: Request) => string,
  reservedIds: readonly string[] = [],
): Router {
  const router = Router({ mergeParams: true });
  // A reserved id leaves these routes, and route-methods.ts offers none of them at that path.
  router.all(
    '/:id',
    routerGuard((params) => reservedIds.includes(params['id'] ?? '')),
  );
  const route = (write: ItemWrite) => async (req: Request, res: Response) => {
    const id = req.params['id'];
    const answer = await write(deps, {
      accountability: req.accountability,
      collection: nameOf(req),
      id: id === undefined ? undefined : String(id),
      body: req.body,
      query: () => requestQuery(req),
      path: req.originalUrl.split('?')[0] ?? req.path,
    });
    if (answer === undefined) res.status(204).end();
    else res.json({ data: answer });
  };
  router.post('/', route(ITEM_WRITES.POST.collection));
  router.patch('/', route(ITEM_WRITES.PATCH.collection));
  router.patch('/:id', route(ITEM_WRITES.PATCH.item));
  router.delete('/', route(ITEM_WRITES.DELETE.collection));
  router.delete('/:id', route(ITEM_WRITES.DELETE.item));
  return router;
}

/** One write request to /items/:collection[/:id] or a system route, whoever received it. */
export interface ItemWriteRequest {
  readonly accountability: Accountability;
  /** The collection, its name resolved (collection-name.ts). */
  readonly collection: string;
  /** The `:id` path segment, decoded; undefined on the collection's route. */
  readonly id: string | undefined;
  /** The parsed JSON body. */
  readonly body: unknown;
  /**
   * The query string's query (`?fields=...`), shaping what the answer re-reads: the request
   * pipeline's parse step, asked for once the caller may write (request-pipeline.ts).
   */
  readonly query: () => Query;
  /** The path, for ROUTE_NOT_FOUND. */
  readonly path: string;
}

/** The answer's `data`: the written items re-read, or undefined for 204. */
export type ItemWrite = (deps: ItemWriteDeps, request: ItemWriteRequest) => Promise<Item | Item[] | undefined>;

/**
 * The item writes by method and route, for Express (above) and for the
 * HTTP server's direct path (fast-path.ts): one implementation for both.
 */
export const ITEM_WRITES = {
  POST: {
    collection: async (deps, request) => {
      const { items, query } = await target(deps, request, { singletonRoute: false, action: 'create' });
      const body = request.body;
      const data = Array.isArray(body) ? body.map(requireItem) : [requireItem(body)];
      return answer(await items.createAndRead(data, query, Array.isArray(body) ? 'many' : 'one'));
    },
  },
  PATCH: {
    collection: async (deps, request) => {
      const { items, collection, query } = await target(deps, request, { singletonRoute: true, action: 'update' });
      const body = request.body;
      if (collection.singleton)
        return answer(await items.updateAndRead({ singleton: requireItem(body) }, query, 'one'));
      if (Array.isArray(body))
        return answer(await items.updateAndRead({ batch: body.map(requireItem) }, query, 'many'));
      const { data, ...rest } = requireItem(body ?? {});
      const selection = readSelection(rest);
      if (data === undefined) throw new InvalidPayloadError('"data" is required');
      return answer(await items.updateAndRead({ ...selection, data: requireItem(data) }, query, 'many'));
    },
    item: async (deps, request) => {
      const { items, query } = await target(deps, request, { singletonRoute: false, action: 'update' });
      const keys = [String(request.id)];
      return answer(await items.updateAndRead({ keys, data: requireItem(request.body) }, query, 'one'));
    },
  },
  DELETE: {
    collection: async (deps, request) => {
      const { items } = await target(deps, request, { singletonRoute: false, action: 'delete' });
      const body = request.body;
      await items.delete(Array.isArray(body) ? { keys: body.map(requireKey) } : readSelection(requireItem(body ?? {})));
      return undefined;
    },
    item: async (deps, request) => {
      const { items } = await target(deps, request, { singletonRoute: false, action: 'delete' });
      await items.deleteOne(String(request.id));
      return undefined;
    },
  },
} as const satisfies Record<string, { readonly collection: ItemWrite; readonly item?: ItemWrite }>;

/** The answer's `data`; a re-read the caller may not see answers 204. */
function answer(written: Item | Item[] | null): Item | Item[] | undefined {
  return written ?? undefined;
}

/**
 * The items service of the write, the collection written to and the query string's query.
 * Whether the caller may `action` the collection at all is decided first, before the route,
 * the query string or the body are looked at (ItemsService.requireAllowed): a collection the
 * caller may not write answers the same FORBIDDEN as a missing one, whatever else is wrong
 * with the request.
 */
async function target(
  deps: ItemWriteDeps,
  request: ItemWriteRequest,
  options: { singletonRoute: boolean; action: WriteAction },
) {
  const items = new ItemsService(request.collection, deps, { accountability: request.accountability });
  const overview = await items.schemaOverview();
  // A singleton's PATCH creates its row when missing.
  const isUpsert = options.action === 'update' && isSingleton(overview, request.collection);
  const collection = await items.requireAllowed(isUpsert ? ['update', 'create'] : [options.action]);
  // POST and /:id writes do not exist on a singleton.
  if (collection.singleton && !options.singletonRoute) throw new RouteNotFoundError(request.path);
  // Parsed before writing: a malformed query string must not leave a write behind.
  const query = request.query();
  return { items, collection, query };
}

function isSingleton(overview: SchemaOverview, name: string): boolean {
  return Object.hasOwn(overview.collections, name) && overview.collections[name]?.singleton === true;
}

/** `{keys}` or `{query}`, exactly one (PATCH /items/:c). */
export function readSelection(body: Item): Selection {
  const { keys, query } = body;
  if (keys !== undefined && query !== undefined) {
    throw new InvalidPayloadError('"value" contains a conflict between exclusive peers [keys, query]');
  }
  if (keys !== undefined) {
    if (!Array.isArray(keys)) throw new InvalidPayloadError('"keys" must be an array');
    return { keys: keys.map(requireKey) };
  }
  if (query !== undefined) {
    if (typeof query !== 'object' || query === null || Array.isArray(query))
      throw new InvalidPayloadError('"query" must be of type object');
    return { query: query as QueryObject };
  }
  throw new InvalidPayloadError(MISSING_SELECTION);
}

export function requireItem(value: unknown): Item {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidPayloadError('"value" must be of type object');
  }
  return value as Item;
}

export function requireKey(value: unknown): PrimaryKey {
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new InvalidPayloadError('"keys" must contain primary keys');
  }
  return value;
}
