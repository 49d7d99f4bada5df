import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../../src/logger/index.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { dropNamespace, testNamespace } from '../../support/redis-namespace.js';
import { testConfig, type ServerContext } from '../../support/server.js';
import {
  DATABASE_TARGETS,
  redisUnavailable,
  requireOrSkip,
  TEST_REDIS_URL,
  type TestDatabase,
} from '../../support/services.js';
import { adminApi, countRows, dataOf } from '../commands/schema.js';
import { waitForExport } from './export-status.js';
import { adminGet } from './helpers.js';
import { nodeArgsOf, WORKER_ENTRY } from '../../support/service-process.js';

type Row = Record<string, unknown>;

/** Issue 24: a worker killed in the middle of a 200k-row export. */
const ROWS = 200_000;
const LOCK_DURATION_MS = 2000;
const STALLED_INTERVAL_MS = 1000;

interface Worker {
  readonly child: ChildProcessWithoutNullStreams;
  readonly output: () => string;
}

/** The worker process the way `make worker` runs it, with the API's environment; resolves once it is ready. */
async function startWorker(env: Readonly<Record<string, string>>): Promise<Worker> {
  const child = spawn(process.execPath, nodeArgsOf(WORKER_ENTRY), {
    env: { PATH: process.env['PATH'] ?? '', ...env, LOG_LEVEL: 'info', LOG_STYLE: 'raw' },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "worker ready" line:\n${output}`)), 30_000);
    const onData = () => {
      if (output.includes('"msg":"worker ready"')) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code}:\n${output}`));
    });
  });
  return { child, output: () => output };
}

async function stopWorker(worker: Worker | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (worker === undefined || worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  const exited = new Promise((resolve) => worker.child.once('exit', resolve));
  worker.child.kill(signal);
  await exited;
}

for (const target of DATABASE_TARGETS) {
  describe(`export jobs through bull and a worker process [${target.dialect}]`, function () {
    this.timeout(240_000);
    const dir = mkdtempSync(join(tmpdir(), 'svc-worker-'));
    const namespace = testNamespace('svc-test');
    const env = {
      REDIS: TEST_REDIS_URL,
      CACHE_NAMESPACE: namespace,
      STORAGE_LOCAL_ROOT: join(dir, 'uploads'),
      TEMP_PATH: join(dir, 'tmp'),
      EXPORT_BATCH_SIZE: '1000',
      // A dead worker's job is found again within a few seconds.
      JOBS_LOCK_DURATION: `${LOCK_DURATION_MS}ms`,
      JOBS_STALLED_INTERVAL: `${STALLED_INTERVAL_MS}ms`,
      // A stopping worker hands its export back at once rather than finishing it.
      SHUTDOWN_TIMEOUT: '0ms',
    };
    let database: TestDatabase | undefined;
    let server: RunningServer | undefined;
    let worker: Worker | undefined;
    let context: ServerContext | undefined;
    const ctx = (): ServerContext => {
      if (context === undefined) throw new Error('server not started');
      return context;
    };

    before(async function () {
      requireOrSkip(this, await redisUnavailable());
      requireOrSkip(this, await target.unavailable());
      database = await target.create();
      server = await startServer(testConfig(database, env), {
        logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
      });
      const running = server;
      context = {
        dialect: target.dialect,
        database,
        server: running,
        env,
        api: (path, init) => fetch(running.url + path, init),
      };
      await running.db.schema.createTable('numbers', (t) => {
        t.increments('id');
        t.string('label', 64);
        t.integer('square');
      });
      const rows = Array.from({ length: ROWS }, (_, i) => ({
        label: `n${i + 1}`,
        square: ((i + 1) * (i + 1)) % 1_000_003,
      }));
      // SQLite takes at most 500 rows per multi-row insert (its compound select limit).
      await running.db.batchInsert('numbers', rows, target.dialect === 'sqlite' ? 300 : 2000);
      await running.schema.invalidate();
      worker = await startWorker({ ...database.env, ...env });
    });

    after(async () => {
      await stopWorker(worker);
      await server?.close();
      await database?.drop();
      await dropNamespace(namespace);
      rmSync(dir, { recursive: true, force: true });
    });

    it('exports in every format through the worker; the files appear in /files and download through /assets', async () => {
      for (const format of ['csv', 'json', 'xml'] as const) {
        const query = { fields: ['id', 'label', 'square'], filter: { id: { _lte: 25 } } };
        expect((await adminApi(ctx(), 'POST', '/utils/export/numbers', { format, query })).status).to.equal(204);
        const done = await waitForExport(ctx(), (r) => r.status.format === format && r.status.status === 'done');
        expect(done.status).to.include({ rows_done: 25, rows_total: 25 });
        const listed = dataOf<Row[]>(
          await adminApi(ctx(), 'GET', `/files?filter[id][_eq]=${String(done.status.file)}`),
        );
        expect(listed).to.have.length(1);
        const content = await (await adminGet(ctx(), `/assets/${String(done.status.file)}`)).text();
        const direct = await adminGet(
          ctx(),
          `/items/numbers?fields=id,label,square&filter[id][_lte]=25&limit=-1&export=${format}`,
        );
        expect(content, format).to.equal(await direct.text());
      }
      expect(worker?.output()).to.contain('"msg":"worker ready"');
    });

    it('a worker killed during an export: bull runs the job again after a restart, and no partial file ever is in the library', async () => {
      const files = await countRows(ctx().server.db, ['svc_files']);
      const stored = (await readdir(join(dir, 'uploads'))).sort();
      expect(
        (
          await adminApi(ctx(), 'POST', '/utils/export/numbers', {
            format: 'csv',
            query: { fields: ['id', 'label', 'square'] },
          })
        ).status,
      ).to.equal(204);
      const midway = await waitForExport(
        ctx(),
        (r) => r.status.format === 'csv' && r.status.status === 'running' && r.status.rows_done > 0,
        60_000,
        10,
      );
      await stopWorker(worker, 'SIGKILL');
      const killed = await waitForExport(ctx(), () => true);
      expect(killed.status.status, 'the export was still running when the worker died').to.equal('running');
      expect(killed.status.rows_done).to.be.lessThan(ROWS);
      expect(midway.status.rows_total).to.equal(ROWS);
      expect(await countRows(ctx().server.db, ['svc_files'])).to.deep.equal(files);
      // At most the storage's hidden temporary file of the write that died: no row, no file.
      const visible = async () => (await readdir(join(dir, 'uploads'))).filter((name) => !name.startsWith('.')).sort();
      expect(await visible()).to.deep.equal(stored);

      // A new worker (as a supervisor would start it): the dead one's job is its next attempt,
      // picked up once the lock expired and a stalled check ran, and says so until it ends.
      const started = Date.now();
      worker = await startWorker({ ...database!.env, ...env });
      const ready = Date.now();
      const retrying = await waitForExport(
        ctx(),
        (r) => r.item === killed.item && r.status.status !== 'running',
        30_000,
        10,
      );
      const pickedUp = Date.now();
      expect(retrying.status).to.include({ status: 'retrying', attempt: 2, file: null });
      // Measured (issue 24): from the worker's start to the job running again.
      process.stdout.write(
        `      dead worker's job picked up ${pickedUp - ready} ms after the new worker was ready (started in ${ready - started} ms)\n`,
      );
      expect(pickedUp - ready).to.be.at.most(LOCK_DURATION_MS + STALLED_INTERVAL_MS + 1000);
      expect(await countRows(ctx().server.db, ['svc_files'])).to.deep.equal(files);
      const midRetry = await waitForExport(
        ctx(),
        (r) => r.item === killed.item && (r.status.rows_done > 0 || r.status.status === 'done'),
        120_000,
        10,
      );
      if (midRetry.status.status !== 'done') expect(midRetry.status).to.include({ status: 'retrying', attempt: 2 });
      const done = await waitForExport(ctx(), (r) => r.item === killed.item && r.status.status === 'done', 180_000);
      expect(done.status).to.include({ rows_done: ROWS, rows_total: ROWS, attempt: 2, error: null });
      expect(await countRows(ctx().server.db, ['svc_files'])).to.deep.equal({ svc_files: files['svc_files']! + 1 });
      const file = dataOf<Row>(await adminApi(ctx(), 'GET', `/files/${String(done.status.file)}`));
      // The retry wrote the same file again: its temporary file became the file.
      expect((await readdir(join(dir, 'uploads'))).sort()).to.deep.equal(
        [...stored, String(file['filename_disk'])].sort(),
      );
      const lines = (await (await adminGet(ctx(), `/assets/${String(file['id'])}`)).text()).split('\n');
      expect(lines.length).to.equal(ROWS + 2);
      expect(lines[0]).to.equal('"id","label","square"');
      expect(lines[ROWS]).to.equal(`${ROWS},"n${ROWS}",${(ROWS * ROWS) % 1_000_003}`);
      expect(await readdir(join(dir, 'tmp'))).to.deep.equal([]);
    });

    it('SIGTERM: the worker ends the export after its current batch and exits; the job runs again on the next worker', async () => {
      const files = await countRows(ctx().server.db, ['svc_files']);
      expect(
        (await adminApi(ctx(), 'POST', '/utils/export/numbers', { format: 'json', query: { fields: ['id', 'label'] } }))
          .status,
      ).to.equal(204);
      const midway = await waitForExport(
        ctx(),
        (r) => r.status.format === 'json' && r.status.rows_done > 0 && r.status.status !== 'done',
        60_000,
        10,
      );
      await stopWorker(worker, 'SIGTERM');
      expect(worker?.child.exitCode).to.equal(0);
      const stopped = await waitForExport(ctx(), () => true);
      expect(stopped.item).to.equal(midway.item);
      expect(stopped.status).to.include({
        status: 'retrying',
        file: null,
        error: 'the worker is stopping: the job runs again',
      });
      expect(stopped.status.rows_done % 1000, 'stopped at a batch boundary').to.equal(0);
      expect(stopped.status.rows_done).to.be.lessThan(ROWS);
      expect(await countRows(ctx().server.db, ['svc_files'])).to.deep.equal(files);

      worker = await startWorker({ ...database!.env, ...env });
      const done = await waitForExport(ctx(), (r) => r.item === midway.item && r.status.status === 'done', 120_000);
      expect(done.status).to.include({ rows_done: ROWS, rows_total: ROWS, attempt: 2, error: null });
      const listed = dataOf<Row[]>(await adminApi(ctx(), 'GET', `/files?filter[id][_eq]=${String(done.status.file)}`));
      expect(listed).to.have.length(1);
      const content = JSON.parse(await (await adminGet(ctx(), `/assets/${String(done.status.file)}`)).text()) as Row[];
      expect(content).to.have.length(ROWS);
      expect(content[ROWS - 1]).to.deep.equal({ id: ROWS, label: `n${ROWS}` });
    });
  });
}
