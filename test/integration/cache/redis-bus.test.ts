import { expect } from 'chai';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { openRedisBus, type RedisBus } from '../../../src/cache/redis-bus.js';
import { RedisGuard } from '../../../src/cache/redis-guard.js';
import { requireOrSkip } from '../../support/services.js';
import { createThrowawayRedis, throwawayRedisUnavailable, type ThrowawayRedis } from '../../support/throwaway-redis.js';

/** Polls `check` until it holds; fails after 10 s. */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (const started = Date.now(); !(await check()); await delay(50)) {
    if (Date.now() - started > 10_000) expect.fail(`${what}: not within 10 s`);
  }
}

/**
 * Issue 37: a process's Redis users share one bus: one command connection, one subscriber for
 * every channel, a connection per blocking reader, all closed at once. A throw-away
 * redis-server: its connections are this suite's alone, and it is restarted.
 */
describe('cache: the Redis bus of a process (throw-away Redis)', function () {
  this.timeout(30_000);
  let redis: ThrowawayRedis | undefined;
  let bus: RedisBus | undefined;
  let probe: Redis | undefined;
  /** The connections to the throw-away Redis but the probe's own. */
  const connections = async () => ((await probe!.client('LIST')) as string).trim().split('\n').length - 1;

  before(async function () {
    requireOrSkip(this, throwawayRedisUnavailable());
    redis = await createThrowawayRedis();
    probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    probe.on('error', () => undefined);
    bus = await openRedisBus({ url: redis.url, commandTimeoutMs: 1_000 });
  });
  after(async () => {
    await bus?.close();
    probe?.disconnect();
    await redis?.stop();
  });

  it('serves every channel on one subscriber, and commands on one connection', async () => {
    const heard: string[] = [];
    const stopA = await bus!.subscribe('a', (message) => heard.push(`a:${message}`));
    await bus!.subscribe('b', (message) => heard.push(`b:${message}`));
    expect(await connections(), 'commands and subscriber').to.equal(2);
    await bus!.commands.publish('a', '1');
    await bus!.commands.publish('b', '2');
    await until('both heard', () => heard.length === 2);
    stopA();
    await bus!.commands.publish('a', '3');
    await bus!.commands.publish('b', '4');
    await until('b heard again', () => heard.length === 3);
    expect(heard).to.deep.equal(['a:1', 'b:2', 'b:4']);
  });

  it('after its connection is back the subscriber tells its users and hears its channels again', async () => {
    const warnings: string[] = [];
    const guard = new RedisGuard('test user', 'nothing shared', {
      warn: (_details, message) => warnings.push(message),
    });
    const unwatch = bus!.watch(guard, { isSubscriber: true });
    let reconnects = 0;
    const stop = bus!.onSubscriberReconnect(() => (reconnects += 1));
    const heard: string[] = [];
    await bus!.subscribe('c', (message) => heard.push(message));
    await redis!.stop();
    await until('the loss seen by the guard', () => warnings.length === 1);
    await redis!.start();
    await until('the subscriber back', () => reconnects === 1);
    await until('a message heard again', async () => {
      await bus!.commands.publish('c', 'again').catch(() => 0);
      return heard.includes('again');
    });
    expect(warnings).to.deep.equal(['test user: Redis unavailable, nothing shared until it answers again']);
    stop();
    unwatch();
  });

  it('makes a connection per blocking reader, and closes them all with its own', async () => {
    const reader = bus!.blockingClient();
    await reader.connect();
    const reading = reader.blpop('nothing', 0).catch(() => null);
    await until('commands, subscriber and reader', async () => (await connections()) === 3);
    await bus!.close();
    expect(await reading).to.equal(null);
    await until('none left', async () => (await connections()) === 0);
  });
});
