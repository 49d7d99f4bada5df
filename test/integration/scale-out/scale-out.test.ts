import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import knex, { type Knex } from 'knex';
import { dropNamespace, testNamespace } from '../../support/redis-namespace.js';
import { startS3Server, type S3TestServer } from '../../support/s3-server.js';
import { TEST_ADMIN } from '../../support/server.js';
import { SERVER_ENTRY, startServiceProcess, WORKER_ENTRY, type ServiceProcess } from '../../support/service-process.js';
import {
  postgresTarget,
  redisUnavailable,
  requireOrSkip,
  TEST_REDIS_URL,
  type TestDatabase,
} from '../../support/services.js';

type Row = Record<string, unknown>;

/** Each request of the test comes from an address of its own, so only the rate-limit test's share a count. */
let clientAddress = 0;
const nextClient = () => {
  clientAddress += 1;
  return `198.18.${Math.floor(clientAddress / 250) % 250}.${(clientAddress % 250) + 1}`;
};

/** A request to one instance as the admin. */
async function call(
  instance: ServiceProcess,
  method: string,
  path: string,
  options: { body?: unknown; form?: FormData; headers?: Record<string, string>; client?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = {
    Authorization: `Bearer ${TEST_ADMIN.token}`,
    'X-Forwarded-For': options.client ?? nextClient(),
    ...options.headers,
  };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(instance.url + path, {
    method,
    headers,
    ...(options.form !== undefined ? { body: options.form } : {}),
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
}

async function dataOf<T>(response: Promise<Response>): Promise<T> {
  const res = await response;
  const text = await res.text();
  expect(res.status, text).to.be.lessThan(300);
  return (JSON.parse(text) as { data: T }).data;
}

/** Polls `check` until it holds; fails after `withinMs` (the answer's own time included). */
async function within(withinMs: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > withinMs) expect.fail(`${what}: not within ${withinMs} ms`);
    await delay(20);
  }
  return Date.now() - started;
}

/**
 * The scaled deployment on one machine (issue 17): two API processes and one worker process
 * sharing PostgreSQL, Redis and S3 (s3rver) over loopback, and nothing else (each has its own
 * temporary folder; none has a storage folder at all).
 */
describe('scale-out: two API processes and a worker on PostgreSQL, Redis and S3', function () {
  this.timeout(120_000);
  const namespace = testNamespace('svc-scale');
  const dirs: string[] = [];
  let s3: S3TestServer | undefined;
  let database: TestDatabase | undefined;
  let db: Knex | undefined;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let worker: ServiceProcess | undefined;
  const started: ServiceProcess[] = [];
  const RATE_POINTS = 8;

  before(async function () {
    requireOrSkip(this, await redisUnavailable());
    requireOrSkip(this, await postgresTarget.unavailable());
    s3 = await startS3Server();
    database = await postgresTarget.create();
    const env = (name: string) => {
      const dir = mkdtempSync(join(tmpdir(), `svc-scale-${name}-`));
      dirs.push(dir);
      return {
        ...database!.env,
        ...s3!.env('s3'),
        STORAGE_LOCATIONS: 's3',
        TEMP_PATH: join(dir, 'tmp'),
        HOST: '127.0.0.1',
        PORT: '0',
        SECRET: 'scale-out-secret',
        ADMIN_EMAIL: TEST_ADMIN.email,
        ADMIN_PASSWORD: TEST_ADMIN.password,
        ADMIN_TOKEN: TEST_ADMIN.token,
        EMAIL_VERIFY_SETUP: 'false',
        REDIS: TEST_REDIS_URL,
        CACHE_NAMESPACE: namespace,
        CACHE_ENABLED: 'true',
        CACHE_STORE: 'redis',
        CACHE_TTL: '5m',
        RATE_LIMITER_ENABLED: 'true',
        RATE_LIMITER_STORE: 'redis',
        RATE_LIMITER_POINTS: String(RATE_POINTS),
        RATE_LIMITER_DURATION: '60',
        // The test is the one proxy hop: X-Forwarded-For names the client.
        IP_TRUST_PROXY: 'true',
        LOG_LEVEL: 'info',
      };
    };
    // A migrates the database; B and the worker start on the migrated one.
    a = await startServiceProcess(SERVER_ENTRY, env('a'));
    started.push(a);
    [b, worker] = await Promise.all([
      startServiceProcess(SERVER_ENTRY, env('b')),
      startServiceProcess(WORKER_ENTRY, env('worker')),
    ]);
    started.push(b, worker);
    db = knex({
      client: 'pg',
      connection: {
        host: database.env['DB_HOST'] ?? '',
        port: Number(database.env['DB_PORT']),
        user: database.env['DB_USER'] ?? '',
        password: database.env['DB_PASSWORD'] ?? '',
        database: database.env['DB_DATABASE'] ?? '',
      },
    });
  });

  after(async () => {
    for (const service of started) await service.stop();
    await db?.destroy();
    await database?.drop();
    await s3?.close();
    await dropNamespace(namespace);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('an upload through A is served by B (whole and by range), and a delete on B removes the object', async () => {
    const form = new FormData();
    form.append('title', 'shared');
    form.append('file', new Blob(['0123456789 from instance A'], { type: 'text/plain' }), 'shared.txt');
    const file = await dataOf<Row>(call(a, 'POST', '/files', { form }));
    expect(file['storage']).to.equal('s3');
    expect(await s3!.objectKeys()).to.include(String(file['filename_disk']));
    const whole = await call(b, 'GET', `/assets/${String(file['id'])}`);
    expect([whole.status, await whole.text()]).to.deep.equal([200, '0123456789 from instance A']);
    const part = await call(b, 'GET', `/assets/${String(file['id'])}`, { headers: { Range: 'bytes=2-5' } });
    expect([part.status, part.headers.get('content-range'), await part.text()]).to.deep.equal([
      206,
      'bytes 2-5/26',
      '2345',
    ]);
    expect((await call(b, 'DELETE', `/files/${String(file['id'])}`)).status).to.equal(204);
    expect(await s3!.objectKeys()).not.to.include(String(file['filename_disk']));
    expect((await call(a, 'GET', `/assets/${String(file['id'])}`)).status).to.equal(403);
  });

  it('a schema change on A is seen by B within a second', async () => {
    await dataOf(
      call(a, 'POST', '/collections', {
        body: {
          collection: 'notes',
          schema: {},
          fields: [
            { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
            { field: 'title', type: 'string' },
          ],
        },
      }),
    );
    const took = await within(1000, 'B serves the new collection', async () => {
      return (await call(b, 'POST', '/items/notes', { body: { title: 'first' } })).status === 200;
    });
    expect(took).to.be.lessThan(1000);
    const read = await dataOf<Row[]>(call(b, 'GET', '/items/notes?fields=title'));
    expect(read).to.deep.equal([{ title: 'first' }]);
  });

  it('a cache clear on A is seen by B within a second', async () => {
    const title = async () => (await dataOf<Row[]>(call(b, 'GET', '/items/notes?fields=title&sort=id')))[0]?.['title'];
    expect(await title()).to.equal('first');
    // Changed behind the service's back: B answers from the shared cache until it is cleared.
    await db!('notes').update({ title: 'changed in SQL' });
    expect(await title()).to.equal('first');
    expect((await call(a, 'POST', '/utils/cache/clear')).status).to.be.oneOf([200, 204]);
    await within(1000, 'B reads past the cleared cache', async () => (await title()) === 'changed in SQL');
  });

  it('an export requested on B is produced by the worker into the bucket and downloads from A', async () => {
    await db!('notes').insert(Array.from({ length: 40 }, (_, i) => ({ title: `note ${i + 1}` })));
    const query = { fields: ['id', 'title'], sort: ['id'] };
    expect((await call(b, 'POST', '/utils/export/notes', { body: { format: 'csv', query } })).status).to.equal(204);
    let status: Row = {};
    await within(30_000, 'the export is done', async () => {
      const rows = await dataOf<Row[]>(
        call(a, 'GET', '/activity?filter[action][_eq]=export&sort=-id&limit=1&fields=comment'),
      );
      status = JSON.parse(String(rows[0]?.['comment'] ?? '{}')) as Row;
      return status['status'] === 'done' || status['status'] === 'failed';
    });
    expect(status).to.include({ status: 'done', rows_done: 41, rows_total: 41 });
    const fileId = String(status['file']);
    const file = await dataOf<Row>(call(a, 'GET', `/files/${fileId}`));
    expect(file['storage']).to.equal('s3');
    expect(await s3!.objectKeys()).to.include(String(file['filename_disk']));
    const csv = await (await call(a, 'GET', `/assets/${fileId}`)).text();
    const lines = csv.trim().split('\n');
    expect(lines).to.have.length(42);
    expect(lines[1]).to.equal('1,"changed in SQL"');
    expect(lines[41]).to.equal('41,"note 40"');
    // The worker ran it: the API instances only queue jobs when REDIS is set. It logs the job
    // done once bull has it completed, after the status row says so.
    await within(30_000, 'the worker logs the export done', () =>
      Promise.resolve(/"name":"export".*"msg":"job done"/.test(worker?.output() ?? '')),
    );
  });

  it('a rate limit counts the requests of one client across both instances', async () => {
    const client = '203.0.113.77';
    const statuses: number[] = [];
    for (let i = 0; i < RATE_POINTS; i += 1) {
      statuses.push((await call(i % 2 === 0 ? a : b, 'GET', '/items/notes?limit=1', { client })).status);
    }
    expect(statuses).to.deep.equal(Array.from({ length: RATE_POINTS }, () => 200));
    for (const instance of [a, b]) {
      const refused = await call(instance, 'GET', '/items/notes?limit=1', { client });
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('retry-after')).to.match(/^\d+$/);
    }
    expect((await call(b, 'GET', '/items/notes?limit=1')).status, 'another client is not counted').to.equal(200);
  });
});
