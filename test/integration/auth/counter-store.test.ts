import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { MemoryCounterStore, RedisCounterStore, type CounterStore } from '../../../src/auth/counter-store.js';
import { redisUnavailable, requireOrSkip, TEST_REDIS_URL } from '../../support/services.js';

/** The behaviour every CounterStore must have, whatever holds the counters. */
function counterStoreContract(store: () => CounterStore): void {
  const key = () => `test:${randomUUID()}`;

  it('counts up from 1 and reports when the window ends', async () => {
    const k = key();
    const started = Date.now();
    expect((await store().increment(k, 60_000)).count).to.equal(1);
    const second = await store().increment(k, 60_000);
    expect(second.count).to.equal(2);
    const resetAt = second.resetAt?.getTime() ?? 0;
    expect(resetAt).to.be.within(started + 58_000, Date.now() + 60_000 + 50);
    expect((await store().get(k))?.count).to.equal(2);
  });

  it('a later hit does not extend the window', async () => {
    const k = key();
    const first = await store().increment(k, 60_000);
    await sleep(400);
    const second = await store().increment(k, 60_000);
    // An extended window would end about 400 ms later.
    expect(Math.abs((second.resetAt?.getTime() ?? 0) - (first.resetAt?.getTime() ?? 0))).to.be.below(150);
  });

  it('forgets a counter when its window ends', async () => {
    const k = key();
    await store().increment(k, 100);
    await sleep(150);
    expect(await store().get(k)).to.equal(undefined);
    expect((await store().increment(k, 100)).count).to.equal(1);
  });

  it('keeps a counter without a window until reset', async () => {
    const k = key();
    await store().increment(k, null);
    const counter = await store().increment(k, null);
    expect(counter).to.deep.equal({ count: 2, resetAt: null });
    await store().reset(k);
    expect(await store().get(k)).to.equal(undefined);
  });

  it('keeps keys apart', async () => {
    const [a, b] = [key(), key()];
    await store().increment(a, 60_000);
    await store().increment(a, 60_000);
    expect(await store().get(b)).to.equal(undefined);
    expect((await store().increment(b, 60_000)).count).to.equal(1);
  });
}

describe('MemoryCounterStore', () => {
  const store = new MemoryCounterStore();
  counterStoreContract(() => store);
});

describe('RedisCounterStore', function () {
  let redis: Redis | undefined;
  let store: RedisCounterStore | undefined;
  before(async function () {
    requireOrSkip(this, await redisUnavailable());
    redis = new Redis(TEST_REDIS_URL);
    store = new RedisCounterStore(redis, `svc-test:${randomUUID()}:`);
  });
  after(async () => {
    await redis?.quit();
  });
  counterStoreContract(() => {
    if (store === undefined) throw new Error('redis store not started');
    return store;
  });

  it('an unreachable Redis is 503 SERVICE_UNAVAILABLE for the rate limiter', async () => {
    const down = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    down.on('error', () => undefined);
    try {
      const error = await new RedisCounterStore(down, 'x:').increment('k', 1000).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.have.property('code', 'SERVICE_UNAVAILABLE');
      expect(error).to.have.nested.property('extensions.service', 'rate-limiter');
    } finally {
      down.disconnect();
    }
  });
});
