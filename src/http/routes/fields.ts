import { Router } from 'express';
import { createField, deleteField, updateField } from '../../../catalog/ddl/fields.js';
import { parseFieldPatch, parseFieldPayload } from '../../../catalog/ddl/payloads.js';
import { InvalidPayloadError } from '../../errors.js';
import { queryFlag } from '../query-flag.js';
import { requireAdmin } from '../require-admin.js';
import { collectionParam } from '../collection-name.js';
import { changedSchema, readableSchema, type SchemaRouteContext } from '../schema-read.js';
import { isPlainObject } from '../../is-plain-object.js';

/**
 * /fields: reads filtered by permission, writes admin only.
 * PATCH takes `?allow_destructive=true` for a new type, precision or scale that changes stored
 * numbers (refused otherwise, naming a value).
 */
export function fieldRoutes(ctx: SchemaRouteContext): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    res.json({ data: (await readableSchema(ctx, req)).fields() });
  });

  router.get('/:collection', async (req, res) => {
    res.json({ data: (await readableSchema(ctx, req)).fieldsIn(collectionParam(req)) });
  });

  router.get('/:collection/:field', async (req, res) => {
    res.json({ data: (await readableSchema(ctx, req)).field(collectionParam(req), req.params['field']) });
  });

  router.post('/:collection', async (req, res) => {
    requireAdmin(req);
    const collection = collectionParam(req);
    const spec = parseFieldPayload(req.body, collection);
    await createField(ctx, collection, spec);
    res.json({ data: (await changedSchema(ctx)).field(collection, spec.field) });
  });

  router.patch('/:collection', async (req, res) => {
    requireAdmin(req);
    const collection = collectionParam(req);
    const body: unknown = req.body;
    if (!Array.isArray(body)) throw new InvalidPayloadError('The body must be an array of fields');
    const patches = body.map((entry: unknown) => {
      const field = isPlainObject(entry) ? entry['field'] : undefined;
      if (typeof field !== 'string') throw new InvalidPayloadError('Every field needs "field"');
      return { field, patch: parseFieldPatch(entry, field) };
    });
    const options = { allowDestructive: queryFlag(req, 'allow_destructive') };
    for (const { field, patch } of patches) await updateField(ctx, collection, field, patch, options);
    const objects = await changedSchema(ctx);
    res.json({ data: patches.map(({ field }) => objects.field(collection, field)) });
  });

  router.patch('/:collection/:field', async (req, res) => {
    requireAdmin(req);
    const collection = collectionParam(req);
    const field = req.params['field'];
    await updateField(ctx, collection, field, parseFieldPatch(req.body, field), {
      allowDestructive: queryFlag(req, 'allow_destructive'),
    });
    res.json({ data: (await changedSchema(ctx)).field(collection, field) });
  });

  router.delete('/:collection/:field', async (req, res) => {
    requireAdmin(req);
    await deleteField(ctx, collectionParam(req), req.params['field']);
    res.status(204).end();
  });

  return router;
}
