import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { loadConfig } from '../../../src/config/index.js';
import { ForbiddenError, ServiceUnavailableError } from '../../../src/errors.js';
import { LocalStorageDriver } from '../../../src/files/storage/local-driver.js';
import { S3StorageDriver, type S3DriverOptions } from '../../../src/files/storage/s3-driver.js';
import type { StorageDriver } from '../../../src/files/storage/storage-driver.js';
import { freePort } from '../../support/ports.js';
import { startS3Server, type S3TestServer } from '../../support/s3-server.js';

/** A driver under test, and what its storage holds (temporary and pending parts included). */
interface DriverUnderTest {
  readonly driver: StorageDriver;
  /** Every name stored, temporary files and unfinished uploads included. */
  stored(): Promise<string[]>;
  /** Anything stored outside the driver's root. */
  outside(): Promise<string[]>;
  close(): Promise<void>;
}

const MiB = 1024 * 1024;

async function localDriver(): Promise<DriverUnderTest> {
  const parent = mkdtempSync(join(tmpdir(), 'svc-local-driver-'));
  const root = join(parent, 'root');
  return {
    driver: new LocalStorageDriver(root),
    stored: async () => (await readdir(root).catch(() => [])).sort(),
    outside: async () => (await readdir(parent)).filter((name) => name !== 'root'),
    close: async () => rmSync(parent, { recursive: true, force: true }),
  };
}

async function s3Driver(options: S3DriverOptions = {}): Promise<DriverUnderTest & { server: S3TestServer }> {
  const server = await startS3Server();
  const config = loadConfig(
    { STORAGE_LOCATIONS: 's3', ...server.env('s3', 'files/') },
    {
      defaultConfigPath: '/nonexistent/.env',
    },
  );
  const location = config.storage.drivers['s3'];
  if (location?.driver !== 's3') throw new Error('no s3 location');
  const driver = new S3StorageDriver(location.s3, location.root, options);
  const pending = async () => (await server.pendingUploads()).map((id) => `(upload ${id})`);
  return {
    server,
    driver,
    stored: async () => [
      ...(await server.objectKeys()).filter((k) => k.startsWith('files/')).map((k) => k.slice('files/'.length)),
      ...(await pending()),
    ],
    outside: async () => (await server.objectKeys()).filter((k) => !k.startsWith('files/')),
    close: async () => {
      driver.destroy();
      await server.close();
    },
  };
}

/** A stream that yields `bytes` in 64 KiB chunks, then fails when `fail` is set. */
function generated(bytes: number, fail?: Error): Readable {
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, 'x');
  return new Readable({
    read() {
      if (sent >= bytes) {
        if (fail === undefined) this.push(null);
        else this.destroy(fail);
        return;
      }
      const part = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
      sent += part.length;
      this.push(part);
    },
  });
}

for (const [name, open] of [
  ['local', localDriver],
  ['s3 (s3rver)', () => s3Driver()],
] as const) {
  describe(`storage driver: ${name}`, () => {
    let subject: DriverUnderTest;
    before(async () => (subject = await open()));
    after(() => subject.close());
    const driver = () => subject.driver;

    it('writes, reads (whole or a range), stats, moves and deletes', async () => {
      expect(await driver().write('a.txt', Readable.from(['hello, ', 'world']))).to.deep.equal({ size: 12 });
      expect(await text(await driver().read('a.txt'))).to.equal('hello, world');
      expect(await text(await driver().read('a.txt', { start: 7, end: 11 }))).to.equal('world');
      // A one-byte range (not `0-0`: s3rver reads an end of 0 as "to the end", unlike S3).
      expect(await text(await driver().read('a.txt', { start: 1, end: 1 }))).to.equal('e');
      const stat = await driver().stat('a.txt');
      expect(stat?.size).to.equal(12);
      expect(stat?.modified).to.be.instanceOf(Date);
      await driver().move('a.txt', 'b.txt');
      expect(await driver().stat('a.txt')).to.equal(undefined);
      expect(await text(await driver().read('b.txt'))).to.equal('hello, world');
      await driver().delete('b.txt');
      await driver().delete('b.txt');
      expect(await subject.stored()).to.deep.equal([]);
    });

    it('writes an empty file, and replaces a file on write and on move', async () => {
      expect(await driver().write('empty.txt', Readable.from([]))).to.deep.equal({ size: 0 });
      expect((await driver().stat('empty.txt'))?.size).to.equal(0);
      await driver().write('x.txt', Readable.from(['first']));
      await driver().write('x.txt', Readable.from(['second']));
      expect(await text(await driver().read('x.txt'))).to.equal('second');
      await driver().move('x.txt', 'empty.txt');
      expect(await text(await driver().read('empty.txt'))).to.equal('second');
      await driver().delete('empty.txt');
      expect(await subject.stored()).to.deep.equal([]);
    });

    it('streams a file of several parts, whole and by range', async () => {
      expect(await driver().write('big.bin', generated(12 * MiB + 5))).to.deep.equal({ size: 12 * MiB + 5 });
      let total = 0;
      for await (const chunk of await driver().read('big.bin')) total += (chunk as Buffer).length;
      expect(total).to.equal(12 * MiB + 5);
      expect(await text(await driver().read('big.bin', { start: 12 * MiB, end: 12 * MiB + 4 }))).to.equal('xxxxx');
      await driver().delete('big.bin');
    });

    it('a failed write leaves nothing, not even a temporary file or parts, and keeps what was there', async () => {
      await driver().write('keep.txt', Readable.from(['old']));
      for (const bytes of [7, 11 * MiB]) {
        let failure: unknown;
        await driver()
          .write('keep.txt', generated(bytes, new Error('connection lost')))
          .catch((error: unknown) => (failure = error));
        expect((failure as Error | undefined)?.message, `${bytes} bytes`).to.equal('connection lost');
        expect(await subject.stored(), `${bytes} bytes`).to.deep.equal(['keep.txt']);
        expect(await text(await driver().read('keep.txt'))).to.equal('old');
      }
      await driver().delete('keep.txt');
    });

    it('refuses any key that is not a plain file name in its root with FORBIDDEN, on every call', async () => {
      await driver().write('kept.txt', Readable.from(['kept']));
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
        expect(await refusal(() => driver().write(key, Readable.from(['x']))), key).to.equal('FORBIDDEN');
        expect(await refusal(() => driver().read(key)), key).to.equal('FORBIDDEN');
        expect(await refusal(() => driver().stat(key)), key).to.equal('FORBIDDEN');
        expect(await refusal(() => driver().move('kept.txt', key)), key).to.equal('FORBIDDEN');
        expect(await refusal(() => driver().move(key, 'moved.txt')), key).to.equal('FORBIDDEN');
        expect(await refusal(() => driver().delete(key)), key).to.equal('FORBIDDEN');
      }
      expect(await subject.stored()).to.deep.equal(['kept.txt']);
      expect(await subject.outside()).to.deep.equal([]);
      await driver().delete('kept.txt');
    });

    it('lists the stored names starting with a prefix, never a write in progress', async () => {
      await driver().write('f1__a.webp', Readable.from(['a']));
      await driver().write('f1__b.jpg', Readable.from(['b']));
      await driver().write('f1.png', Readable.from(['original']));
      const slow = new Readable({ read() {} });
      slow.push('partial');
      const writing = driver().write('f1__c.png', slow);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await driver().list('f1__')).sort()).to.deep.equal(['f1__a.webp', 'f1__b.jpg']);
      expect(await driver().list('../')).to.deep.equal([]);
      slow.push(null);
      await writing;
      expect((await driver().list('f1__')).sort()).to.deep.equal(['f1__a.webp', 'f1__b.jpg', 'f1__c.png']);
      for (const name of ['f1__a.webp', 'f1__b.jpg', 'f1__c.png', 'f1.png']) await driver().delete(name);
      expect(await driver().list('f1')).to.deep.equal([]);
    });

    it('fails reads and moves of missing files; stat says undefined', async () => {
      const failed = (run: () => Promise<unknown>) =>
        run().then(
          () => false,
          () => true,
        );
      expect(await failed(() => driver().read('nothing.txt'))).to.equal(true);
      expect(await failed(() => driver().move('nothing.txt', 'other.txt'))).to.equal(true);
      expect(await driver().stat('nothing.txt')).to.equal(undefined);
      expect(await subject.stored()).to.deep.equal([]);
    });
  });
}

describe('storage driver: s3 specifics', () => {
  it('moves an object above the copy limit by streaming it to its new key', async () => {
    const subject = await s3Driver({ copyObjectLimit: 1024 });
    try {
      await subject.driver.write('large.bin', generated(6 * MiB));
      await subject.driver.move('large.bin', 'moved.bin');
      expect(await subject.stored()).to.deep.equal(['moved.bin']);
      expect((await subject.driver.stat('moved.bin'))?.size).to.equal(6 * MiB);
    } finally {
      await subject.close();
    }
  });

  it('an S3 it cannot reach is SERVICE_UNAVAILABLE `storage` on every call, without its address, after the SDK retried', async function () {
    this.timeout(60_000);
    const port = await freePort();
    const driver = new S3StorageDriver(
      {
        key: 'S3RVER',
        secret: 'S3RVER',
        bucket: 'nowhere',
        region: 'us-east-1',
        endpoint: `http://127.0.0.1:${port}`,
        forcePathStyle: true,
      },
      undefined,
    );
    const codeOf = (run: () => Promise<unknown>) =>
      run().then(
        () => 'done',
        (error: unknown) =>
          error instanceof ServiceUnavailableError && !error.message.includes(String(port))
            ? `${error.code} ${error.extensions.service}`
            : String(error),
      );
    try {
      for (const [name, run] of [
        ['write', () => driver.write('a.txt', Readable.from(['x']))],
        ['write of parts', () => driver.write('b.bin', generated(6 * MiB))],
        ['read', () => driver.read('a.txt')],
        ['stat', () => driver.stat('a.txt')],
        ['move', () => driver.move('a.txt', 'b.txt')],
        ['delete', () => driver.delete('a.txt')],
      ] as const) {
        expect(await codeOf(run), name).to.equal('SERVICE_UNAVAILABLE storage');
      }
    } finally {
      driver.destroy();
    }
  });

  it('keeps its objects under STORAGE_<KEY>_ROOT', async () => {
    const subject = await s3Driver();
    try {
      await subject.driver.write('here.txt', Readable.from(['here']));
      expect(await subject.server.objectKeys()).to.deep.equal(['files/here.txt']);
    } finally {
      await subject.close();
    }
  });
});
