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

/**
 * Each storage driver's settings, read per location from STORAGE_<KEY>_* at start: a new driver
 * is a line here and its file under files/storage/, opened by the line of the same name there
 * (create-storage.ts; the compiler asks for it).
 */
const STORAGE_DRIVERS = {
  /** A folder: STORAGE_<KEY>_ROOT (STORAGE_LOCAL_ROOT, default ./uploads, for the key `local`). */
  local: (env: EnvReader, prefix: string, location: string) => ({
    root:
      location === 'local' ? env.string('STORAGE_LOCAL_ROOT', './uploads') : required(env, `${prefix}_ROOT`, location),
  }),
  /** A bucket of S3 or an S3-compatible server; _ROOT is the key prefix inside it (unset: the bucket's top). */
  s3: (env: EnvReader, prefix: string) => ({ root: env.string(`${prefix}_ROOT`), s3: readS3(env, prefix) }),
} as const;

/** The drivers STORAGE_<KEY>_DRIVER may name. */
export type StorageDriverName = keyof typeof STORAGE_DRIVERS;

/** One location: its driver's name and that driver's settings. */
export type StorageLocationConfig = {
  [Name in StorageDriverName]: { readonly driver: Name } & ReturnType<(typeof STORAGE_DRIVERS)[Name]>;
}[StorageDriverName];

export interface StorageConfig {
  /** STORAGE_LOCATIONS: location keys; the first is where uploads go by default. */
  readonly locations: readonly string[];
  readonly localRoot: string;
  /** Per location: STORAGE_<KEY>_DRIVER (`local` for the key `local`) and that driver's settings. */
  readonly drivers: Readonly<Record<string, StorageLocationConfig>>;
  readonly maxUploadSize: number;
}

/**
 * STORAGE_LOCATIONS and each location's STORAGE_<KEY>_*. A location without a driver, or naming
 * one this build lacks, or without its driver's required settings, stops the start.
 */
export function readStorageLocations(env: EnvReader): Omit<StorageConfig, 'maxUploadSize'> {
  const locations = env.list('STORAGE_LOCATIONS', ['local']);
  if (locations.length === 0) throw new ConfigError('STORAGE_LOCATIONS', 'must name at least one location');
  const drivers: Record<string, StorageLocationConfig> = {};
  for (const location of locations) {
    const prefix = `STORAGE_${location.toUpperCase()}`;
    const driver = env.string(`${prefix}_DRIVER`) ?? (location === 'local' ? 'local' : undefined);
    if (driver === undefined)
      throw new ConfigError(`${prefix}_DRIVER`, `is required for the storage location "${location}"`);
    if (!Object.hasOwn(STORAGE_DRIVERS, driver)) {
      const names = Object.keys(STORAGE_DRIVERS).join(' and ');
      throw new ConfigError(`${prefix}_DRIVER`, `names "${driver}"; the drivers are ${names}`);
    }
    const name = driver as StorageDriverName;
    drivers[location] = { driver: name, ...STORAGE_DRIVERS[name](env, prefix, location) } as StorageLocationConfig;
  }
  return { locations, localRoot: env.string('STORAGE_LOCAL_ROOT', './uploads'), drivers };
}

function required(env: EnvReader, variable: string, location: string): string {
  const value = env.string(variable);
  if (value === undefined) throw new ConfigError(variable, `is required for the storage location "${location}"`);
  return value;
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
