import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import {
  consumePoint,
  FallbackCounterStore,
  MemoryCounterStore,
  RedisCounterStore,
  type CounterFallback,
  type CounterStore,
} from '../../../src/auth/counter-store.js';
import { RedisGuard, redisClientOptions } from '../../../src/cache/redis-guard.js';
import { startRedisProcess, type RedisProcess } from '../../support/redis-process.js';
import { dropNamespace, testNamespace } from '../../support/redis-namespace.js';
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

  it('decrement takes one back within the window, never below 0, and never starts a counter', async () => {
    const k = key();
    const first = await store().increment(k, 60_000);
    await store().increment(k, 60_000);
    await store().decrement(k);
    const after = await store().get(k);
    expect(after?.count).to.equal(1);
    expect(Math.abs((after?.resetAt?.getTime() ?? 0) - (first.resetAt?.getTime() ?? 0))).to.be.below(150);
    await store().decrement(k);
    await store().decrement(k);
    expect((await store().get(k))?.count).to.equal(0);
    const unset = key();
    await store().decrement(unset);
    expect(await store().get(unset)).to.equal(undefined);
    const ended = key();
    await store().increment(ended, 100);
    await sleep(150);
    await store().decrement(ended);
    expect(await store().get(ended)).to.equal(undefined);
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
  const namespace = testNamespace('counter-test');
  before(async function () {
    requireOrSkip(this, await redisUnavailable());
    redis = new Redis(TEST_REDIS_URL);
    store = new RedisCounterStore(redis, `${namespace}:`);
  });
  after(async () => {
    await redis?.quit();
    if (store !== undefined) await dropNamespace(namespace);
  });
  counterStoreContract(() => {
    if (store === undefined) throw new Error('redis store not started');
    return store;
  });

  it('an unreachable Redis is 503 SERVICE_UNAVAILABLE for the rate limiter', async () => {
    const down = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
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

describe('FallbackCounterStore (RATE_LIMITER_REDIS_FALLBACK)', function () {
  this.timeout(20_000);
  let server: RedisProcess | undefined;
  let redis: Redis | undefined;
  const warnings: string[] = [];
  const infos: string[] = [];
  const storeWith = (fallback: CounterFallback) => {
    if (redis === undefined) throw new Error('redis not started');
    const logger = {
      warn: (_d: unknown, message: string) => void warnings.push(message),
      info: (_d: unknown, message: string) => void infos.push(message),
    };
    return new FallbackCounterStore(
      new RedisCounterStore(redis, `svc-test:${randomUUID()}:`),
      new RedisGuard('rate limiter', 'degraded', logger),
      fallback,
    );
  };
  const limitOf = async (store: CounterStore) => {
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const started = Date.now();
      outcomes.push(
        await consumePoint(store, 'k', 2, 60).then(
          () => 'ok',
          (error: unknown) => (error as { code: string }).code,
        ),
      );
      expect(Date.now() - started).to.be.lessThan(1500);
    }
    return outcomes;
  };

  before(async () => {
    server = await startRedisProcess();
    redis = new Redis(server.url, redisClientOptions(200));
  });
  beforeEach(() => {
    warnings.length = 0;
    infos.length = 0;
  });
  afterEach(() => server?.resume());
  after(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it('memory: while Redis hangs the limit holds in this process, logged once; Redis counts again after', async () => {
    const store = storeWith('memory');
    expect(await store.increment('shared', 60_000)).to.include({ count: 1 });
    server?.pause();
    expect(await limitOf(store)).to.deep.equal(['ok', 'ok', 'REQUESTS_EXCEEDED', 'REQUESTS_EXCEEDED']);
    expect(warnings).to.deep.equal(['rate limiter: Redis unavailable, degraded until it answers again']);
    server?.resume();
    await sleep(1100);
    // The Redis counter again (an increment sent as Redis hung may have been counted on its return).
    expect((await store.increment('shared', 60_000)).count).to.be.within(2, 3);
    expect(infos).to.deep.equal(['rate limiter: Redis answers again']);
  });

  it('open: while Redis hangs nothing is limited', async () => {
    const store = storeWith('open');
    server?.pause();
    expect(await limitOf(store)).to.deep.equal(['ok', 'ok', 'ok', 'ok']);
    expect(warnings).to.have.length(1);
  });

  it('closed: while Redis hangs every request is 503 SERVICE_UNAVAILABLE, answered at once', async () => {
    const store = storeWith('closed');
    server?.pause();
    expect(await limitOf(store)).to.deep.equal([
      'SERVICE_UNAVAILABLE',
      'SERVICE_UNAVAILABLE',
      'SERVICE_UNAVAILABLE',
      'SERVICE_UNAVAILABLE',
    ]);
    expect(warnings).to.have.length(1);
  });
});
