import Bull from 'bull';
import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dialectOf } from '../../../src/db/index.js';
import { toDatabaseTimestamp } from '../../../src/db/to-database-timestamp.js';
import { createLogger } from '../../../src/logger/index.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { dropNamespace, testNamespace } from '../../support/redis-namespace.js';
import { TEST_ADMIN, testConfig } from '../../support/server.js';
import {
  postgresTarget,
  redisUnavailable,
  requireOrSkip,
  TEST_REDIS_URL,
  type TestDatabase,
} from '../../support/services.js';
import { nodeArgsOf, WORKER_ENTRY } from '../../support/service-process.js';

type Row = Record<string, unknown>;

/** Polls `check` until it holds; fails the test with `what` after a generous deadline. */
async function waitUntil(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!(await check())) {
    if (Date.now() > deadline) expect.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// Multi-instance is a PostgreSQL (or MariaDB) deployment: two APIs and a worker on one database.
const target = postgresTarget;

describe('EXPORT_RETENTION through bull: two API instances share one cleanup schedule, a worker runs it', function () {
  this.timeout(240_000);
  const dir = mkdtempSync(join(tmpdir(), 'svc-export-retention-'));
  const namespace = testNamespace('svc-test');
  const env = {
    REDIS: TEST_REDIS_URL,
    CACHE_NAMESPACE: namespace,
    STORAGE_LOCAL_ROOT: join(dir, 'uploads'),
    TEMP_PATH: join(dir, 'tmp'),
    EXPORT_RETENTION: '1h',
    RETENTION_INTERVAL: '300ms',
  };
  let database: TestDatabase | undefined;
  const servers: RunningServer[] = [];
  let worker: ChildProcessWithoutNullStreams | undefined;
  let output = '';

  before(async function () {
    requireOrSkip(this, await redisUnavailable());
    requireOrSkip(this, await target.unavailable());
    database = await target.create();
    for (let i = 0; i < 2; i += 1) {
      servers.push(
        await startServer(testConfig(database, env), { logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }) }),
      );
    }
    const first = servers[0];
    if (first === undefined) throw new Error('no server');
    await first.db.schema.createTable('notes', (t) => {
      t.increments('id');
      t.string('body', 64);
    });
    await first.db('notes').insert([{ body: 'a' }, { body: 'b' }, { body: 'c' }]);
    await first.schema.invalidate();
    worker = spawn(process.execPath, nodeArgsOf(WORKER_ENTRY), {
      env: { PATH: process.env['PATH'] ?? '', ...database.env, ...env, LOG_LEVEL: 'info', LOG_STYLE: 'raw' },
    });
    worker.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    worker.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitUntil('the worker is ready', () => Promise.resolve(output.includes('"msg":"worker ready"')));
  });

  after(async () => {
    if (worker !== undefined && worker.exitCode === null && worker.signalCode === null) {
      const exited = new Promise((resolve) => worker?.once('exit', resolve));
      worker.kill('SIGTERM');
      await exited;
    }
    for (const server of servers) await server.close();
    await database?.drop();
    await dropNamespace(namespace);
    rmSync(dir, { recursive: true, force: true });
  });

  it('one repeatable job whatever the instances; an old export loses its file and job, a recent one stays', async () => {
    const queue = new Bull('jobs', TEST_REDIS_URL, { prefix: `${namespace}:bull` });
    try {
      const repeatable = await queue.getRepeatableJobs();
      // One export cleanup for the two instances (the flows' prune shares the interval: its own job).
      const cleanups = repeatable.filter((job) => job.name === 'export-cleanup');
      expect(cleanups.map((job) => job.every)).to.deep.equal([300]);
    } finally {
      await queue.close();
    }
    const [a, b] = servers;
    if (a === undefined || b === undefined) throw new Error('two servers');
    const headers = { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' };
    const exportFrom = async (server: RunningServer): Promise<{ id: string; file: string }> => {
      const res = await fetch(`${server.url}/utils/export/notes`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ format: 'csv', query: { fields: ['id', 'body'] } }),
      });
      expect(res.status).to.equal(204);
      const location = res.headers.get('location') ?? '';
      let job: Row = {};
      await waitUntil('the export is done', async () => {
        job = ((await (await fetch(`${server.url}${location}`, { headers })).json()) as { data: Row }).data;
        expect(job['status']).not.to.equal('failed');
        return job['status'] === 'done';
      });
      return { id: String(job['id']), file: String(job['file']) };
    };
    const old = await exportFrom(a);
    const recent = await exportFrom(b);
    const db = a.db;
    const pathOf = async (file: string): Promise<string> =>
      join(
        dir,
        'uploads',
        String((await db('svc_files').where({ id: file }).first<Row>('filename_disk'))['filename_disk']),
      );
    const [oldPath, recentPath] = [await pathOf(old.file), await pathOf(recent.file)];
    await db('svc_activity')
      .where({ action: 'export', item: old.id })
      .update({ timestamp: toDatabaseTimestamp(new Date(Date.now() - 2 * 3_600_000), dialectOf(db)) });
    // The status row goes last, after the file's record and its stored content: once it is gone,
    // so are they.
    await waitUntil(
      "the old export's status row is gone",
      async () => (await db('svc_activity').where({ action: 'export', item: old.id }).first('id')) === undefined,
    );
    expect(await db('svc_files').where({ id: old.file }).first('id')).to.equal(undefined);
    let oldStored = true;
    await access(oldPath).catch(() => (oldStored = false));
    expect(oldStored, 'the old stored file').to.equal(false);
    expect(await db('svc_files').where({ id: recent.file }).first('id')).not.to.equal(undefined);
    await access(recentPath);
  });
});
