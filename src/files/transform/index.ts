import type { Knex } from 'knex';
import type { AssetsTransformConfig } from '../../config/index.js';
import type { ReadContext } from '../../query/index.js';
import type { Asset } from '../storage/storage-driver.js';
import { FILES_COLLECTION } from '../file-library.js';
import type { Storage } from '../storage/create-storage.js';
import {
  askedTransformation,
  resolveTransformation,
  transformSettings,
  type TransformSettingsRow,
  type Transformation,
} from './transformation.js';
import type { AssetTransformer } from './transformer.js';

export { AssetTransformer, type TransformLog } from './transformer.js';
export type { Transformation } from './transformation.js';

/**
 * The transformation an /assets query asks for under the project's settings
 * (storage_asset_transform, storage_asset_presets) and ASSETS_TRANSFORM_* limits; undefined
 * for none. 400 ILLEGAL_ASSET_TRANSFORMATION for what they do not allow.
 */
export async function assetTransformation(
  db: Knex | Knex.Transaction,
  query: Readonly<Record<string, unknown>>,
  config: AssetsTransformConfig,
): Promise<Transformation | undefined> {
  const limits = { maxOperations: config.maxOperations, maxDimension: config.imageMaxDimension };
  // Values are checked before the settings are read: a malformed request costs no query.
  const asked = askedTransformation(query, limits);
  if (asked === undefined) return undefined;
  const row = await db<TransformSettingsRow>('svc_settings').first('storage_asset_transform', 'storage_asset_presets');
  return resolveTransformation(asked, transformSettings(row), limits);
}

interface SourceRow {
  readonly storage: string;
  readonly filename_disk: string;
  readonly type: string | null;
  readonly width: number | string | null;
  readonly height: number | string | null;
}

/**
 * `original` (findAsset's, so read permission is already checked) transformed, or the
 * original itself when it is not an image sharp transforms (the
 * parameters are ignored for other files).
 */
export async function transformedAsset(
  ctx: ReadContext,
  transformer: AssetTransformer,
  storage: Storage,
  id: string,
  original: Asset,
  transformation: Transformation,
  accept: string | undefined,
): Promise<Asset> {
  const row = await ctx
    .db<SourceRow>(FILES_COLLECTION)
    .where('id', id.toLowerCase())
    .first('storage', 'filename_disk', 'type', 'width', 'height');
  if (row === undefined) return original;
  const variant = await transformer.variant(
    {
      id: id.toLowerCase(),
      type: original.type,
      filenameDownload: original.filenameDownload,
      driver: storage.location(row.storage),
      path: row.filename_disk,
      width: row.width === null ? null : Number(row.width),
      height: row.height === null ? null : Number(row.height),
      size: original.size,
      modified: original.modified,
    },
    transformation,
    accept,
  );
  return variant ?? original;
}
