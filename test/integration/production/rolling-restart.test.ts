import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import knex, { type Knex } from 'knex';
import { WebSocket } from 'ws';
import { RealtimeClient } from '../../../src/client/realtime.js';
import { haproxyUnavailable, startHaproxy, type HaproxyProcess } from '../../support/haproxy.js';
import { freePort } from '../../support/ports.js';
import { dropNamespace, testNamespace } from '../../support/redis-namespace.js';
import { TEST_ADMIN } from '../../support/server.js';
import {
  PROCESS_TEST_TIMEOUT_MS,
  SERVER_ENTRY,
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

/** haproxy checks each instance this often, and takes it out after 2 failed checks. */
const HEALTH_INTERVAL_MS = 400;
/** How long a stopping instance serves on, reported draining: well past haproxy's 2 checks. */
const DRAIN_DELAY_MS = 3000;
/** Live subscribers through haproxy, each on its own WebSocket (the client library's RealtimeClient). */
const SUBSCRIBERS = 200;

interface Failure {
  readonly request: string;
  readonly status: number | string;
  readonly body: string;
}

/** Polls `check` until it holds; fails after `withinMs`. */
async function until(withinMs: number, what: string, check: () => Promise<boolean>): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > withinMs) expect.fail(`${what}: not within ${withinMs} ms`);
    await delay(50);
  }
}

/**
 * Issue 42: two API processes (and a worker) sharing PostgreSQL and Redis behind a real
 * haproxy (Debian's, health checks on /server/health every 400 ms), a steady load of reads,
 * writes and GraphQL reads through it, an export running and 200 live subscribers (the client
 * library's RealtimeClient, through haproxy), and each instance stopped with SIGTERM and
 * started again in turn, as a rolling upgrade does: no request fails, every write is in the
 * database exactly once, the exports complete, and every subscriber gets every created note
 * once and all in the same order: those of a subscriber's reconnection gap come from the
 * change log when it resumes. The stopping instance says `draining` on /server/health while
 * /server/ping still answers, haproxy takes it out, it closes its WebSockets with 1012 (clients
 * reconnect) and exits 0.
 */
describe('rolling restart of two API processes behind haproxy', function () {
  this.timeout(PROCESS_TEST_TIMEOUT_MS);
  const dir = mkdtempSync(join(tmpdir(), 'svc-rolling-'));
  const namespace = testNamespace('rolling');
  let database: TestDatabase | undefined;
  let worker: ServiceProcess | undefined;
  /** The subscribers' clients (closed after, whatever happened). */
  const clients: RealtimeClient[] = [];
  let db: Knex | undefined;
  let haproxy: HaproxyProcess | undefined;
  const instances = new Map<string, { port: number; process: ServiceProcess | undefined }>();

  const start = async (name: string): Promise<ServiceProcess> => {
    // A port taken right before the first start (others' tests run on this machine too), kept for the restart.
    const instance = instances.get(name) ?? { port: await freePort(), process: undefined };
    instances.set(name, instance);
    instance.process = await startServiceProcess(
      SERVER_ENTRY,
      { ...env(name), HOST: '127.0.0.1', PORT: String(instance.port) },
      PROCESS_TEST_TIMEOUT_MS / 3,
    );
    return instance.process;
  };
  /** What every process of the suite runs with (the API's instances and the worker). */
  const env = (name: string): Record<string, string> => ({
    ...database!.env,
    REDIS: TEST_REDIS_URL,
    CACHE_NAMESPACE: namespace,
    SECRET: 'rolling-restart-secret',
    ADMIN_EMAIL: TEST_ADMIN.email,
    ADMIN_PASSWORD: TEST_ADMIN.password,
    ADMIN_TOKEN: TEST_ADMIN.token,
    EMAIL_VERIFY_SETUP: 'false',
    STORAGE_LOCAL_ROOT: join(dir, 'uploads'),
    TEMP_PATH: join(dir, `tmp-${name}`),
    WEBSOCKETS_ENABLED: 'true',
    SHUTDOWN_DRAIN_DELAY: `${DRAIN_DELAY_MS}ms`,
    SHUTDOWN_TIMEOUT: '10s',
  });

  before(async function () {
    requireOrSkip(this, haproxyUnavailable());
    requireOrSkip(this, (await postgresTarget.unavailable()) ?? (await redisUnavailable()));
    database = await postgresTarget.create();
    // A migrates the database and creates the collection; B starts on both.
    const a = await start('a');
    const created = await fetch(`${a.url}/collections`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        collection: 'notes',
        schema: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'title', type: 'string', schema: {} },
        ],
      }),
    });
    expect(created.status, await created.text()).to.equal(200);
    await start('b');
    worker = await startServiceProcess(WORKER_ENTRY, env('worker'), PROCESS_TEST_TIMEOUT_MS / 3);
    haproxy = await startHaproxy({
      servers: { a: instances.get('a')!.port, b: instances.get('b')!.port },
      healthPath: '/server/health',
      intervalMs: HEALTH_INTERVAL_MS,
    });
    await until(10_000, 'haproxy sees both instances up', async () =>
      Object.values(await haproxy!.states()).every((state) => state === 'UP'),
    );
    const { DB_HOST = '', DB_PORT, DB_USER = '', DB_PASSWORD = '', DB_DATABASE = '' } = database.env;
    db = knex({
      client: 'pg',
      connection: {
        host: DB_HOST,
        port: Number(DB_PORT),
        user: DB_USER,
        password: DB_PASSWORD,
        database: DB_DATABASE,
      },
    });
  });

  after(async () => {
    for (const client of clients) client.close();
    await haproxy?.stop();
    for (const { process } of instances.values()) await process?.stop('SIGKILL');
    await worker?.stop('SIGKILL');
    await db?.destroy();
    await database?.drop();
    await dropNamespace(namespace);
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(function () {
    if (this.currentTest?.state !== 'failed') return;
    console.log(haproxy?.output().slice(-3000));
    for (const [name, { process }] of instances) console.log(name, process?.output().slice(-3000));
    console.log('worker', worker?.output().slice(-3000));
  });

  it('restarts each instance in turn under load, an export and 200 subscribers: nothing fails, is lost or repeated', async () => {
    const proxy = haproxy!.url;
    const failures: Failure[] = [];
    const written: string[] = [];
    let answered = 0;
    let isLoading = true;
    const call = (request: string, init: RequestInit = {}) =>
      fetch(proxy + request.slice(request.indexOf(' ') + 1), {
        method: request.slice(0, request.indexOf(' ')),
        ...init,
        headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' },
      });
    const send = async (request: string, init: RequestInit = {}): Promise<string | undefined> => {
      try {
        const res = await call(request, init);
        const body = await res.text();
        if (res.status >= 300) failures.push({ request, status: res.status, body: body.slice(0, 300) });
        answered += 1;
        return res.headers.get('x-export-job') ?? body;
      } catch (error) {
        failures.push({ request, status: 'network error', body: String((error as Error).cause ?? error) });
        return undefined;
      }
    };

    // The subscribers, each on its own socket through haproxy: the created notes' titles as they come.
    const seen: string[][] = [];
    const inits: number[] = [];
    const subscriberErrors: string[] = [];
    const listening = Array.from({ length: SUBSCRIBERS }, async (_, n) => {
      const client = new RealtimeClient(proxy, {
        WebSocket,
        token: () => Promise.resolve(TEST_ADMIN.token),
        initialDelayMs: 100,
        maxDelayMs: 1000,
      });
      clients.push(client);
      const titles: string[] = (seen[n] = []);
      inits[n] = 0;
      const subscription = client.subscribe<{ title: string }>(
        'notes',
        { fields: ['id', 'title'] },
        { event: 'create' },
      );
      try {
        for await (const message of subscription) {
          if (message.event === 'init') inits[n] = (inits[n] ?? 0) + 1;
          else for (const item of message.data) titles.push((item as { title: string }).title);
        }
      } catch (error) {
        subscriberErrors.push(`subscriber ${n}: ${String(error)}`);
      }
    });
    await until(60_000, 'every subscriber has its init', () =>
      Promise.resolve(inits.every((n) => n === 1) && inits.length === SUBSCRIBERS),
    );

    const writer = async (loop: number) => {
      for (let i = 0; isLoading; i += 1) {
        const title = `w${loop}-${i}`;
        await send('POST /items/notes', { body: JSON.stringify({ title }) });
        written.push(title);
      }
    };
    const reader = async () => {
      while (isLoading) await send('GET /items/notes?limit=5&sort=-id&fields=id,title');
    };
    const graphql = async () => {
      while (isLoading) {
        await send('POST /graphql', {
          body: JSON.stringify({ query: '{ notes(limit: 3, sort: "-id") { id title } }' }),
        });
      }
    };
    const loops = [writer(0), writer(1), writer(2), reader(), reader(), graphql()];
    const exports: string[] = [];

    for (const name of ['a', 'b']) {
      await delay(1000);
      const { port, process: running } = instances.get(name)!;
      const direct = `http://127.0.0.1:${port}`;
      // An export runs through the restart (queued in Redis, run by the worker, followed through either instance).
      const job = await send('POST /utils/export/notes', {
        body: JSON.stringify({ format: 'json', query: { fields: ['id', 'title'], limit: -1 } }),
      });
      if (job !== undefined) exports.push(job);
      // A client of the WebSocket protocol on the instance about to stop.
      const socket = new WebSocket(`ws://127.0.0.1:${port}/websocket`);
      await new Promise((resolve, reject) => {
        socket.once('open', resolve);
        socket.once('error', reject);
      });
      const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
      const before = answered;

      const exited = running!.stop('SIGTERM');
      await until(
        DRAIN_DELAY_MS,
        `${name} reports draining`,
        async () => (await fetch(`${direct}/server/health`)).status === 503,
      );
      const health = await fetch(`${direct}/server/health`);
      expect([health.status, await health.json()]).to.deep.equal([503, { status: 'draining' }]);
      const ping = await fetch(`${direct}/server/ping`);
      expect([ping.status, await ping.text()], 'liveness while draining').to.deep.equal([200, 'pong']);
      await until(DRAIN_DELAY_MS, `haproxy takes ${name} out`, async () =>
        (await haproxy!.states())[name]!.startsWith('DOWN'),
      );
      expect(await exited, `${name} exits 0`).to.equal(0);
      expect(await closed, 'WebSocket close code').to.equal(1012);

      await start(name);
      await until(30_000, `haproxy brings ${name} back`, async () => (await haproxy!.states())[name] === 'UP');
      expect(answered, 'requests were answered while it restarted').to.be.greaterThan(before + 20);
    }
    await delay(1000);
    isLoading = false;
    await Promise.all(loops);

    expect(failures, 'failed requests').to.deep.equal([]);
    expect(written.length, 'writes').to.be.greaterThan(50);
    const rows = (await db!('notes').select('title').count({ n: '*' }).groupBy('title')) as {
      title: string;
      n: string | number;
    }[];
    const counts = new Map(rows.map((row) => [row.title, Number(row.n)]));
    expect(
      written.filter((title) => counts.get(title) !== 1),
      'writes not present exactly once',
    ).to.deep.equal([]);
    expect(rows.length, 'no row that was not written').to.equal(written.length);

    // Every export done, its file in the library.
    expect(exports, 'exports queued').to.have.length(2);
    for (const job of exports) {
      await until(60_000, `export ${job} done`, async () => {
        const status = ((await (await call(`GET /utils/export/jobs/${job}`)).json()) as { data?: { status?: string } })
          .data?.status;
        expect(status, `export ${job}`).to.not.equal('failed');
        return status === 'done';
      });
    }

    // Every subscriber: each created note once, in the one order of the change log, which keeps each writer's order.
    await until(60_000, 'every subscriber has every created note', () =>
      Promise.resolve(seen.every((titles) => titles.length >= written.length)),
    );
    for (const client of clients) client.close();
    await Promise.all(listening);
    expect(subscriberErrors, 'subscriptions that failed').to.deep.equal([]);
    expect(inits, 'one init each: every reconnection resumed').to.deep.equal(inits.map(() => 1));
    const [first = []] = seen;
    expect([...first].sort(), "the first subscriber's notes").to.deep.equal([...written].sort());
    seen.forEach((titles, n) => {
      expect(titles, `subscriber ${n}: the same notes in the same order as the first`).to.deep.equal(first);
    });
    for (const loop of [0, 1, 2]) {
      const own = first.filter((title) => title.startsWith(`w${loop}-`));
      expect(own, `writer ${loop}'s notes in the order written`).to.deep.equal(
        written.filter((title) => title.startsWith(`w${loop}-`)),
      );
    }
  });
});
