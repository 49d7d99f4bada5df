import { Router } from 'express';
import { createField, deleteField, updateField } from '../../../catalog/ddl/fields.js';
import { isObject, parseFieldPatch, parseFieldPayload } from '../../../catalog/ddl/payloads.js';
import { listFieldObjects, toFieldObject } from '../../../catalog/overview/api-objects.js';
import { requireCollection } from '../../../catalog/overview/lookup.js';
import type { SchemaOverview } from '../../../catalog/overview/types.js';
import { ForbiddenError, InvalidPayloadError } from '../../errors.js';
import { requireAdmin } from '../require-admin.js';
import { collectionParam } from '../collection-name.js';
import { readableCollectionSchema, readableSchema, type SchemaRouteContext } from '../schema-read.js';
import type { SchemaReadAccess } from '../../access/schema-access.js';

/** /fields (reference/routes.md, Schema routes): reads filtered by permission, writes admin only. */
export function fieldRoutes(ctx: SchemaRouteContext): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const { overview, canRead } = await readableSchema(ctx, req);
    const collections = Object.values(overview.collections).filter((c) => canRead.collection(c.collection));
    res.json({ data: collections.flatMap((c) => readableFields(overview, canRead, c.collection)) });
  });

  router.get('/:collection', async (req, res) => {
    const { overview, canRead } = await readableCollectionSchema(ctx, req);
    res.json({ data: readableFields(overview, canRead, collectionParam(req)) });
  });

  router.get('/:collection/:field', async (req, res) => {
    const { overview, canRead } = await readableCollectionSchema(ctx, req);
    const collection = collectionParam(req);
    const field = String(req.params['field']);
    if (!canRead.field(collection, field)) throw new ForbiddenError();
    res.json({ data: fieldObject(overview, collection, field) });
  });

  router.post('/:collection', async (req, res) => {
    requireAdmin(req);
    const collection = collectionParam(req);
    const spec = parseFieldPayload(req.body, collection);
    await createField(ctx, collection, spec);
    res.json({ data: fieldObject(await ctx.schema.getOverview(), collection, spec.field) });
  });

  router.patch('/:collection', async (req, res) => {
    requireAdmin(req);
    const collection = collectionParam(req);
    const body: unknown = req.body;
    if (!Array.isArray(body)) throw new InvalidPayloadError('The body must be an array of fields');
    const patches = body.map((entry: unknown) => {
      const field = isObject(entry) ? entry['field'] : undefined;
      if (typeof field !== 'string') throw new InvalidPayloadError('Every field needs "field"');
      return { field, patch: parseFieldPatch(entry, field) };
    });
    for (const { field, patch } of patches) await updateField(ctx, collection, field, patch);
    const overview = await ctx.schema.getOverview();
    res.json({ data: patches.map(({ field }) => fieldObject(overview, collection, field)) });
  });

  router.patch('/:collection/:field', async (req, res) => {
    requireAdmin(req);
    const collection = collectionParam(req);
    const field = String(req.params['field']);
    await updateField(ctx, collection, field, parseFieldPatch(req.body, field));
    res.json({ data: fieldObject(await ctx.schema.getOverview(), collection, field) });
  });

  router.delete('/:collection/:field', async (req, res) => {
    requireAdmin(req);
    await deleteField(ctx, collectionParam(req), String(req.params['field']));
    res.status(204).end();
  });

  return router;
}

/** The field objects of a collection the caller may read. */
function readableFields(overview: SchemaOverview, canRead: SchemaReadAccess, collection: string) {
  return listFieldObjects(overview, requireCollection(overview, collection)).filter((f) => canRead.field(collection, f.field));
}

function fieldObject(overview: SchemaOverview, collection: string, field: string) {
  const found = requireCollection(overview, collection).fields[field];
  if (found === undefined) throw new ForbiddenError();
  return toFieldObject(overview, collection, found);
}
