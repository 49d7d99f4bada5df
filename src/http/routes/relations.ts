import { Router } from 'express';
import { parseRelationPatch, parseRelationPayload } from '../../../catalog/ddl/payloads.js';
import { createRelation, deleteRelation, updateRelation } from '../../../catalog/ddl/relations.js';
import { requireAdmin } from '../require-admin.js';
import { collectionParam } from '../collection-name.js';
import { changedSchema, readableSchema, type SchemaRouteContext } from '../schema-read.js';

/** /relations: reads filtered by permission, writes admin only. */
export function relationRoutes(ctx: SchemaRouteContext): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    res.json({ data: (await readableSchema(ctx, req)).relations() });
  });

  router.get('/:collection', async (req, res) => {
    res.json({ data: (await readableSchema(ctx, req)).relationsIn(collectionParam(req)) });
  });

  router.get('/:collection/:field', async (req, res) => {
    res.json({ data: (await readableSchema(ctx, req)).relation(collectionParam(req), req.params['field']) });
  });

  router.post('/', async (req, res) => {
    requireAdmin(req);
    const spec = parseRelationPayload(req.body);
    await createRelation(ctx, spec);
    res.json({ data: (await changedSchema(ctx)).relation(spec.collection, spec.field) });
  });

  router.patch('/:collection/:field', async (req, res) => {
    requireAdmin(req);
    const collection = collectionParam(req);
    const field = req.params['field'];
    await updateRelation(ctx, collection, field, parseRelationPatch(req.body));
    res.json({ data: (await changedSchema(ctx)).relation(collection, field) });
  });

  router.delete('/:collection/:field', async (req, res) => {
    requireAdmin(req);
    await deleteRelation(ctx, collectionParam(req), req.params['field']);
    res.status(204).end();
  });

  return router;
}
