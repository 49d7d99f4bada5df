import { expect } from 'chai';
import { ConfigError, DEFAULT_IMPORT_IP_DENY_LIST, loadConfig } from '../../../src/config/index.js';
import { createStorage } from '../../../src/files/storage/create-storage.js';

const NO_FILE = { defaultConfigPath: '/nonexistent/.env' };

describe('storage and file configuration', () => {
  it('defaults: the local location under ./uploads, no upload limit, every type, the wide import deny list, job settings', () => {
    const config = loadConfig({}, NO_FILE);
    expect(config.storage).to.deep.equal({
      locations: ['local'],
      localRoot: './uploads',
      drivers: { local: { driver: 'local', root: './uploads' } },
      maxUploadSize: Infinity,
    });
    expect(config.mimeTypeAllowList).to.deep.equal(['*/*']);
    expect(config.assetsCacheTtlMs).to.equal(30 * 24 * 3600 * 1000);
    expect(config.importIpDenyList).to.deep.equal([...DEFAULT_IMPORT_IP_DENY_LIST]);
    expect(config.jobs).to.deep.equal({
      attempts: 3,
      lockDurationMs: 30_000,
      stalledIntervalMs: 30_000,
      concurrency: 1,
    });
  });

  it('reads STORAGE_<KEY>_DRIVER and _ROOT per location; a location without a usable driver stops the start', async () => {
    const config = loadConfig(
      {
        STORAGE_LOCATIONS: 'archive,local',
        STORAGE_ARCHIVE_DRIVER: 'local',
        STORAGE_ARCHIVE_ROOT: '/srv/archive',
        FILES_MAX_UPLOAD_SIZE: '10mb',
      },
      NO_FILE,
    );
    expect(config.storage.drivers).to.deep.equal({
      archive: { driver: 'local', root: '/srv/archive' },
      local: { driver: 'local', root: './uploads' },
    });
    expect(config.storage.maxUploadSize).to.equal(10 * 1024 * 1024);
    expect((await createStorage(config.storage)).defaultLocation).to.equal('archive');
    const load = (env: Record<string, string>) => () => loadConfig(env, NO_FILE);
    expect(load({ STORAGE_LOCATIONS: 's3' })).to.throw(
      ConfigError,
      /STORAGE_S3_DRIVER is required for the storage location "s3"/,
    );
    expect(load({ STORAGE_LOCATIONS: 'gcs', STORAGE_GCS_DRIVER: 'gcs' })).to.throw(
      ConfigError,
      /STORAGE_GCS_DRIVER names "gcs"; the drivers are local and s3/,
    );
    // A local location other than `local` has no default folder.
    expect(load({ STORAGE_LOCATIONS: 'archive', STORAGE_ARCHIVE_DRIVER: 'local' })).to.throw(
      ConfigError,
      /STORAGE_ARCHIVE_ROOT is required for the storage location "archive"/,
    );
    // A name the registry holds only by inheritance is no driver.
    expect(load({ STORAGE_LOCATIONS: 'x', STORAGE_X_DRIVER: 'toString' })).to.throw(ConfigError, /names "toString"/);
  });

  it('reads an s3 location: STORAGE_<KEY>_KEY, _SECRET, _BUCKET, _REGION, _ENDPOINT, _FORCE_PATH_STYLE, _ROOT', async () => {
    const env = {
      STORAGE_LOCATIONS: 's3,local',
      STORAGE_S3_DRIVER: 's3',
      STORAGE_S3_KEY: 'AKIA',
      STORAGE_S3_SECRET: 'shh',
      STORAGE_S3_BUCKET: 'files',
      STORAGE_S3_ENDPOINT: 'http://127.0.0.1:9000',
      STORAGE_S3_FORCE_PATH_STYLE: 'true',
      STORAGE_S3_ROOT: 'uploads/',
    };
    const config = loadConfig(env, NO_FILE);
    expect(config.storage.drivers['s3']).to.deep.equal({
      driver: 's3',
      root: 'uploads/',
      s3: {
        key: 'AKIA',
        secret: 'shh',
        bucket: 'files',
        region: 'us-east-1',
        endpoint: 'http://127.0.0.1:9000',
        forcePathStyle: true,
      },
    });
    expect((await createStorage(config.storage)).defaultLocation).to.equal('s3');
    const { STORAGE_S3_KEY: _key, STORAGE_S3_SECRET: _secret, ...withoutKeys } = env;
    const keyless = loadConfig({ ...withoutKeys, STORAGE_S3_REGION: 'eu-west-1' }, NO_FILE).storage.drivers['s3'];
    expect(keyless?.driver === 's3' ? keyless.s3 : undefined).to.include({
      key: undefined,
      secret: undefined,
      region: 'eu-west-1',
    });
    const load = (extra: Record<string, string | undefined>) => () => loadConfig({ ...env, ...extra }, NO_FILE);
    expect(load({ STORAGE_S3_BUCKET: undefined })).to.throw(ConfigError, /STORAGE_S3_BUCKET is required/);
    expect(load({ STORAGE_S3_SECRET: undefined })).to.throw(ConfigError, /STORAGE_S3_SECRET is required with/);
    expect(load({ STORAGE_S3_ENDPOINT: 'minio:9000' })).to.throw(
      ConfigError,
      /STORAGE_S3_ENDPOINT must be an http or https URL/,
    );
    expect(load({ STORAGE_S3_FORCE_PATH_STYLE: 'yes' })).to.throw(
      ConfigError,
      /STORAGE_S3_FORCE_PATH_STYLE must be true/,
    );
  });
});
