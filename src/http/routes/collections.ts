import { Router, type Request, type Response } from 'express';
import { createCollections, deleteCollection, updateCollection } from '../../../catalog/ddl/collections.js';
import { parseCollectionPayload } from '../../../catalog/ddl/payloads.js';
import { InvalidPayloadError } from '../../errors.js';
import { collectionParam, toCollectionName } from '../collection-name.js';
import { requireAdmin } from '../require-admin.js';
import { changedSchema, readableSchema, type SchemaRouteContext } from '../schema-read.js';
import { isPlainObject } from '../../is-plain-object.js';

/** /collections: reads filtered by permission, writes admin only. */
export function collectionRoutes(ctx: SchemaRouteContext): Router {
  const router = Router();

  const list = async (req: Request, res: Response) => {
    res.json({ data: (await readableSchema(ctx, req)).collections() });
  };
  router.get('/', list);
  router.search('/', list);

  router.get('/:collection', async (req, res) => {
    res.json({ data: (await readableSchema(ctx, req)).collection(collectionParam(req)) });
  });

  router.post('/', async (req, res) => {
    requireAdmin(req);
    const body: unknown = req.body;
    const specs = (Array.isArray(body) ? body : [body]).map(parseCollectionPayload);
    await createCollections(ctx, specs);
    const objects = await changedSchema(ctx);
    const created = specs.map((s) => objects.collection(s.collection));
    // Directus's body, plus a note when a folder was made: without `schema` the obvious first
    // try makes a collection that can hold no items, and would otherwise say so nowhere.
    const notes = specs.filter((s) => s.isFolder).map((s) => folderNote(s.collection));
    res.json({ data: Array.isArray(body) ? created : created[0], ...(notes.length > 0 ? { meta: { notes } } : {}) });
  });

  router.patch('/', async (req, res) => {
    requireAdmin(req);
    const body: unknown = req.body;
    if (!Array.isArray(body)) throw new InvalidPayloadError('The body must be an array of {collection, meta}');
    const updates = body.map((entry: unknown) => {
      if (!isPlainObject(entry) || typeof entry['collection'] !== 'string') {
        throw new InvalidPayloadError('Every entry needs "collection"');
      }
      return { collection: toCollectionName(entry['collection']), meta: requireMeta(entry) };
    });
    for (const { collection, meta } of updates) await updateCollection(ctx, collection, meta);
    const objects = await changedSchema(ctx);
    res.json({ data: updates.map((u) => objects.collection(u.collection)) });
  });

  router.patch('/:collection', async (req, res) => {
    requireAdmin(req);
    const collection = collectionParam(req);
    await updateCollection(ctx, collection, requireMeta(req.body));
    res.json({ data: (await readableSchema(ctx, req)).collection(collection) });
  });

  router.delete('/:collection', async (req, res) => {
    requireAdmin(req);
    await deleteCollection(ctx, collectionParam(req));
    res.status(204).end();
  });

  return router;
}

/** What `POST /collections` answers beside a folder it made (docs/api.md, System collections). */
function folderNote(collection: string): string {
  return `${collection} is a folder: no "schema" was given, so it has no table and holds no items (it groups collections, as in Directus 10); to store items, delete it and create it again with "schema": {}`;
}

/** Only `meta` of a collection can be updated. */
function requireMeta(body: unknown): Readonly<Record<string, unknown>> {
  const meta = isPlainObject(body) ? body['meta'] : undefined;
  if (!isPlainObject(meta)) throw new InvalidPayloadError('"meta" is required and must be an object');
  return meta;
}
