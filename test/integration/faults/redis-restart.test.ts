import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { startServer, type RunningServer } from '../../../src/server.js';
import { capturingLogger } from '../../support/capturing-logger.js';
import { testConfig } from '../../support/server.js';
import { postgresTarget, requireOrSkip, type TestDatabase } from '../../support/services.js';
import { adminRequest as request, createNotes, journaledNotes, type Reply } from './load.js';
import { createThrowawayRedis, throwawayRedisUnavailable, type ThrowawayRedis } from '../../support/throwaway-redis.js';

interface Answer extends Reply {
  readonly kind: 'write' | 'read';
  readonly title: string;
}

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
    await createNotes(server.url);
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
      for (let i = 0; isLoading; i += 1)
        answers.push({
          kind: 'write',
          title: `w${loop}-${i}`,
          ...(await request(url, 'POST', '/items/notes', { title: `w${loop}-${i}` })),
        });
    };
    const reader = async () => {
      while (isLoading)
        answers.push({ kind: 'read', title: '', ...(await request(url, 'GET', '/items/notes?limit=5&sort=-id')) });
    };
    const loops = [writer(0), writer(1), reader(), reader()];
    await delay(1000);
    await redis!.stop();
    await delay(3000);
    await redis!.start();
    await delay(4000);
    isLoading = false;
    await Promise.all(loops);

    expect(
      answers.filter((a) => a.status !== 200).map((a) => `${a.kind} ${a.status} ${JSON.stringify(a.body)}`),
    ).to.deep.equal([]);
    expect(
      lines.some((l) => l['level'] === 40 && /redis/i.test(String(l['msg']))),
      'the lost Redis was logged',
    ).to.equal(true);

    // Nothing half-written: every acknowledged write once, with its activity and revision.
    const notes = await journaledNotes(db);
    expect(
      answers
        .filter((a) => a.kind === 'write')
        .map((a) => a.title)
        .sort(),
    ).to.deep.equal(notes.map((n) => n.title).sort());

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
