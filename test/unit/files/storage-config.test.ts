import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { ConfigError, DEFAULT_IMPORT_IP_DENY_LIST, loadConfig } from '../../../src/config/index.js';
import { createStorage } from '../../../src/files/storage/create-storage.js';
import { LocalStorageDriver } from '../../../src/files/storage/local-driver.js';
import { ForbiddenError } from '../../../src/errors.js';

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

  it('reads STORAGE_<KEY>_DRIVER and _ROOT per location; a location without a usable driver stops the start', () => {
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
    expect(createStorage(config.storage).defaultLocation).to.equal('archive');
    const missing = () => createStorage(loadConfig({ STORAGE_LOCATIONS: 's3' }, NO_FILE).storage);
    expect(missing).to.throw(ConfigError, /STORAGE_S3_DRIVER/);
    const unsupported = () =>
      createStorage(loadConfig({ STORAGE_LOCATIONS: 's3', STORAGE_S3_DRIVER: 's3' }, NO_FILE).storage);
    expect(unsupported).to.throw(ConfigError, /local driver only/);
  });
});

describe('local storage driver', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-local-driver-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const driver = new LocalStorageDriver(root);

  it('writes, reads (whole or a range), stats, moves and deletes', async () => {
    expect(await driver.write('a.txt', Readable.from(['hello, ', 'world']))).to.deep.equal({ size: 12 });
    expect(await text(await driver.read('a.txt'))).to.equal('hello, world');
    expect(await text(await driver.read('a.txt', { start: 7, end: 11 }))).to.equal('world');
    expect((await driver.stat('a.txt'))?.size).to.equal(12);
    await driver.move('a.txt', 'b.txt');
    expect(await driver.stat('a.txt')).to.equal(undefined);
    await driver.delete('b.txt');
    await driver.delete('b.txt');
    expect(await readdir(root)).to.deep.equal([]);
  });

  it('a failed write leaves nothing, not even its temporary file, and keeps what was there', async () => {
    await driver.write('keep.txt', Readable.from(['old']));
    const failing = new Readable({
      read() {
        this.push('partial');
        this.destroy(new Error('connection lost'));
      },
    });
    let failed = false;
    await driver.write('keep.txt', failing).catch(() => (failed = true));
    expect(failed).to.equal(true);
    expect(await readdir(root)).to.deep.equal(['keep.txt']);
    expect(await text(await driver.read('keep.txt'))).to.equal('old');
  });

  it('refuses any key that is not a plain file name in its root with FORBIDDEN, on every call', async () => {
    await driver.write('kept.txt', Readable.from(['kept']));
    const refusal = (run: () => Promise<unknown>) =>
      run().then(
        () => 'done',
        (error: unknown) => (error instanceof ForbiddenError ? 'FORBIDDEN' : String(error)),
      );
    for (const key of [
      '../escape.txt',
      'sub/../../escape.txt',
      'sub/file.txt',
      '/etc/passwd',
      '..\\escape.txt',
      'x\u0000.txt',
      '.',
      '..',
      '',
      'x'.repeat(256),
    ]) {
      expect(await refusal(() => driver.write(key, Readable.from(['x']))), key).to.equal('FORBIDDEN');
      expect(await refusal(() => driver.read(key)), key).to.equal('FORBIDDEN');
      expect(await refusal(() => driver.stat(key)), key).to.equal('FORBIDDEN');
      expect(await refusal(() => driver.move('kept.txt', key)), key).to.equal('FORBIDDEN');
      expect(await refusal(() => driver.move(key, 'moved.txt')), key).to.equal('FORBIDDEN');
      expect(await refusal(() => driver.delete(key)), key).to.equal('FORBIDDEN');
    }
    expect(await readdir(root))
      .to.include('kept.txt')
      .and.not.include('moved.txt');
    expect(await readdir(join(root, '..'))).not.to.include('escape.txt');
    await driver.delete('kept.txt');
  });

  it('lists the stored names starting with a prefix, never a write in progress; a missing root lists nothing', async () => {
    await driver.write('f1__a.webp', Readable.from(['a']));
    await driver.write('f1__b.jpg', Readable.from(['b']));
    await driver.write('f1.png', Readable.from(['original']));
    const slow = new Readable({ read() {} });
    slow.push('partial');
    const writing = driver.write('f1__c.png', slow);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await driver.list('f1__')).sort()).to.deep.equal(['f1__a.webp', 'f1__b.jpg']);
    expect(await driver.list('../')).to.deep.equal([]);
    slow.push(null);
    await writing;
    expect((await driver.list('f1__')).sort()).to.deep.equal(['f1__a.webp', 'f1__b.jpg', 'f1__c.png']);
    for (const name of ['f1__a.webp', 'f1__b.jpg', 'f1__c.png', 'f1.png']) await driver.delete(name);
    expect(await new LocalStorageDriver(join(root, 'absent')).list('x')).to.deep.equal([]);
  });

  it('fails reads of missing files', async () => {
    let missing = false;
    await driver.read('nothing.txt').catch(() => (missing = true));
    expect(missing).to.equal(true);
  });
});
