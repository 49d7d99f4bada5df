import { expect } from 'chai';
import { Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { startServer, type RunningServer } from '../../../src/server.js';
import { startRedisProcess, type RedisProcess } from '../../support/redis-process.js';
import { testNamespace } from '../../support/redis-namespace.js';
import { TEST_ADMIN, testConfig, type ServerContext } from '../../support/server.js';
import { sqliteTarget, type TestDatabase } from '../../support/services.js';
import { latestExport } from '../files/export-status.js';
import { createNotes, retitleInSql, titleOf, type Api } from './cache-helpers.js';

/*
 * A Redis that hangs (SIGSTOP: connections open, nothing answered) must not hold the API:
 * with the data cache, the rate limiter, the login counters, the schema cache, the data
 * invalidation and the job queue all in Redis, logins, reads, writes and rate-limited
 * requests answer within a bound (REDIS_COMMAND_TIMEOUT, then Redis skipped a while), an
 * export is refused as 503 at once, each degradation is logged once, and once Redis answers
 * again (SIGCONT) the cache is used again by itself.
 */

/** Generous: a request waits at most one REDIS_COMMAND_TIMEOUT (300ms) per Redis user it meets. */
const BOUND_MS = 3000;

/** Polls until a read of note 3 is answered from the cache again (a change made in SQL unseen). */
async function expectCachedAgain(api: Api, db: Knex): Promise<void> {
  const deadline = Date.now() + 15_000;
  let isCached = false;
  while (!isCached && Date.now() < deadline) {
    await delay(200);
    const before = await titleOf(api, 3);
    await retitleInSql(db, 3, `third ${Date.now()}`);
    isCached = (await titleOf(api, 3)) === before;
  }
  expect(isCached, 'reads cached again').to.equal(true);
}

interface Timed {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly ms: number;
}

describe('Redis hung (SIGSTOP), then back (SIGCONT)', function () {
  this.timeout(60_000);
  let redis: RedisProcess | undefined;
  let database: TestDatabase | undefined;
  let server: RunningServer | undefined;
  const logs: { level: number; msg: string }[] = [];
  const namespace = testNamespace('cache-test');
  let env: Record<string, string> = {};

  const ctx = (): ServerContext => {
    if (server === undefined || database === undefined) throw new Error('server not started');
    const running = server;
    return { dialect: 'sqlite', database, server: running, env, api: (path, init) => fetch(running.url + path, init) };
  };
  const timed = async (
    method: string,
    path: string,
    body?: unknown,
    token: string | null = TEST_ADMIN.token,
  ): Promise<Timed> => {
    const started = Date.now();
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (token !== null) headers['Authorization'] = `Bearer ${token}`;
    const res = await ctx().api(path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
      ms: Date.now() - started,
    };
  };
  const warnings = (pattern: RegExp) => logs.filter((l) => l.level === 40 && pattern.test(l.msg)).map((l) => l.msg);

  before(async () => {
    redis = await startRedisProcess();
    database = await sqliteTarget.create();
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk
          .toString()
          .split('\n')
          .filter((l) => l !== ''))
          logs.push(JSON.parse(line) as { level: number; msg: string });
        done();
      },
    });
    env = {
      REDIS: redis.url,
      REDIS_COMMAND_TIMEOUT: '300ms',
      CACHE_ENABLED: 'true',
      CACHE_STORE: 'redis',
      CACHE_AUTO_PURGE: 'true',
      CACHE_NAMESPACE: namespace,
      RATE_LIMITER_ENABLED: 'true',
      RATE_LIMITER_STORE: 'redis',
      RATE_LIMITER_POINTS: '10000',
      RATE_LIMITER_GLOBAL_ENABLED: 'true',
      RATE_LIMITER_GLOBAL_POINTS: '10000',
    };
    server = await startServer(testConfig(database, env), { logger: pino({ level: 'info' }, sink) });
    await createNotes(ctx());
  });

  after(async () => {
    redis?.resume();
    await server?.close();
    await database?.drop();
    await redis?.stop();
  });

  it('while Redis answers, reads are cached in it', async () => {
    expect(await titleOf(ctx().api, 1)).to.equal('first');
    await retitleInSql(ctx().server.db, 1, 'changed in SQL');
    expect(await titleOf(ctx().api, 1)).to.equal('first');
  });

  it('while Redis hangs, login, reads, writes and rate-limited requests answer in time; exports are 503', async () => {
    redis?.pause();
    const login = await timed('POST', '/auth/login', { email: TEST_ADMIN.email, password: TEST_ADMIN.password }, null);
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
    expect(login.ms).to.be.lessThan(BOUND_MS);
    const wrongPassword = await timed('POST', '/auth/login', { email: TEST_ADMIN.email, password: 'wrong' }, null);
    expect(wrongPassword.status).to.equal(401);
    expect(wrongPassword.ms).to.be.lessThan(BOUND_MS);

    // The cache is bypassed: the database's value, not the cached one.
    const read = await timed('GET', '/items/notes/1?fields=title');
    expect(read.status).to.equal(200);
    expect(read.body['data']).to.deep.equal({ title: 'changed in SQL' });
    expect(read.ms).to.be.lessThan(BOUND_MS);

    const write = await timed('PATCH', '/items/notes/2', { title: 'written while Redis hangs' });
    expect(write.status, JSON.stringify(write.body)).to.equal(200);
    expect(write.ms).to.be.lessThan(BOUND_MS);
    expect((await ctx().server.db('notes').where('id', 2).first<{ title: string }>('title'))?.title).to.equal(
      'written while Redis hangs',
    );

    // Every request above went through both rate limiters; so do these, one after another.
    for (let i = 0; i < 5; i += 1) {
      const again = await timed('GET', '/items/notes?fields=id&sort=id');
      expect(again.status).to.equal(200);
      expect(again.ms).to.be.lessThan(BOUND_MS);
    }

    const exported = await timed('POST', '/utils/export/notes', { format: 'json', query: { fields: ['id'] } });
    expect(exported.status, JSON.stringify(exported.body)).to.equal(503);
    expect(exported.body).to.deep.equal({
      errors: [
        {
          message: 'Service "jobs" is unavailable. The export could not be queued.',
          extensions: { service: 'jobs', reason: 'The export could not be queued', code: 'SERVICE_UNAVAILABLE' },
        },
      ],
    });
    expect(exported.ms).to.be.lessThan(BOUND_MS);
    expect((await latestExport(ctx()))?.status.status).to.equal('failed');
  });

  it('each degradation was logged once, not per request', () => {
    expect(warnings(/^data cache: Redis unavailable/)).to.have.length(1);
    expect(warnings(/^rate limiter: Redis unavailable/)).to.have.length(1);
    expect(warnings(/^login counters: Redis unavailable/)).to.have.length(1);
    expect(warnings(/^data invalidation: Redis unavailable/)).to.have.length(1);
    expect(warnings(/^job queue: Redis unavailable/)).to.have.length(1);
  });

  it('once Redis answers again the cache is used again, and the refused export never runs', async () => {
    redis?.resume();
    await expectCachedAgain(ctx().api, ctx().server.db);
    expect(logs.filter((l) => l.msg === 'data cache: Redis answers again')).to.have.length(1);
    // The write of the outage cleared the cache once Redis answered: its own note reads fresh.
    expect(await titleOf(ctx().api, 2)).to.equal('written while Redis hangs');

    // The add that timed out reached Redis after all: it was taken back.
    const client = new Redis(redis?.url ?? '');
    try {
      let waiting = -1;
      for (let i = 0; i < 50 && waiting !== 0; i += 1) {
        waiting = await client.llen(`${namespace}:bull:jobs:wait`);
        if (waiting !== 0) await delay(100);
      }
      expect(waiting).to.equal(0);
    } finally {
      client.disconnect();
    }
  });
});

describe('Redis down (killed), then restarted', function () {
  this.timeout(60_000);
  let redis: RedisProcess | undefined;
  let database: TestDatabase | undefined;
  let server: RunningServer | undefined;
  const api = (path: string, init?: RequestInit) => {
    if (server === undefined) throw new Error('server not started');
    return fetch(server.url + path, init);
  };
  const db = () => {
    if (server === undefined) throw new Error('server not started');
    return server.db;
  };

  before(async () => {
    redis = await startRedisProcess();
    database = await sqliteTarget.create();
    const env = {
      REDIS: redis.url,
      CACHE_ENABLED: 'true',
      CACHE_STORE: 'redis',
      CACHE_NAMESPACE: testNamespace('cache-test'),
      RATE_LIMITER_ENABLED: 'true',
      RATE_LIMITER_STORE: 'redis',
      RATE_LIMITER_POINTS: '10000',
    };
    server = await startServer(testConfig(database, env), { logger: pino({ level: 'silent' }) });
    const running = server;
    await createNotes({ dialect: 'sqlite', database, server: running, env, api });
  });

  after(async () => {
    await server?.close();
    await database?.drop();
    await redis?.stop();
  });

  it('answers in time while Redis is down, and caches again once it is back', async () => {
    expect(await titleOf(api, 1)).to.equal('first');
    await redis?.stop();
    const auth = { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' };
    for (const [method, path, body, status] of [
      ['POST', '/auth/login', { email: TEST_ADMIN.email, password: TEST_ADMIN.password }, 200],
      ['GET', '/items/notes/1?fields=title', undefined, 200],
      ['PATCH', '/items/notes/1', { title: 'while down' }, 200],
      ['POST', '/utils/export/notes', { format: 'json', query: { fields: ['id'] } }, 503],
    ] as const) {
      const started = Date.now();
      const res = await api(path, {
        method,
        headers: auth,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(res.status, `${method} ${path}: ${await res.text()}`).to.equal(status);
      expect(Date.now() - started, `${method} ${path}`).to.be.lessThan(BOUND_MS);
    }
    redis = await redis?.restart();
    await expectCachedAgain(api, db());
    expect(await titleOf(api, 1)).to.equal('while down');
  });
});
