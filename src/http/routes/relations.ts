import { Router, type Request } from 'express';
import type { SchemaContext } from '../../../catalog/ddl/context.js';
import { parseRelationPatch, parseRelationPayload } from '../../../catalog/ddl/payloads.js';
import { createRelation, deleteRelation, updateRelation } from '../../../catalog/ddl/relations.js';
import { toRelationObject } from '../../../catalog/overview/api-objects.js';
import { requireCollection } from '../../../catalog/overview/lookup.js';
import type { SchemaOverview } from '../../../catalog/overview/types.js';
import { schemaReadFilter } from '../../access/schema-access.js';
import { ForbiddenError } from '../../errors.js';
import { requireAdmin } from '../require-admin.js';
import { collectionParam } from '../collection-name.js';

/** /relations (reference/routes.md, Schema routes): reads filtered by permission, writes admin only. */
export function relationRoutes(ctx: SchemaContext): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const [overview, canRead] = await Promise.all([ctx.schema.getOverview(), schemaReadFilter(req.accountability)]);
    const relations = overview.relations.filter((r) => canRead(r.collection));
    res.json({ data: relations.map((r) => toRelationObject(overview, r)) });
  });

  router.get('/:collection', async (req, res) => {
    const overview = await readable(ctx, req);
    const collection = requireCollection(overview, collectionParam(req)).collection;
    const relations = overview.relations.filter((r) => r.collection === collection);
    res.json({ data: relations.map((r) => toRelationObject(overview, r)) });
  });

  router.get('/:collection/:field', async (req, res) => {
    const overview = await readable(ctx, req);
    res.json({ data: relationObject(overview, collectionParam(req), String(req.params['field'])) });
  });

  router.post('/', async (req, res) => {
    requireAdmin(req);
    const spec = parseRelationPayload(req.body);
    await createRelation(ctx, spec);
    res.json({ data: relationObject(await ctx.schema.getOverview(), spec.collection, spec.field) });
  });

  router.patch('/:collection/:field', async (req, res) => {
    requireAdmin(req);
    const collection = collectionParam(req);
    const field = String(req.params['field']);
    await updateRelation(ctx, collection, field, parseRelationPatch(req.body));
    res.json({ data: relationObject(await ctx.schema.getOverview(), collection, field) });
  });

  router.delete('/:collection/:field', async (req, res) => {
    requireAdmin(req);
    await deleteRelation(ctx, collectionParam(req), String(req.params['field']));
    res.status(204).end();
  });

  return router;
}

async function readable(ctx: SchemaContext, req: Request): Promise<SchemaOverview> {
  const [overview, canRead] = await Promise.all([ctx.schema.getOverview(), schemaReadFilter(req.accountability)]);
  if (!canRead(collectionParam(req))) throw new ForbiddenError();
  return overview;
}

function relationObject(overview: SchemaOverview, collection: string, field: string) {
  const relation = overview.relations.find((r) => r.collection === collection && r.field === field);
  if (relation === undefined) throw new ForbiddenError();
  return toRelationObject(overview, relation);
}
