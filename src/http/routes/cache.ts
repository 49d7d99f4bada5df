import { Router } from 'express';
import type { DataInvalidation } from '../../cache/data-invalidation.js';
import type { SchemaCache } from '../../cache/schema-cache.js';
import { requireAdmin } from '../require-admin.js';

/**
 * POST /utils/cache/clear (reference/audit-and-utils.md): admin only; resets the schema cache
 * and what is remembered from rows (static tokens' users) on every instance: a table created,
 * or a user changed, outside the service is seen afterwards. `?system` is accepted and
 * changes nothing. Other caches purge here as they arrive.
 */
export function cacheRoutes({ schema, invalidation }: { readonly schema: SchemaCache; readonly invalidation: DataInvalidation }): Router {
  const router = Router();
  router.post('/clear', async (req, res) => {
    requireAdmin(req);
    await schema.invalidate();
    await invalidation.changed();
    res.status(200).end();
  });
  return router;
}
