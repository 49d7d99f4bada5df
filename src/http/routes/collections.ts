import { Router, type Request, type Response } from 'express';
import { createCollections, deleteCollection, updateCollection } from '../../../catalog/ddl/collections.js';
import { isObject, parseCollectionPayload } from '../../../catalog/ddl/payloads.js';
import { findCollectionObject, listCollectionObjects } from '../../../catalog/overview/api-objects.js';
import { ForbiddenError, InvalidPayloadError } from '../../errors.js';
import { collectionParam, toCollectionName } from '../collection-name.js';
import { requireAdmin } from '../require-admin.js';
import { readableSchema, type SchemaRouteContext } from '../schema-read.js';

/** /collections (reference/routes.md, Schema routes): reads filtered by permission, writes admin only. */
export function collectionRoutes(ctx: SchemaRouteContext): Router {
  const router = Router();

  const list = async (req: Request, res: Response) => {
    const { overview, canRead } = await readableSchema(ctx, req);
    res.json({ data: listCollectionObjects(overview).filter((c) => canRead.collection(c.collection)) });
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

async function readCollection(ctx: SchemaRouteContext, req: Request, collection: string) {
  const { overview, canRead } = await readableSchema(ctx, req);
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
