import type { Config, StorageDriverName, StorageLocationConfig } from '../../config/index.js';
import { ConfigError } from '../../config/index.js';
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

type Opener<Name extends StorageDriverName> = (
  location: Extract<StorageLocationConfig, { driver: Name }>,
) => Promise<StorageDriver>;

/**
 * How each driver opens a location from the settings config/storage-locations.ts read for it: a
 * new driver is its file and a line here. The S3 driver (and the AWS SDK, some 10 MB of memory)
 * is loaded only when a location uses it.
 */
const OPENERS: { readonly [Name in StorageDriverName]: Opener<Name> } = {
  local: (location) => Promise.resolve(new LocalStorageDriver(location.root)),
  s3: async (location) => new (await import('./s3-driver.js')).S3StorageDriver(location.s3, location.root),
};

/** Opens every configured location with its driver. */
export async function createStorage(config: Config['storage']): Promise<Storage> {
  const drivers = new Map<string, StorageDriver>();
  for (const key of config.locations) {
    const location = config.drivers[key];
    if (location === undefined) throw new ConfigError('STORAGE_LOCATIONS', `names "${key}", which has no settings`);
    drivers.set(key, await (OPENERS[location.driver] as Opener<typeof location.driver>)(location));
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
