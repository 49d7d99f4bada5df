import { ConfigError, type Config } from '../../config/index.js';
import { InvalidPayloadError } from '../../errors.js';
import { LocalStorageDriver } from './local-driver.js';
import type { StorageDriver } from './storage-driver.js';

/** The configured storage locations (STORAGE_LOCATIONS) and their drivers. */
export interface Storage {
  /** The first of STORAGE_LOCATIONS: where files go unless `storage` says otherwise. */
  readonly defaultLocation: string;
  readonly locations: readonly string[];
  /** The driver of a location; INVALID_PAYLOAD for a key that is not configured. */
  location(key: string): StorageDriver;
}

/**
 * Opens every configured location: the `local` driver (a folder) and the `s3` driver (a
 * bucket of S3 or an S3-compatible server); a location naming another driver (gcs, ...)
 * stops the start with a message naming its variable. The S3 driver (and the AWS SDK, some
 * 10 MB of memory) is loaded only when a location uses it.
 */
export async function createStorage(config: Config['storage']): Promise<Storage> {
  const drivers = new Map<string, StorageDriver>();
  for (const key of config.locations) {
    const location = config.drivers[key];
    const variable = `STORAGE_${key.toUpperCase()}_DRIVER`;
    if (location?.driver === undefined)
      throw new ConfigError(variable, `is required for the storage location "${key}"`);
    if (location.driver === 's3' && location.s3 !== undefined) {
      const { S3StorageDriver } = await import('./s3-driver.js');
      drivers.set(key, new S3StorageDriver(location.s3, location.root));
      continue;
    }
    if (location.driver !== 'local')
      throw new ConfigError(variable, `names "${location.driver}"; the drivers are local and s3`);
    if (location.root === undefined)
      throw new ConfigError(`STORAGE_${key.toUpperCase()}_ROOT`, `is required for the storage location "${key}"`);
    drivers.set(key, new LocalStorageDriver(location.root));
  }
  const [defaultLocation] = config.locations;
  if (defaultLocation === undefined) throw new ConfigError('STORAGE_LOCATIONS', 'must name at least one location');
  return {
    defaultLocation,
    locations: config.locations,
    location(key) {
      const driver = drivers.get(key);
      if (driver === undefined) throw new InvalidPayloadError(`Storage location "${key}" doesn't exist`);
      return driver;
    },
  };
}
