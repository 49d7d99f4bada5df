import { Router } from 'express';
import { pipeline } from 'node:stream/promises';
import { RangeNotSatisfiableError } from '../../errors.js';
import { assetSafetyHeaders, findAsset, parseRange } from '../../files/assets.js';
import { contentDisposition } from '../../files/file-names.js';
import type { Storage } from '../../files/storage/create-storage.js';
import {
  AssetTransformer,
  assetTransformation,
  transformedAsset,
  type TransformLog,
} from '../../files/transform/index.js';
import { readerOf } from '../../query/index.js';
import { readContext } from '../read-context.js';
import type { ItemWriteDeps } from './item-writes.js';

export interface AssetRouteDeps extends ItemWriteDeps {
  readonly storage: Storage;
  readonly logger?: TransformLog;
}

/**
 * GET /assets/:id and /assets/:id/:filename: the
 * raw content for callers who may read the file's row, with Range support (206 / 416) and
 * `?download` for an attachment; image transformations (width, height, fit, quality, format,
 * withoutEnlargement, transforms, key) through files/transform/.
 */
export function assetRoutes(deps: AssetRouteDeps): Router {
  const router = Router();
  const transformer = new AssetTransformer(deps.config.assetsTransform, deps.logger);
  router.get(['/:id', '/:id/:filename'], async (req, res) => {
    const ctx = await readContext(deps, req);
    const transformation = await assetTransformation(ctx.db, req.query, deps.config.assetsTransform);
    const reader = await readerOf(deps, ctx.overview, req.accountability);
    const id = String(req.params['id']);
    const original = await findAsset(ctx, reader, deps.storage, id);
    const asset =
      transformation === undefined
        ? original
        : await transformedAsset(ctx, transformer, deps.storage, id, original, transformation, req.get('accept'));
    if (transformation?.format === 'auto') res.vary('Accept');
    let range: ReturnType<typeof parseRange>;
    try {
      range = parseRange(req.get('range'), asset.size);
    } catch (error) {
      if (error instanceof RangeNotSatisfiableError) res.setHeader('Content-Range', `bytes */${asset.size}`);
      throw error;
    }
    const disposition = req.query['download'] === undefined ? 'inline' : 'attachment';
    res.status(range === undefined ? 200 : 206);
    res.setHeader('Content-Type', asset.type);
    res.set(assetSafetyHeaders(asset.type));
    res.setHeader('Content-Disposition', contentDisposition(disposition, asset.filenameDownload));
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Last-Modified', asset.modified.toUTCString());
    res.setHeader('Cache-Control', `private, max-age=${Math.round(deps.config.assetsCacheTtlMs / 1000)}`);
    res.setHeader('Content-Length', String(range === undefined ? asset.size : range.end - range.start + 1));
    if (range !== undefined) res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${asset.size}`);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const content = await asset.open(range);
    try {
      await pipeline(content, res);
    } catch (error) {
      // The client went away mid-download: nothing to answer.
      if (!res.destroyed) throw error;
    }
  });
  return router;
}
