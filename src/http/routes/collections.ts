import { Router, type Request, type Response } from 'express';
import { createCollections, deleteCollection, updateCollection } from '../../../catalog/ddl/collections.js';
import { isObject, parseCollectionPayload } from '../../../catalog/ddl/payloads.js';
import { findCollectionObject, listCollectionObjects, type CollectionObject } from '../../../catalog/overview/api-objects.js';
import { ForbiddenError, InvalidPayloadError } from '../../errors.js';
import { collectionParam, toCollectionName } from '../collection-name.js';
import { requireAdmin } from '../require-admin.js';
import { readableSchema, type SchemaRouteContext } from '../schema-read.js';

/** /collections (reference/routes.md, Schema routes): reads filtered by permission, writes admin only. */
export function collectionRoutes(ctx: SchemaRouteContext): Router {
  const router = Router();

  const list = async (req: Request, res: Response) => {
    const { overview, canRead } = await collectionsSchema(ctx, req);
    const all = listCollectionObjects(overview);
    const shown = withGroups(all, (c) => canRead.collection(c.collection));
    res.json({ data: all.filter((c) => shown.has(c.collection)) });
  };
  router.get('/', list);
  router.search('/', list);

  router.get('/:collection', async (req, res) => {
    res.json({ data: await readCollection(ctx, req, collectionParam(req)) });
  });

  router.post('/', async (req, res) => {
    requireAdmin(req);
    const body: unknown = req.body;
    const specs = (Array.isArray(body) ? body : [body]).map(parseCollectionPayload);
    await createCollections(ctx, specs);
    const overview = await ctx.schema.getOverview();
    const created = specs.map((s) => findCollectionObject(overview, s.collection));
    res.json({ data: Array.isArray(body) ? created : created[0] });
  });

  router.patch('/', async (req, res) => {
    requireAdmin(req);
    const body: unknown = req.body;
    if (!Array.isArray(body)) throw new InvalidPayloadError('The body must be an array of {collection, meta}');
    const updates = body.map((entry: unknown) => {
      if (!isObject(entry) || typeof entry['collection'] !== 'string') {
        throw new InvalidPayloadError('Every entry needs "collection"');
      }
      return { collection: toCollectionName(entry['collection']), meta: requireMeta(entry) };
    });
    for (const { collection, meta } of updates) await updateCollection(ctx, collection, meta);
    const overview = await ctx.schema.getOverview();
    res.json({ data: updates.map((u) => findCollectionObject(overview, u.collection)) });
  });

  router.patch('/:collection', async (req, res) => {
    requireAdmin(req);
    const collection = collectionParam(req);
    await updateCollection(ctx, collection, requireMeta(req.body));
    res.json({ data: await readCollection(ctx, req, collection) });
  });

  router.delete('/:collection', async (req, res) => {
    requireAdmin(req);
    await deleteCollection(ctx, collectionParam(req));
    res.status(204).end();
  });

  return router;
}

/**
 * The schema as the caller may see it, for routes that read svc_collections: as in Directus
 * 10, callers who may not read it (no role, a role without app access and without an own
 * permission on it) get FORBIDDEN rather than an empty list.
 */
async function collectionsSchema(ctx: SchemaRouteContext, req: Request): ReturnType<typeof readableSchema> {
  const schema = await readableSchema(ctx, req);
  if (!schema.canRead.collection('svc_collections')) throw new ForbiddenError();
  return schema;
}

/**
 * The names of the readable collections and of the groups (folders or collections) they sit
 * in, up to the top: a caller sees the folder tree that leads to what it may read.
 */
function withGroups(all: readonly CollectionObject[], isReadable: (c: CollectionObject) => boolean): Set<string> {
  const groupOf = new Map(all.map((c) => [c.collection, c.meta?.['group']]));
  const shown = new Set<string>();
  for (const c of all) {
    if (!isReadable(c)) continue;
    let name: unknown = c.collection;
    while (typeof name === 'string' && !shown.has(name)) {
      shown.add(name);
      name = groupOf.get(name);
    }
  }
  return shown;
}

async function readCollection(ctx: SchemaRouteContext, req: Request, collection: string) {
  const { overview, canRead } = await collectionsSchema(ctx, req);
  const found = findCollectionObject(overview, collection);
  if (found === undefined || !canRead.collection(collection)) throw new ForbiddenError();
  return found;
}

/** reference/routes.md: only `meta` of a collection can be updated. */
function requireMeta(body: unknown): Readonly<Record<string, unknown>> {
  const meta = isObject(body) ? body['meta'] : undefined;
  if (!isObject(meta)) throw new InvalidPayloadError('"meta" is required and must be an object');
  return meta;
}
