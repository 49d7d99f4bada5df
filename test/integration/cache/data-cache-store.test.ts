import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createDataCache, type DataCache } from '../../../src/cache/data-cache.js';
import { redisUnavailable, requireOrSkip, TEST_REDIS_URL } from '../../support/services.js';
import { dropNamespace, testNamespace } from '../../support/redis-namespace.js';

const quiet = { warn: () => undefined };
const answer = {
  status: 200,
  contentType: 'application/json; charset=utf-8',
  body: '{"data":{"text":"two\\nlines"}}\n',
};

function storeCases(open: (ttlMs: number) => DataCache): void {
  it('keeps an answer for its key and gives it back as stored', async () => {
    const cache = open(60_000);
    expect((await cache.lookup('k1')).hit).to.equal(undefined);
    await (await cache.lookup('k1')).store(answer);
    const { hit } = await cache.lookup('k1');
    expect(hit).to.deep.include(answer);
    expect(hit?.expiresAt).to.be.within(Date.now(), Date.now() + 60_000);
    expect((await cache.lookup('k2')).hit).to.equal(undefined);
  });

  it('drops an answer computed across a clear: it may predate a write', async () => {
    const cache = open(60_000);
    const before = await cache.lookup('raced');
    await cache.clear();
    await before.store(answer);
    expect((await cache.lookup('raced')).hit).to.equal(undefined);
  });

  it('forgets everything on clear', async () => {
    const cache = open(60_000);
    await (await cache.lookup('kept')).store(answer);
    await cache.clear();
    expect((await cache.lookup('kept')).hit).to.equal(undefined);
  });

  it('keeps nothing with CACHE_TTL=0', async () => {
    const cache = open(0);
    await (await cache.lookup('k')).store(answer);
    expect((await cache.lookup('k')).hit).to.equal(undefined);
  });
}

describe('data cache store: memory', () => {
  storeCases((ttlMs) =>
    createDataCache({ store: 'memory', ttlMs, maxSize: 1024 * 1024, namespace: 'unused', logger: quiet }),
  );

  it('evicts the least recently used answers past its size', async () => {
    const cache = createDataCache({ store: 'memory', ttlMs: 60_000, maxSize: 200, namespace: 'unused', logger: quiet });
    const body = 'x'.repeat(60);
    for (const key of ['a', 'b']) await (await cache.lookup(key)).store({ ...answer, body });
    await cache.lookup('a');
    await (await cache.lookup('c')).store({ ...answer, body });
    expect((await cache.lookup('a')).hit?.body).to.equal(body);
    expect((await cache.lookup('b')).hit).to.equal(undefined);
    expect((await cache.lookup('c')).hit?.body).to.equal(body);
  });
});

describe('data cache store: Redis', () => {
  let redis: Redis | undefined;
  const namespaces: string[] = [];
  const namespace = (): string => {
    const created = testNamespace('cache-test');
    namespaces.push(created);
    return created;
  };
  before(async function () {
    requireOrSkip(this, await redisUnavailable());
    redis = new Redis(TEST_REDIS_URL);
  });
  after(async () => {
    await redis?.quit();
    for (const created of namespaces) await dropNamespace(created);
  });

  storeCases((ttlMs) => {
    if (redis === undefined) throw new Error('no Redis');
    return createDataCache({ store: 'redis', ttlMs, redis, namespace: namespace(), logger: quiet });
  });

  it('entries expire with the TTL in Redis itself', async () => {
    if (redis === undefined) throw new Error('no Redis');
    const own = namespace();
    const cache = createDataCache({ store: 'redis', ttlMs: 60_000, redis, namespace: own, logger: quiet });
    await (await cache.lookup('k')).store(answer);
    const [key] = await redis.keys(`${own}:data:entry:*`);
    expect(await redis.pttl(key ?? '')).to.be.within(1, 60_000);
  });
});

describe('data cache store: Redis unreachable', () => {
  it('answers every lookup as a miss and never fails a read or a write', async () => {
    const redis = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    redis.on('error', () => undefined);
    const warnings: string[] = [];
    const cache = createDataCache({
      store: 'redis',
      ttlMs: 60_000,
      redis,
      namespace: 'unreachable',
      logger: { warn: (_details, message) => void warnings.push(message) },
    });
    try {
      const lookup = await cache.lookup('k');
      expect(lookup.hit).to.equal(undefined);
      await lookup.store(answer);
      await cache.clear();
      expect((await cache.lookup('k')).hit).to.equal(undefined);
      // Logged once per outage, not per request.
      expect(warnings).to.deep.equal(['data cache: Redis unavailable, reads are not cached until it answers again']);
    } finally {
      redis.disconnect();
    }
  });
});
