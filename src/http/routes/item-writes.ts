import { Router, type Request, type Response } from 'express';
import type { Knex } from 'knex';
import type { PermissionStore } from '../../access/permission-store.js';
import { requireCollection, requireTable } from '../../../catalog/overview/lookup.js';
import type { CollectionOverview, SchemaOverview } from '../../../catalog/overview/types.js';
import type { DataInvalidation } from '../../cache/data-invalidation.js';
import type { SchemaCache } from '../../cache/schema-cache.js';
import { createItems } from '../../commands/create.js';
import { handleDelete } from '../../commands/delete.js';
import type { CommandContext, DebugLog, Item, PrimaryKey, QueryObject, Selection } from '../../commands/types.js';
import type { WriteAction } from '../../access/write-permissions.js';
import { handleUpdate, updateItems } from '../../commands/update.js';
import { answerFields } from '../../commands/one-statement.js';
import type { Config } from '../../config/index.js';
import { ForbiddenError, InvalidPayloadError, RouteNotFoundError } from '../../errors.js';
import { collectionParam } from '../collection-name.js';
import { commandContext } from '../../commands/command-context.js';
import { readWritten } from '../read-written.js';
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
  /** Debug notes of writes (commands/types.ts, DebugLog). */
  readonly logger?: DebugLog;
}

/**
 * System collections whose items are not written through /items:
 * the journal is read only, the schema collections change through /collections, /fields
 * and /relations.
 */
const NOT_WRITABLE_AS_ITEMS: ReadonlySet<string> = new Set([
  'svc_activity',
  'svc_revisions',
  'svc_collections',
  'svc_fields',
  'svc_relations',
  // Content versions are written through /versions (routes/versions.ts).
  'svc_versions',
]);

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
      const { collection, ctx, reply, query } = await target(deps, request, {
        singletonRoute: false,
        action: 'create',
      });
      const body = request.body;
      // One plain item may be answered from its own statement (commands/one-statement.ts).
      const answer = Array.isArray(body) ? undefined : answerFields(ctx, collection, query);
      const items = Array.isArray(body) ? body : [requireItem(body)];
      const written = await createItems(
        { kind: 'create', collection: collection.collection, data: items.map(requireItem) },
        ctx,
        answer,
      );
      return written.answer ?? reply(written.keys, Array.isArray(body) ? 'many' : 'one');
    },
  },
  PATCH: {
    collection: async (deps, request) => {
      const { collection, ctx, reply } = await target(deps, request, { singletonRoute: true, action: 'update' });
      const body = request.body;
      if (collection.singleton) {
        const keys = await handleUpdate(
          { kind: 'update', collection: collection.collection, singleton: true, data: requireItem(body) },
          ctx,
        );
        return reply(keys, 'one');
      }
      if (Array.isArray(body)) {
        const keys = await handleUpdate(
          { kind: 'update', collection: collection.collection, batch: body.map(requireItem) },
          ctx,
        );
        return reply(keys, 'many');
      }
      const { data, ...rest } = requireItem(body ?? {});
      const selection = readSelection(rest);
      if (data === undefined) throw new InvalidPayloadError('"data" is required');
      const keys = await handleUpdate(
        { kind: 'update', collection: collection.collection, ...selection, data: requireItem(data) },
        ctx,
      );
      return reply(keys, 'many');
    },
    item: async (deps, request) => {
      const { collection, ctx, reply, query } = await target(deps, request, {
        singletonRoute: false,
        action: 'update',
      });
      const written = await updateItems(
        {
          kind: 'update',
          collection: collection.collection,
          keys: [String(request.id)],
          data: requireItem(request.body),
        },
        ctx,
        answerFields(ctx, collection, query),
      );
      return written.answer ?? reply(written.keys, 'one');
    },
  },
  DELETE: {
    collection: async (deps, request) => {
      const { collection, ctx } = await target(deps, request, { singletonRoute: false, action: 'delete' });
      const body = request.body;
      const selection: Selection = Array.isArray(body)
        ? { keys: body.map(requireKey) }
        : readSelection(requireItem(body ?? {}));
      await handleDelete({ kind: 'delete', collection: collection.collection, ...selection }, ctx);
      return undefined;
    },
    item: async (deps, request) => {
      const { collection, ctx } = await target(deps, request, { singletonRoute: false, action: 'delete' });
      await handleDelete({ kind: 'delete', collection: collection.collection, keys: [String(request.id)] }, ctx);
      return undefined;
    },
  },
} as const satisfies Record<string, { readonly collection: ItemWrite; readonly item?: ItemWrite }>;

/**
 * The collection written to, the caller's command context, and how to re-read what was
 * written. Whether the caller may `action` the collection at all is decided first, before
 * the route, the query string or the body are looked at: a collection the caller may not
 * write answers the same FORBIDDEN as a missing one, whatever else is wrong with the request.
 */
async function target(
  deps: ItemWriteDeps,
  request: ItemWriteRequest,
  options: { singletonRoute: boolean; action: WriteAction },
) {
  const overview = await deps.schema.getOverview();
  // An administrator's write to a folder is told why it has no items.
  if (request.accountability.admin) requireTable(overview, request.collection);
  const collection = requireWritable(overview, request.collection);
  const ctx = await commandContext(deps, request.accountability, overview);
  // A singleton's PATCH creates its row when missing.
  const isUpsert = collection.singleton && options.action === 'update';
  requireAllowed(ctx, collection, isUpsert ? ['update', 'create'] : [options.action]);
  // POST and /:id writes do not exist on a singleton.
  if (collection.singleton && !options.singletonRoute) throw new RouteNotFoundError(request.path);
  // Parsed before writing: a malformed query string must not leave a write behind.
  const query = request.query();
  const reply = (keys: readonly PrimaryKey[], shape: 'one' | 'many') =>
    readWritten(deps, request.accountability, overview, collection, keys, query, shape);
  return { collection, ctx, reply, query };
}

/**
 * FORBIDDEN unless a permission allows one of `actions` on the collection (admins: always):
 * the first check of a write route (spec, Errors, rule 1: no answer tells a forbidden
 * collection from a missing one).
 */
export function requireAllowed(
  ctx: CommandContext,
  collection: CollectionOverview,
  actions: readonly WriteAction[],
): void {
  if (!actions.some((action) => ctx.permissions.allows(collection.collection, action))) throw new ForbiddenError();
}

/** Whether /items (and the import) writes `collection`'s rows: not the journal's, not the schema's. */
export function isWritableAsItems(collection: string): boolean {
  return !NOT_WRITABLE_AS_ITEMS.has(collection);
}

/** The collection, or FORBIDDEN when it is unknown or not written as items. */
export function requireWritable(overview: SchemaOverview, name: string): CollectionOverview {
  if (!isWritableAsItems(name)) throw new ForbiddenError();
  return requireCollection(overview, name);
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
