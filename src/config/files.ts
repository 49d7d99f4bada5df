import type { EnvReader } from './env-reader.js';
import { readAssetsTransformConfig, type AssetsTransformConfig } from './assets-transform.js';
import { readStorageLocations, type StorageConfig } from './storage-locations.js';

/**
 * IMPORT_IP_DENY_LIST default: every local interface, loopback, the private, shared and
 * link-local ranges and the cloud metadata addresses, so /files/import cannot reach into the
 * service's own network ([DEVIATION] wider than the convention's `0.0.0.0,169.254.169.254`).
 */
export const DEFAULT_IMPORT_IP_DENY_LIST = [
  '0.0.0.0',
  '0.0.0.0/8',
  '127.0.0.0/8',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  '169.254.0.0/16',
  '169.254.169.254',
  '::',
  '::1',
  'fc00::/7',
  'fe80::/10',
  'fd00:ec2::254',
] as const;

/** Storage, uploads, assets, imports and exports. */
export interface FilesConfig {
  readonly storage: StorageConfig;
  /** FILES_MIME_TYPE_ALLOW_LIST: exact types (`application/pdf`) or a type with any subtype (`image` + `/` + `*`). */
  readonly mimeTypeAllowList: readonly string[];
  readonly assetsCacheTtlMs: number;
  readonly assetsTransform: AssetsTransformConfig;
  /** IMPORT_IP_DENY_LIST: addresses and CIDR ranges /files/import refuses; `0.0.0.0` = every local interface. */
  readonly importIpDenyList: readonly string[];
  readonly exportBatchSize: number;
  /** IMPORT_MAX_SIZE: the most bytes of a file `/utils/import` reads (Infinity: no limit). */
  readonly importMaxSize: number;
  /**
   * EXPORT_CSV_ESCAPE_FORMULAS: csv exports put `'` before a text cell starting with `=`, `+`,
   * `-`, `@`, tab or carriage return, so a spreadsheet shows it instead of running it (OWASP).
   */
  readonly exportCsvEscapeFormulas: boolean;
}

/** STORAGE_*, FILES_*, ASSETS_*, IMPORT_IP_DENY_LIST, IMPORT_MAX_SIZE and EXPORT_*. */
export function readFilesConfig(env: EnvReader): FilesConfig {
  return {
    storage: { ...readStorageLocations(env), maxUploadSize: readUnlimitedSize(env, 'FILES_MAX_UPLOAD_SIZE') },
    mimeTypeAllowList: env.list('FILES_MIME_TYPE_ALLOW_LIST', ['*/*']),
    assetsCacheTtlMs: env.duration('ASSETS_CACHE_TTL', '30d'),
    assetsTransform: readAssetsTransformConfig(env),
    importIpDenyList: env.list('IMPORT_IP_DENY_LIST', DEFAULT_IMPORT_IP_DENY_LIST),
    exportBatchSize: env.int('EXPORT_BATCH_SIZE', 5000, { min: 1 }),
    importMaxSize: readUnlimitedSize(env, 'IMPORT_MAX_SIZE', '1gb'),
    exportCsvEscapeFormulas: env.bool('EXPORT_CSV_ESCAPE_FORMULAS', true),
  };
}

function readUnlimitedSize(env: EnvReader, name: string, fallback = 'unlimited'): number {
  const value = env.raw(name) ?? fallback;
  if (/^(unlimited|infinity)$/i.test(value)) return Infinity;
  return env.size(name, value);
}
