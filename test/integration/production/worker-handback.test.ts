import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startServer, type RunningServer } from '../../../src/server.js';
import { dropNamespace, testNamespace } from '../../support/redis-namespace.js';
import { TEST_ADMIN, testConfig } from '../../support/server.js';
import {
  PROCESS_TEST_TIMEOUT_MS,
  startServiceProcess,
  WORKER_ENTRY,
  type ServiceProcess,
} from '../../support/service-process.js';
import {
  postgresTarget,
  redisUnavailable,
  requireOrSkip,
  TEST_REDIS_URL,
  type TestDatabase,
} from '../../support/services.js';

/** Rows of the exported table: an export of some seconds, in batches of BATCH_SIZE. */
const ROWS = 60_000;
const BATCH_SIZE = 500;

interface ExportJobStatus {
  readonly status: string;
  readonly rows_done: number;
  readonly attempt: number;
  readonly file: string | null;
}

/**
 * Issue 42: a worker that gets SIGTERM while it runs an export takes no more jobs, lets the
 * export finish within SHUTDOWN_TIMEOUT, or else ends it after its current batch and hands it
 * back to the queue at once, where the other worker takes it: either way the export is done
 * exactly once (one file, every row once), and the stopped worker exits 0. Two worker
 * processes, an API and Redis, real ones.
 */
describe('a worker stopped during an export (two workers, Redis)', function () {
  this.timeout(PROCESS_TEST_TIMEOUT_MS);
  const dir = mkdtempSync(join(tmpdir(), 'svc-handback-'));
  const namespace = testNamespace('handback');
  const env = {
    REDIS: TEST_REDIS_URL,
    CACHE_NAMESPACE: namespace,
    STORAGE_LOCAL_ROOT: join(dir, 'uploads'),
    TEMP_PATH: join(dir, 'tmp'),
    EXPORT_BATCH_SIZE: String(BATCH_SIZE),
    // One attempt: a handed back run must not count as one, or the export would fail.
    JOBS_ATTEMPTS: '1',
    JOBS_LOCK_DURATION: '5s',
    JOBS_STALLED_INTERVAL: '2s',
  };
  let database: TestDatabase | undefined;
  let server: RunningServer | undefined;
  const workers: ServiceProcess[] = [];

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(server!.url + path, {
      method,
      headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };

  const startWorkers = async (shutdownTimeout: string): Promise<ServiceProcess[]> => {
    const started = await Promise.all(
      [0, 1].map(() =>
        startServiceProcess(
          WORKER_ENTRY,
          { ...database!.env, ...env, SECRET: 'test-secret', SHUTDOWN_TIMEOUT: shutdownTimeout },
          PROCESS_TEST_TIMEOUT_MS / 3,
        ),
      ),
    );
    workers.push(...started);
    return started;
  };

  const exportStatus = async (job: string): Promise<ExportJobStatus> =>
    (JSON.parse((await call('GET', `/utils/export/jobs/${job}`)).text) as { data: ExportJobStatus }).data;

  /** Queues an export of every row; answers its job id. */
  const startExport = async (): Promise<string> => {
    const started = await call('POST', '/utils/export/numbers', { format: 'json', query: { limit: -1 } });
    expect(started.status, started.text).to.equal(204);
    return started.headers.get('x-export-job') ?? '';
  };

  /** Polls until `check` holds; fails after `withinMs`. */
  const until = async <T>(withinMs: number, what: string, check: () => Promise<T | undefined>): Promise<T> => {
    const started = Date.now();
    for (;;) {
      const found = await check();
      if (found !== undefined) return found;
      if (Date.now() - started > withinMs) expect.fail(`${what}: not within ${withinMs} ms`);
      await delay(50);
    }
  };

  const logged = (worker: ServiceProcess, message: string, job: string) =>
    worker
      .output()
      .split('\n')
      .some((line) => line.includes(`"msg":"${message}"`) && line.includes(`"job":"${job}"`));

  /** The worker that started `job`, once its export has done some rows; and the other one. */
  const runnerOf = async (job: string, pair: ServiceProcess[]) => {
    const runner = await until(60_000, 'a worker starts the export', () =>
      Promise.resolve(pair.find((worker) => logged(worker, 'job started', job))),
    );
    await until(60_000, 'the export is under way', async () => {
      const status = await exportStatus(job);
      expect(status.status).to.not.equal('done', 'the export is done before the worker is stopped: more rows');
      return status.rows_done > 0 ? status : undefined;
    });
    return { runner, other: pair.find((worker) => worker !== runner)! };
  };

  /** The export's file: one, in the library, with every row once. */
  const expectExported = async (status: ExportJobStatus) => {
    expect(status.file).to.be.a('string');
    const listed = JSON.parse((await call('GET', `/files?filter[id][_eq]=${status.file}`)).text) as {
      data: unknown[];
    };
    expect(listed.data, 'the file in the library').to.have.length(1);
    const content = JSON.parse((await call('GET', `/assets/${status.file}`)).text) as { id: number }[];
    const ids = content.map((row) => row.id);
    expect(new Set(ids).size, 'rows').to.equal(ROWS);
    expect(ids.length, 'rows, each once').to.equal(ROWS);
  };

  before(async function () {
    requireOrSkip(this, (await postgresTarget.unavailable()) ?? (await redisUnavailable()));
    database = await postgresTarget.create();
    server = await startServer(testConfig(database, env));
    await server.db.schema.createTable('numbers', (t) => {
      t.increments('id');
      t.string('label', 64);
    });
    const rows = Array.from({ length: ROWS }, (_, i) => ({ label: `n${i + 1}` }));
    await server.db.batchInsert('numbers', rows, 2000);
    await server.schema.invalidate();
  });

  after(async () => {
    for (const worker of workers) await worker.stop('SIGKILL');
    await server?.close();
    await database?.drop();
    await dropNamespace(namespace);
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') for (const worker of workers) console.log(worker.output().slice(-4000));
    for (const worker of workers.splice(0)) await worker.stop('SIGKILL');
  });

  it('past SHUTDOWN_TIMEOUT: the export goes back to the queue after its batch, and the other worker does it, once', async () => {
    const pair = await startWorkers('200ms');
    const job = await startExport();
    const { runner, other } = await runnerOf(job, pair);
    expect(await runner.stop('SIGTERM'), 'the stopped worker exits 0').to.equal(0);
    expect(logged(runner, 'job handed back', job), 'the stopped worker handed it back').to.equal(true);
    const done = await until(120_000, 'the other worker finishes the export', async () => {
      const status = await exportStatus(job);
      expect(status.status).to.not.equal('failed');
      return status.status === 'done' ? status : undefined;
    });
    expect(logged(other, 'job started', job), 'the other worker took it').to.equal(true);
    // Its line follows the status row's `done` (the queue completes the job after the export's last write).
    await until(30_000, 'the other worker says it finished it', () =>
      Promise.resolve(logged(other, 'job done', job) || undefined),
    );
    // The second run counts as the export's attempt 2 (its status says so), not against JOBS_ATTEMPTS.
    expect(done.attempt).to.equal(2);
    await expectExported(done);
  });

  it('within SHUTDOWN_TIMEOUT: the stopping worker takes no new job and finishes the export itself, then exits 0', async () => {
    const pair = await startWorkers('120s');
    const job = await startExport();
    const { runner, other } = await runnerOf(job, pair);
    const exited = runner.stop('SIGTERM');
    // Queued while it stops: the other worker takes it.
    const next = await startExport();
    expect(await exited, 'the stopped worker exits 0').to.equal(0);
    expect(logged(runner, 'job done', job), 'it finished its export before it exited').to.equal(true);
    expect(logged(runner, 'job handed back', job)).to.equal(false);
    expect(logged(other, 'job started', job), 'no other worker ran it').to.equal(false);
    const done = await exportStatus(job);
    expect(done).to.include({ status: 'done', attempt: 1 });
    await expectExported(done);
    const second = await until(120_000, 'the other worker does the export queued meanwhile', async () => {
      const status = await exportStatus(next);
      return status.status === 'done' ? status : undefined;
    });
    expect(logged(runner, 'job started', next), 'the stopping worker took no new job').to.equal(false);
    await expectExported(second);
  });
});
