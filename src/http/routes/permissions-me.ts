import { Router, type Request } from 'express';
import { collectionAccessOf } from '../../access/collection-access.js';
import { loadPermissions } from '../../access/load-permissions.js';
import { canReadCollection, readAccessOf } from '../../access/read-access.js';
import { readItemPermissions } from '../../commands/item-permissions.js';
import { ForbiddenError } from '../../errors.js';
import { collectionParam } from '../collection-name.js';
import { readContext, type ReadContextDeps } from '../read-context.js';
import { requireUser } from '../require-user.js';
import type { ReaderDeps } from '../../query/index.js';

/**
 * The caller's own permissions under /permissions,
 * mounted before the svc_permissions item routes (`me` is never an item id). Both need a
 * user (401 INVALID_CREDENTIALS otherwise).
 * - GET /permissions/me: per collection and action, `{access: none|partial|full, fields?,
 *   presets?}` (Directus's CollectionAccess);
 * - GET /permissions/me/:collection/:id?: `{update: {access, presets?, fields?}, delete:
 *   {access}, share: {access}}`; an unknown or unreadable collection is FORBIDDEN.
 */
export function permissionsMeRoutes(deps: ReadContextDeps & ReaderDeps): Router {
  const router = Router();

  const load = async (req: Request) => {
    requireUser(req);
    const ctx = await readContext(deps, req);
    const permissions = await loadPermissions(
      { db: deps.db, store: deps.permissions, overview: ctx.overview },
      req.accountability,
    );
    return { ctx, permissions };
  };

  router.get('/me', async (req, res) => {
    const { ctx, permissions } = await load(req);
    res.json({ data: collectionAccessOf(permissions, ctx.overview) });
  });

  router.get(['/me/:collection', '/me/:collection/:id'], async (req, res) => {
    const { ctx, permissions } = await load(req);
    const collection = collectionParam(req);
    // Collection names: unknown and unreadable look the same.
    if (
      ctx.overview.collections[collection] === undefined ||
      !canReadCollection(readAccessOf(permissions), collection)
    ) {
      throw new ForbiddenError();
    }
    const id: unknown = req.params['id'];
    const data = await readItemPermissions(
      { ...ctx, accountability: req.accountability, permissions },
      collection,
      typeof id === 'string' ? id : undefined,
    );
    res.json({ data });
  });

  return router;
}
