import { Router, type Request, type Response } from 'express';
import { requireCollection } from '../../../catalog/overview/lookup.js';
import { commandContext } from '../../commands/command-context.js';
import { handleDelete } from '../../commands/delete.js';
import type { PrimaryKey } from '../../commands/types.js';
import { handleUpdate } from '../../commands/update.js';
import {
  VERSIONS_COLLECTION,
  handleCreateVersion,
  handlePromoteVersion,
  handleSaveVersion,
  parseVersionPatch,
  parsePromotion,
  parseNewVersion,
} from '../../commands/versions.js';
import { compareVersion, readItemVersion, readerOf } from '../../query/index.js';
import { ForbiddenError } from '../../errors.js';
import { readContext, requestQuery } from '../read-context.js';
import { ItemsService } from '../../items/items-service.js';
import { requirePermitted } from '../../items/permission-first.js';
import { readSelection, requireItem, requireKey, type ItemWriteDeps } from './item-writes.js';

/**
 * Content versions (issue 18; Directus 10.7+ names): GET /versions[/:id] are the svc_versions
 * reads of items-read.ts; here the writes, which go through commands/versions.ts (never as
 * /items/svc_versions: a version's collection, item and hash are the service's), and
 * POST /versions/:id/save, GET /versions/:id/compare, POST /versions/:id/promote.
 */
export function versionRoutes(deps: ItemWriteDeps): Router {
  const router = Router();

  const context = async (req: Request) => {
    const overview = await deps.schema.getOverview();
    return { overview, ctx: await commandContext(deps, req.accountability, overview) };
  };
  const reply = async (req: Request, keys: readonly PrimaryKey[], shape: 'one' | 'many') => {
    const query = requestQuery(req);
    const items = new ItemsService(VERSIONS_COLLECTION, deps, { accountability: req.accountability });
    return (await items.readWritten(keys, query, shape)) ?? undefined;
  };
  const send = (res: Response, data: unknown) => {
    if (data === undefined) res.status(204).end();
    else res.json({ data });
  };

  router.post('/', async (req, res) => {
    const { overview, ctx } = await context(req);
    // Permission before the body (issue 36): the answer never depends on the named collection.
    requirePermitted(ctx, requireCollection(overview, VERSIONS_COLLECTION), ['create']);
    const key = await handleCreateVersion(parseNewVersion(req.body), ctx);
    send(res, await reply(req, [key], 'one'));
  });

  router.patch('/', async (req, res) => {
    const { overview, ctx } = await context(req);
    requirePermitted(ctx, requireCollection(overview, VERSIONS_COLLECTION), ['update']);
    const { data, ...rest } = requireItem(req.body ?? {});
    const selection = readSelection(rest);
    const keys = await handleUpdate(
      { kind: 'update', collection: VERSIONS_COLLECTION, ...selection, data: parseVersionPatch(data) },
      ctx,
    );
    send(res, await reply(req, keys, 'many'));
  });

  router.patch('/:id', async (req, res) => {
    const { overview, ctx } = await context(req);
    requirePermitted(ctx, requireCollection(overview, VERSIONS_COLLECTION), ['update']);
    const keys = await handleUpdate(
      { kind: 'update', collection: VERSIONS_COLLECTION, keys: [idOf(req)], data: parseVersionPatch(req.body) },
      ctx,
    );
    send(res, await reply(req, keys, 'one'));
  });

  router.delete('/', async (req, res) => {
    const { overview, ctx } = await context(req);
    requirePermitted(ctx, requireCollection(overview, VERSIONS_COLLECTION), ['delete']);
    const body: unknown = req.body;
    const selection = Array.isArray(body) ? { keys: body.map(requireKey) } : readSelection(requireItem(body ?? {}));
    await handleDelete({ kind: 'delete', collection: VERSIONS_COLLECTION, ...selection }, ctx);
    res.status(204).end();
  });

  router.delete('/:id', async (req, res) => {
    const { overview, ctx } = await context(req);
    requirePermitted(ctx, requireCollection(overview, VERSIONS_COLLECTION), ['delete']);
    await handleDelete({ kind: 'delete', collection: VERSIONS_COLLECTION, keys: [idOf(req)] }, ctx);
    res.status(204).end();
  });

  // The item as the version has it now, with the caller's `fields` (as GET /items/:c/:id?version=).
  router.post('/:id/save', async (req, res) => {
    const { ctx } = await context(req);
    const version = await handleSaveVersion(idOf(req), req.body, ctx);
    const read = await readContext(deps, req);
    const reader = await readerOf(deps, read.overview, req.accountability);
    const query = requestQuery(req);
    try {
      res.json({ data: await readItemVersion(read, reader, version.collection, version.item, query, version.key) });
    } catch (error) {
      // Saved, but not readable by the caller (update without read): no content, like a write's re-read.
      if (!(error instanceof ForbiddenError)) throw error;
      res.status(204).end();
    }
  });

  router.get('/:id/compare', async (req, res) => {
    const read = await readContext(deps, req);
    const reader = await readerOf(deps, read.overview, req.accountability);
    res.json({ data: await compareVersion(read, reader, idOf(req)) });
  });

  // Answers the live item's key (Directus); the item itself is a read of /items away.
  router.post('/:id/promote', async (req, res) => {
    const { ctx } = await context(req);
    res.json({ data: await handlePromoteVersion(parsePromotion(idOf(req), req.body), ctx) });
  });

  return router;
}

function idOf(req: Request): string {
  return String(req.params['id']);
}
