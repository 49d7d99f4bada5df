import type { IncomingMessage } from 'node:http';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { SchemaCache } from '../cache/schema-cache.js';

const overviews = new WeakMap<IncomingMessage, Promise<SchemaOverview>>();

/**
 * The overview one request works with, loaded on first use and shared by its later steps
 * (the role's ip_access, the data cache key, the read): with CACHE_SCHEMA=false each load is
 * a build, and the cache key's version is then the version the answer was read with. A failed
 * load is not kept: the Express app answers a failed fast-path read from the start.
 */
export function requestOverview(req: IncomingMessage, schema: SchemaCache): Promise<SchemaOverview> {
  let overview = overviews.get(req);
  if (overview === undefined) {
    const loading = schema.getOverview();
    overviews.set(req, loading);
    void loading.catch(() => overviews.delete(req));
    overview = loading;
  }
  return overview;
}
