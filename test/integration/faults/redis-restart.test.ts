import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { startServer, type RunningServer } from '../../../src/server.js';
import { capturingLogger } from '../../support/logs.js';
import { TEST_ADMIN, testConfig } from '../../support/server.js';
import { postgresTarget, requireOrSkip, type TestDatabase } from '../../support/services.js';
import { createThrowawayRedis, throwawayRedisUnavailable, type ThrowawayRedis } from '../../support/throwaway-redis.js';

interface Answer {
  readonly kind: 'write' | 'read';
  readonly title: string;
  readonly status: number;
  readonly body: unknown;
}

/** A request that no answer within this long counts as not answered. */
const ANSWER_WITHIN_MS = 5000;

/**
 * Issue 24: Redis stopped and started while the API serves reads and writes, with the data
 * cache, the rate limiter, the schema cache and the invalidation all in Redis: every request
 * is answered (caches and limiter degrade to local, logged), nothing is half-written, and the
 * service reconnects by itself. A throw-away redis-server: the machine's is never stopped.
 */
describe('Redis stopped and started under reads and writes (throw-away redis-server)', function () {
  this.timeout(60_000);
  let redis: ThrowawayRedis | undefined;
  let database: TestDatabase | undefined;
  let server: RunningServer | undefined;
  const lines: Record<string, unknown>[] = [];
  const namespace = `svc-fault-${randomBytes(4).toString('hex')}`;

  before(async function () {
    requireOrSkip(this, throwawayRedisUnavailable());
    requireOrSkip(this, await postgresTarget.unavailable());
    redis = await createThrowawayRedis();
    database = await postgresTarget.create();
    const env = {
      REDIS: redis.url,
      CACHE_NAMESPACE: namespace,
      CACHE_ENABLED: 'true',
      CACHE_STORE: 'redis',
      CACHE_AUTO_PURGE: 'true',
      RATE_LIMITER_ENABLED: 'true',
      RATE_LIMITER_STORE: 'redis',
      RATE_LIMITER_POINTS: '100000',
    };
    server = await startServer(testConfig(database, env), { logger: capturingLogger(lines) });
    const created = await request(server.url, 'POST', '/collections', {
      collection: 'notes',
      schema: {},
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
        { field: 'title', type: 'string', schema: {} },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
  });

  after(async () => {
    await server?.close();
    await database?.drop();
    await redis?.stop();
  });

  it('every request is answered, nothing is half-written, and the caches reconnect by themselves', async () => {
    const { url, db } = server!;
    const answers: Answer[] = [];
    let isLoading = true;
    const writer = async (loop: number) => {
      for (let i = 0; isLoading; i += 1) answers.push({ kind: 'write', title: `w${loop}-${i}`, ...(await request(url, 'POST', '/items/notes', { title: `w${loop}-${i}` })) });
    };
    const reader = async () => {
      while (isLoading) answers.push({ kind: 'read', title: '', ...(await request(url, 'GET', '/items/notes?limit=5&sort=-id')) });
    };
    const loops = [writer(0), writer(1), reader(), reader()];
    await delay(1000);
    await redis!.stop();
    await delay(3000);
    await redis!.start();
    await delay(4000);
    isLoading = false;
    await Promise.all(loops);

    expect(answers.filter((a) => a.status !== 200).map((a) => `${a.kind} ${a.status} ${JSON.stringify(a.body)}`)).to.deep.equal([]);
    expect(lines.some((l) => l['level'] === 40 && /redis/i.test(String(l['msg']))), 'the lost Redis was logged').to.equal(true);

    // Nothing half-written: every acknowledged write once, with its activity and revision.
    const notes = await db('notes').select<{ id: number; title: string }[]>('id', 'title');
    const ids = notes.map((n) => String(n.id)).sort();
    expect(new Set(notes.map((n) => n.title)).size).to.equal(notes.length);
    expect(answers.filter((a) => a.kind === 'write').map((a) => a.title).sort()).to.deep.equal(notes.map((n) => n.title).sort());
    const activity = await db('svc_activity').where({ collection: 'notes', action: 'create' }).pluck('item');
    const revisions = await db('svc_revisions').where({ collection: 'notes' }).pluck('item');
    expect(activity.map(String).sort()).to.deep.equal(ids);
    expect(revisions.map(String).sort()).to.deep.equal(ids);

    // Reconnected by itself: the restarted (empty) Redis holds this namespace's cache again.
    const direct = new Redis(redis!.url);
    try {
      expect((await request(url, 'GET', '/items/notes?limit=1')).status).to.equal(200);
      expect((await request(url, 'GET', '/items/notes?limit=1')).status).to.equal(200);
      expect(await direct.keys(`${namespace}*`)).to.not.deep.equal([]);
    } finally {
      direct.disconnect();
    }
  });
});

async function request(url: string, method: string, path: string, body?: unknown): Promise<Pick<Answer, 'status' | 'body'>> {
  try {
    const res = await fetch(url + path, {
      method,
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
      headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  } catch (error) {
    return { status: 0, body: `no answer: ${(error as Error).message}` };
  }
}
