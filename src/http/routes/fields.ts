import { Router, type Request } from 'express';
import type { SchemaContext } from '../../../catalog/ddl/context.js';
import { createField, deleteField, updateField } from '../../../catalog/ddl/fields.js';
import { isObject, parseFieldPatch, parseFieldPayload } from '../../../catalog/ddl/payloads.js';
import { listFieldObjects, toFieldObject } from '../../../catalog/overview/api-objects.js';
import { requireCollection } from '../../../catalog/overview/lookup.js';
import type { SchemaOverview } from '../../../catalog/overview/types.js';
import { schemaReadFilter } from '../../access/schema-access.js';
import { ForbiddenError, InvalidPayloadError } from '../../errors.js';
import { requireAdmin } from '../require-admin.js';
import { collectionParam } from '../collection-name.js';

/** /fields (reference/routes.md, Schema routes): reads filtered by permission, writes admin only. */
export function fieldRoutes(ctx: SchemaContext): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const [overview, canRead] = await Promise.all([ctx.schema.getOverview(), schemaReadFilter(req.accountability)]);
    const collections = Object.values(overview.collections).filter((c) => canRead(c.collection));
    res.json({ data: collections.flatMap((c) => listFieldObjects(overview, c)) });
  });

  router.get('/:collection', async (req, res) => {
    const overview = await readable(ctx, req);
    res.json({ data: listFieldObjects(overview, requireCollection(overview, collectionParam(req))) });
  });

  router.get('/:collection/:field', async (req, res) => {
    const overview = await readable(ctx, req);
    res.json({ data: fieldObject(overview, collectionParam(req), String(req.params['field'])) });
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

/** The overview, after checking the caller may read the schema of the :collection in the path. */
async function readable(ctx: SchemaContext, req: Request): Promise<SchemaOverview> {
  const [overview, canRead] = await Promise.all([ctx.schema.getOverview(), schemaReadFilter(req.accountability)]);
  if (!canRead(collectionParam(req))) throw new ForbiddenError();
  return overview;
}

function fieldObject(overview: SchemaOverview, collection: string, field: string) {
  const found = requireCollection(overview, collection).fields[field];
  if (found === undefined) throw new ForbiddenError();
  return toFieldObject(overview, collection, found);
}
