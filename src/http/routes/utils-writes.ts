import { Router } from 'express';
import { handleRevert } from '../../commands/revert.js';
import { handleSort } from '../../commands/sort.js';
import { InvalidPayloadError } from '../../errors.js';
import { collectionParam } from '../collection-name.js';
import { commandContext } from '../../commands/command-context.js';
import { requireCollection } from '../../../catalog/overview/lookup.js';
import { requireAllowed, type ItemWriteDeps } from './item-writes.js';

/** POST /utils/sort/:collection and POST /utils/revert/:revision (reference/routes.md, Utils). */
export function utilsWriteRoutes(deps: ItemWriteDeps): Router {
  const router = Router();

  router.post('/sort/:collection', async (req, res) => {
    const overview = await deps.schema.getOverview();
    const ctx = await commandContext(deps, req.accountability, overview);
    // Permission before the body: a collection the caller may not sort reads like a missing one.
    requireAllowed(ctx, requireCollection(overview, collectionParam(req)), ['update']);
    const body: unknown = req.body ?? {};
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidPayloadError('"value" must be of type object');
    const { item, to } = body as Record<string, unknown>;
    for (const [name, value] of [['item', item], ['to', to]] as const) {
      if (value === undefined || value === null) throw new InvalidPayloadError(`"${name}" is required`);
      if (typeof value !== 'string' && typeof value !== 'number') throw new InvalidPayloadError(`"${name}" must be a primary key`);
    }
    await handleSort({ kind: 'sort', collection: collectionParam(req), item: item as string | number, to: to as string | number }, ctx);
    // reference/routes.md: sort answers 200 with an empty body.
    res.status(200).end();
  });

  router.post('/revert/:revision', async (req, res) => {
    const overview = await deps.schema.getOverview();
    await handleRevert({ kind: 'revert', revision: String(req.params['revision']) }, await commandContext(deps, req.accountability, overview));
    res.status(204).end();
  });

  return router;
}
