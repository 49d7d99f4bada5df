import { Router } from 'express';
import { parseRelationPatch, parseRelationPayload } from '../../../catalog/ddl/payloads.js';
import { createRelation, deleteRelation, updateRelation } from '../../../catalog/ddl/relations.js';
import { toRelationObject } from '../../../catalog/overview/api-objects.js';
import { requireCollection } from '../../../catalog/overview/lookup.js';
import type { SchemaOverview } from '../../../catalog/overview/types.js';
import { ForbiddenError } from '../../errors.js';
import { requireAdmin } from '../require-admin.js';
import { collectionParam } from '../collection-name.js';
import { readableCollectionSchema, readableSchema, type SchemaRouteContext } from '../schema-read.js';
import type { SchemaReadAccess } from '../../access/schema-access.js';

/** /relations (reference/routes.md, Schema routes): reads filtered by permission, writes admin only. */
export function relationRoutes(ctx: SchemaRouteContext): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const { overview, canRead } = await readableSchema(ctx, req);
    const relations = overview.relations.filter((r) => canRead.relation(r));
    res.json({ data: relations.map((r) => toRelationObject(overview, r)) });
  });

  router.get('/:collection', async (req, res) => {
    const { overview, canRead } = await readableCollectionSchema(ctx, req);
    const collection = requireCollection(overview, collectionParam(req)).collection;
    const relations = overview.relations.filter((r) => r.collection === collection && canRead.relation(r));
    res.json({ data: relations.map((r) => toRelationObject(overview, r)) });
  });

  router.get('/:collection/:field', async (req, res) => {
    const { overview, canRead } = await readableCollectionSchema(ctx, req);
    res.json({ data: relationObject(overview, collectionParam(req), String(req.params['field']), canRead) });
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

/** One relation; FORBIDDEN when unknown or not readable (admin writes read it back with full access). */
function relationObject(overview: SchemaOverview, collection: string, field: string, canRead?: SchemaReadAccess) {
  const relation = overview.relations.find((r) => r.collection === collection && r.field === field);
  if (relation === undefined || (canRead !== undefined && !canRead.relation(relation))) throw new ForbiddenError();
  return toRelationObject(overview, relation);
}
