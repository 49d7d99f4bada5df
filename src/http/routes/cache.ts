import { Router } from 'express';
import type { SchemaCache } from '../../cache/schema-cache.js';
import { requireAdmin } from '../require-admin.js';

/**
 * POST /utils/cache/clear (reference/audit-and-utils.md): admin only; resets the schema cache
 * on every instance (a table created outside the service is served afterwards). `?system` is
 * accepted and changes nothing. Other caches (data, permissions) purge here as they arrive.
 */
export function cacheRoutes({ schema }: { readonly schema: SchemaCache }): Router {
  const router = Router();
  router.post('/clear', async (req, res) => {
    requireAdmin(req);
    await schema.invalidate();
    res.status(200).end();
  });
  return router;
}
