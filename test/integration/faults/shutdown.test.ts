import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createDatabase, type Knex } from '../../../src/db/index.js';
import { createLogger } from '../../../src/logger/index.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { testConfig } from '../../support/server.js';
import { sqliteTarget, type TestDatabase } from '../../support/services.js';
import { adminRequest } from './load.js';

const ROWS = 100_000;
const BATCH = 1000;

/**
 * Graceful stop without Redis (issue 24): the in-process job runner gives its running export
 * SHUTDOWN_TIMEOUT, then asks it to end after its current batch; nothing runs it again, so its
 * status says failed (never a `running` or `retrying` that no one will finish), and no file
 * or temporary folder is left.
 */
describe('graceful stop with an export running in-process', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'svc-shutdown-'));
  let database: TestDatabase | undefined;
  let server: RunningServer | undefined;
  /** The same database, open past the server's close. */
  let db: Knex | undefined;

  before(async () => {
    database = await sqliteTarget.create();
    const env = {
      STORAGE_LOCAL_ROOT: join(dir, 'uploads'),
      TEMP_PATH: join(dir, 'tmp'),
      EXPORT_BATCH_SIZE: String(BATCH),
      SHUTDOWN_TIMEOUT: '50ms',
    };
    server = await startServer(testConfig(database, env), {
      logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
    });
    await server.db.schema.createTable('numbers', (t) => {
      t.increments('id');
      t.string('label', 64);
    });
    await server.db.batchInsert(
      'numbers',
      Array.from({ length: ROWS }, (_, i) => ({ label: `n${i + 1}` })),
      300,
    );
    await server.schema.invalidate();
    db = createDatabase(testConfig(database).db);
  });

  after(async () => {
    await server?.close();
    await db?.destroy();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('close(): the export ends after its current batch, marked failed, with nothing stored', async () => {
    const { url } = server!;
    const status = async () => {
      const row = await db!('svc_activity')
        .where({ action: 'export' })
        .orderBy('id', 'desc')
        .first<{ comment: string } | undefined>('comment');
      return row === undefined
        ? undefined
        : (JSON.parse(row.comment) as { status: string; rows_done: number; error: string | null; file: string | null });
    };
    expect(
      (await adminRequest(url, 'POST', '/utils/export/numbers', { format: 'csv', query: { fields: ['id', 'label'] } }))
        .status,
    ).to.equal(204);
    for (let tries = 0; ((await status())?.rows_done ?? 0) === 0; tries += 1) {
      expect(tries, 'the export started').to.be.below(1000);
      await delay(10);
    }
    await server!.close();
    const stopped = await status();
    expect(stopped).to.include({ status: 'failed', error: 'the server stopped before the job finished', file: null });
    expect(stopped!.rows_done % BATCH, 'ended at a batch boundary').to.equal(0);
    expect(stopped!.rows_done).to.be.below(ROWS);
    expect(await db!('svc_files').count({ n: '*' }).first()).to.deep.include({ n: 0 });
    expect(await readdir(join(dir, 'tmp'))).to.deep.equal([]);
  });
});
