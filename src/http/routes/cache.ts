import { Router } from 'express';
import type { DataInvalidation } from '../../cache/data-invalidation.js';
import type { SchemaCache } from '../../cache/schema-cache.js';
import { requireAdmin } from '../require-admin.js';

interface CacheDeps {
  readonly schema: SchemaCache;
  readonly invalidation: DataInvalidation;
}

/**
 * POST /utils/cache/clear: admin only; see {@link clearCaches}.
 * `?system` is accepted and changes nothing.
 */
export function cacheRoutes(deps: CacheDeps): Router {
  const router = Router();
  router.post('/clear', async (req, res) => {
    requireAdmin(req);
    await clearCaches(deps);
    res.status(200).end();
  });
  return router;
}

/**
 * Resets the schema cache, the data cache and what is remembered from rows (static tokens'
 * users) on every instance: a table created, or a row changed, outside the service is seen
 * afterwards. Also GraphQL's `utils_cache_clear`.
 */
export async function clearCaches({ schema, invalidation }: CacheDeps): Promise<void> {
  await schema.invalidate();
  await invalidation.changed();
}
