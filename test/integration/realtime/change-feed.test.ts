import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { openRedisBus, type RedisBus } from '../../../src/cache/redis-bus.js';
import type { PrimaryKey } from '../../../src/commands/types.js';
import {
  createChangeFeed,
  KEYS_PER_MESSAGE,
  messageParts,
  type Change,
  type ChangeFeed,
} from '../../../src/realtime/change-feed.js';
import { dropNamespace, testNamespace } from '../../support/redis-namespace.js';
import { redisUnavailable, requireOrSkip, TEST_REDIS_URL } from '../../support/services.js';
import { createThrowawayRedis, throwawayRedisUnavailable, type ThrowawayRedis } from '../../support/throwaway-redis.js';

/**
 * The live-data feed between instances through a real Redis: a change of millions of keys
 * (an import) reaches the other instance whole and in order. In one message it passed Redis's
 * 32 MB output limit for subscribers, which dropped every other instance's subscription.
 */
describe('realtime: the change feed through Redis', function () {
  this.timeout(120_000);
  const feeds: ChangeFeed[] = [];
  const buses: RedisBus[] = [];
  const warnings: string[] = [];
  const logger = { warn: (_details: unknown, message: string) => warnings.push(message) };

  /** The feed of an instance: on a Redis bus of its own, as each process has. */
  const feed = async (namespace: string) => {
    const bus = await openRedisBus({ url: TEST_REDIS_URL, commandTimeoutMs: 5_000 });
    buses.push(bus!);
    const created = await createChangeFeed({ bus, namespace, logger });
    feeds.push(created);
    return created;
  };

  before(async function () {
    requireOrSkip(this, await redisUnavailable());
  });

  // The shared test Redis keeps no feed of this suite's: its log holds some 40 MB.
  const namespace = testNamespace('feed');
  afterEach(async () => {
    await Promise.all(feeds.splice(0).map((f) => f.close()));
    await Promise.all(buses.splice(0).map((b) => b.close()));
    await dropNamespace(namespace);
  });

  it('delivers an import of 3.5 million keys to the other instance, then the next change after it', async () => {
    const [a, b] = [await feed(namespace), await feed(namespace)];
    // Ten-digit keys: some 38 MB of JSON, past Redis's 32 MB.
    const count = 3_500_000;
    const keys = Array.from({ length: count }, (_, i) => 1_000_000_000 + i);
    const received: Change[] = [];
    let receivedKeys = 0;
    const done = new Promise<void>((resolve) => {
      b.subscribe((change) => {
        received.push({ ...change, keys: change.keys.slice() });
        receivedKeys += change.keys.length;
        if (change.action === 'delete') resolve();
      });
    });
    let own = 0;
    // The publishing instance reads its own changes from the stream too, at its own pace.
    const ownDone = new Promise<void>((resolve) => {
      a.subscribe((change) => {
        own += change.keys.length;
        if (change.action === 'delete') resolve();
      });
    });
    a.publish([{ collection: 'articles', action: 'create', keys }]);
    a.publish([{ collection: 'articles', action: 'delete', keys: [7] }]);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`after 60 s: ${receivedKeys} of ${count + 1} keys arrived`)), 60_000);
    });
    await Promise.race([Promise.all([done, ownDone]), late]).finally(() => clearTimeout(timer));
    expect(own, 'the publishing instance delivers the change itself, whole').to.equal(count + 1);
    expect(receivedKeys).to.equal(count + 1);
    const last = received.at(-1);
    expect(last, 'the later change arrives last').to.deep.include({ action: 'delete', keys: [7] });
    const created = received.slice(0, -1);
    expect(created.every((c) => c.collection === 'articles' && c.action === 'create')).to.equal(true);
    expect(created.length).to.equal(Math.ceil(count / KEYS_PER_MESSAGE));
    const joined = created.flatMap((c) => c.keys.slice());
    expect(joined.length).to.equal(count);
    expect(
      joined.every((key, i) => key === keys[i]),
      'the keys in the order given',
    ).to.equal(true);
    expect(warnings).to.deep.equal([]);
  });

  it('splits changes into messages of at most KEYS_PER_MESSAGE keys, several small changes sharing one', () => {
    const keys = (n: number, from = 1): PrimaryKey[] => Array.from({ length: n }, (_, i) => from + i);
    const changes: Change[] = [
      { collection: 'a', action: 'create', keys: keys(3) },
      { collection: 'b', action: 'update', keys: keys(KEYS_PER_MESSAGE * 2 + 5, 100) },
      { collection: 'c', action: 'delete', keys: ['x', 'y'] },
    ];
    const parts = [...messageParts(changes)];
    const sizes = parts.map((part) => part.map((c) => `${c.collection}:${c.keys.length}`));
    expect(sizes).to.deep.equal([['a:3'], [`b:${KEYS_PER_MESSAGE}`], [`b:${KEYS_PER_MESSAGE}`], ['b:5', 'c:2']]);
    expect(parts.flat().flatMap((c) => c.keys.slice())).to.deep.equal(changes.flatMap((c) => c.keys.slice()));
    expect([...messageParts([])]).to.deep.equal([]);
  });
});

describe('realtime: the change feed closes while Redis is down (throw-away Redis)', function () {
  this.timeout(30_000);
  let redis: ThrowawayRedis | undefined;

  before(async function () {
    requireOrSkip(this, throwawayRedisUnavailable());
    redis = await createThrowawayRedis();
  });
  after(async () => {
    await redis?.stop();
  });

  it('close() ends the waiting read instead of waiting for a Redis that is gone', async () => {
    const bus = await openRedisBus({ url: redis!.url, commandTimeoutMs: 1_000 });
    const feed = await createChangeFeed({ bus, namespace: `feed-${randomUUID()}`, logger: { warn: () => {} } });
    await redis!.stop();
    // Long enough for the read to fail, be asked again and wait in the reconnecting client's queue.
    await delay(2_000);
    await Promise.race([
      feed.close().then(() => bus!.close()),
      delay(10_000).then(() => {
        throw new Error('close() still waiting after 10 s');
      }),
    ]);
  });
});
