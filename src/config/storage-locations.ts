import { ConfigError, type EnvReader } from './env-reader.js';

/** The connection of an `s3` location: STORAGE_<KEY>_KEY, _SECRET, _BUCKET, _REGION, _ENDPOINT, _FORCE_PATH_STYLE. */
export interface S3LocationConfig {
  /** Access key id and secret; both unset: the SDK's own chain (environment, instance role...). */
  readonly key: string | undefined;
  readonly secret: string | undefined;
  readonly bucket: string;
  readonly region: string;
  /** An S3-compatible server (MinIO, s3rver...); unset: AWS. */
  readonly endpoint: string | undefined;
  /** `http://host/bucket/key` rather than `http://bucket.host/key` (most S3-compatible servers). */
  readonly forcePathStyle: boolean;
}

interface StorageLocationConfig {
  /** undefined when STORAGE_<KEY>_DRIVER is unset for a key other than `local`. */
  readonly driver: string | undefined;
  /** The folder (local), or the key prefix inside the bucket (s3; unset: the bucket's top). */
  readonly root: string | undefined;
  /** Only for the `s3` driver. */
  readonly s3?: S3LocationConfig;
}

export interface StorageConfig {
  /** STORAGE_LOCATIONS: location keys; the first is where uploads go by default. */
  readonly locations: readonly string[];
  readonly localRoot: string;
  /** Per location: STORAGE_<KEY>_DRIVER (`local` for the key `local`), _ROOT, and the s3 driver's settings. */
  readonly drivers: Readonly<Record<string, StorageLocationConfig>>;
  readonly maxUploadSize: number;
}

/** STORAGE_LOCATIONS and each location's STORAGE_<KEY>_*. */
export function readStorageLocations(env: EnvReader): Omit<StorageConfig, 'maxUploadSize'> {
  const locations = env.list('STORAGE_LOCATIONS', ['local']);
  if (locations.length === 0) throw new ConfigError('STORAGE_LOCATIONS', 'must name at least one location');
  const localRoot = env.string('STORAGE_LOCAL_ROOT', './uploads');
  const drivers: Record<string, StorageLocationConfig> = {};
  for (const location of locations) {
    const prefix = `STORAGE_${location.toUpperCase()}`;
    const driver = env.string(`${prefix}_DRIVER`) ?? (location === 'local' ? 'local' : undefined);
    const root = location === 'local' ? localRoot : env.string(`${prefix}_ROOT`);
    drivers[location] = driver === 's3' ? { driver, root, s3: readS3(env, prefix) } : { driver, root };
  }
  return { locations, localRoot, drivers };
}

function readS3(env: EnvReader, prefix: string): S3LocationConfig {
  const key = env.string(`${prefix}_KEY`);
  const secret = env.string(`${prefix}_SECRET`);
  if ((key === undefined) !== (secret === undefined)) {
    const missing = key === undefined ? `${prefix}_KEY` : `${prefix}_SECRET`;
    throw new ConfigError(missing, `is required with ${key === undefined ? `${prefix}_SECRET` : `${prefix}_KEY`}`);
  }
  const bucket = env.string(`${prefix}_BUCKET`);
  if (bucket === undefined) throw new ConfigError(`${prefix}_BUCKET`, 'is required for an s3 location');
  const endpoint = env.url(`${prefix}_ENDPOINT`);
  if (endpoint !== undefined && !/^https?:$/.test(new URL(endpoint).protocol))
    throw new ConfigError(`${prefix}_ENDPOINT`, `must be an http or https URL, got "${endpoint}"`);
  return {
    key,
    secret,
    bucket,
    region: env.string(`${prefix}_REGION`, 'us-east-1'),
    endpoint,
    forcePathStyle: env.bool(`${prefix}_FORCE_PATH_STYLE`, false),
  };
}
