import { Router } from 'express';
import { handleRevert } from '../../commands/revert.js';
import { handleUndo } from '../../commands/undo.js';
import { parseAsOf, parseFilter, type AsOf } from '../../query/index.js';
import { InvalidPayloadError } from '../../errors.js';
import { collectionParam } from '../collection-name.js';
import { commandContext } from '../../commands/command-context.js';
import { ItemsService } from '../../items/items-service.js';
import type { ItemWriteDeps } from './item-writes.js';

/** POST /utils/sort/:collection, POST /utils/revert/:revision and POST /utils/revert `{collection, item, as_of}` (issue 18). */
export function utilsWriteRoutes(deps: ItemWriteDeps): Router {
  const router = Router();

  router.post('/sort/:collection', async (req, res) => {
    const items = new ItemsService(collectionParam(req), deps, { accountability: req.accountability });
    // Permission before the body: a collection the caller may not sort reads like a missing one.
    await items.requireAllowed(['update']);
    const body: unknown = req.body ?? {};
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new InvalidPayloadError('"value" must be of type object');
    const { item, to } = body as Record<string, unknown>;
    for (const [name, value] of [
      ['item', item],
      ['to', to],
    ] as const) {
      if (value === undefined || value === null) throw new InvalidPayloadError(`"${name}" is required`);
      if (typeof value !== 'string' && typeof value !== 'number')
        throw new InvalidPayloadError(`"${name}" must be a primary key`);
    }
    await items.sort(item as string | number, to as string | number);
    // Sort answers 200 with an empty body.
    res.status(200).end();
  });

  // Issue 18, Restore: an item back to how it was at a moment (`as_of`: ISO 8601 or a revision id).
  router.post('/revert', async (req, res) => {
    const body: unknown = req.body ?? {};
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new InvalidPayloadError('"value" must be of type object');
    const { collection, item, as_of: asOf } = body as Record<string, unknown>;
    if (typeof collection !== 'string') throw new InvalidPayloadError('"collection" is required');
    if (typeof item !== 'string' && typeof item !== 'number')
      throw new InvalidPayloadError('"item" must be a primary key');
    const moment = typeof asOf === 'number' ? String(asOf) : asOf;
    let parsed: AsOf;
    try {
      parsed = parseAsOf(moment);
    } catch {
      throw new InvalidPayloadError('"as_of" must be an ISO 8601 timestamp or a revision id');
    }
    await new ItemsService(collection, deps, { accountability: req.accountability }).revert(item, parsed);
    res.status(204).end();
  });

  // Issue 18, bulk undo: the writes of the svc_activity rows a filter selects, or the plan (`dry_run`).
  router.post('/undo', async (req, res) => {
    const body: unknown = req.body ?? {};
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new InvalidPayloadError('"value" must be of type object');
    const { filter, dry_run: dryRun = false, force = false } = body as Record<string, unknown>;
    if (typeof filter !== 'object' || filter === null || Array.isArray(filter) || Object.keys(filter).length === 0) {
      throw new InvalidPayloadError('"filter" must be a non-empty filter object of svc_activity');
    }
    if (typeof dryRun !== 'boolean') throw new InvalidPayloadError('"dry_run" must be a boolean');
    if (typeof force !== 'boolean') throw new InvalidPayloadError('"force" must be a boolean');
    const overview = await deps.schema.getOverview();
    const ctx = await commandContext(deps, req.accountability, overview);
    res.json({ data: await handleUndo({ kind: 'undo', filter: parseFilter(filter), dryRun, force }, ctx) });
  });

  router.post('/revert/:revision', async (req, res) => {
    const overview = await deps.schema.getOverview();
    await handleRevert(
      { kind: 'revert', revision: req.params['revision'] },
      await commandContext(deps, req.accountability, overview),
    );
    res.status(204).end();
  });

  return router;
}
