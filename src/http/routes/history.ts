import { Router } from 'express';
import { historyOptions, readItemHistory, readRevisionDiff, readerOf } from '../../query/index.js';
import { InvalidQueryError } from '../../errors.js';
import { collectionParam } from '../collection-name.js';
import { readContext } from '../read-context.js';
import { requestParams } from '../request-pipeline.js';
import type { ReadRouteDeps } from './items-read.js';

/**
 * History reads (issue 18): GET /revisions/:id/diff?to= and GET /items/:collection/:id/history
 * ?limit&page&field (src/query/history). Thin: parse, read, `{data}`.
 */
export function historyRoutes(deps: ReadRouteDeps): Router {
  const router = Router();

  router.get('/revisions/:id/diff', async (req, res) => {
    const ctx = await readContext(deps, req);
    const reader = await readerOf(deps, ctx.overview, req.accountability);
    const { to } = requestParams(req);
    if (to !== undefined && typeof to !== 'string') throw new InvalidQueryError('"to" must be a revision id');
    res.json({ data: await readRevisionDiff(ctx, reader, req.params['id'], to) });
  });

  router.get('/items/:collection/:id/history', async (req, res) => {
    const ctx = await readContext(deps, req);
    const reader = await readerOf(deps, ctx.overview, req.accountability);
    const options = historyOptions(ctx, requestParams(req));
    res.json({ data: await readItemHistory(ctx, reader, collectionParam(req), req.params['id'], options) });
  });

  return router;
}
