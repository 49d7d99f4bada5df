import { Router, type Request } from 'express';
import type { Accountability } from '../../access/accountability.js';
import { collectionAccessOf } from '../../access/collection-access.js';
import { loadPermissions } from '../../access/load-permissions.js';
import { ForbiddenError } from '../../errors.js';
import { readItems, readMeta, readerOf, type ReaderDeps } from '../../query/index.js';
import { collectionParam } from '../collection-name.js';
import { readContext, requestQuery, type ReadContextDeps } from '../read-context.js';

/** The path segment that names the public role (no svc_roles row). */
const PUBLIC_ROLE = 'public';

/**
 * "View as role" under /permissions, for administrators only (403 FORBIDDEN otherwise):
 * - GET /permissions/preview/:role: what GET /permissions/me answers a member of the role;
 * - GET /permissions/preview/:role/items/:collection: the items (and fields) that role reads,
 *   the query string applying as on /items, with `meta` as asked.
 * The role acts as the user `?user=` names (one of its own, else FORBIDDEN), or as no user
 * (`$CURRENT_USER` is null), with its own admin and app access;
 * only reads are routed, so nothing is written as the role. Each preview leaves a `preview`
 * row in svc_activity (the administrator, svc_roles, the role; the collection in `comment`).
 */
export function permissionsPreviewRoutes(deps: ReadContextDeps & ReaderDeps): Router {
  const router = Router();

  /** The role's accountability: an unknown role is FORBIDDEN, as unknown items are. */
  const roleOf = async (req: Request): Promise<Accountability> => {
    if (!req.accountability.admin) throw new ForbiddenError();
    const id = String(req.params['role']);
    const { ip, userAgent, origin } = req.accountability;
    if (id === PUBLIC_ROLE)
      return Object.freeze({ user: null, role: null, admin: false, app: false, ip, userAgent, origin });
    const row = await deps
      .db('svc_roles')
      .where({ id })
      .first<{ id: string; admin_access: unknown; app_access: unknown } | undefined>(
        'id',
        'admin_access',
        'app_access',
      );
    if (row === undefined) throw new ForbiddenError();
    const user = typeof req.query['user'] === 'string' && req.query['user'] !== '' ? req.query['user'] : null;
    // A user of another role (or none) looks like an unknown one.
    if (user !== null && (await deps.db('svc_users').where({ id: user, role: row.id }).first('id')) === undefined)
      throw new ForbiddenError();
    const flag = (value: unknown) => value === true || value === 1 || value === '1';
    return Object.freeze({
      user,
      role: row.id,
      admin: flag(row.admin_access),
      app: flag(row.app_access) || flag(row.admin_access),
      ip,
      userAgent,
      origin,
    });
  };

  const audit = async (req: Request, role: Accountability, collection: string | null) => {
    await deps.db('svc_activity').insert({
      action: 'preview',
      user: req.accountability.user,
      collection: 'svc_roles',
      item: role.role ?? PUBLIC_ROLE,
      comment: collection,
      ip: req.accountability.ip,
      user_agent: req.accountability.userAgent,
      origin: req.accountability.origin,
    });
  };

  router.get('/preview/:role', async (req, res) => {
    const role = await roleOf(req);
    const ctx = await readContext(deps, req, role);
    const permissions = await loadPermissions({ db: deps.db, store: deps.permissions, overview: ctx.overview }, role);
    await audit(req, role, null);
    res.json({ data: collectionAccessOf(permissions, ctx.overview) });
  });

  router.get('/preview/:role/items/:collection', async (req, res) => {
    const role = await roleOf(req);
    const collection = collectionParam(req);
    const ctx = await readContext(deps, req, role);
    const reader = await readerOf(deps, ctx.overview, role);
    const query = requestQuery(req);
    const [items, meta] = await Promise.all([
      readItems(ctx, collection, query, reader),
      readMeta(ctx, collection, query, reader),
    ]);
    await audit(req, role, collection);
    res.json(Object.keys(meta).length > 0 ? { meta, data: items } : { data: items });
  });

  return router;
}
