import type { Redis, RedisOptions } from 'ioredis';
import { createRedis, type RedisWhere } from './redis-client.js';
import { closeRedis, redisClientOptions, type RedisGuard } from './redis-guard.js';

type MessageListener = (message: string) => void;

/**
 * The process's Redis connections (issue 37: one bus per process), opened by its composition
 * root (server.ts, workers/index.ts, the command line) and shared by every user. `commands`
 * carries the commands of all of them (the data cache, the rate limiter's and the login
 * counters, the schema cache, the data invalidation's PUBLISH, the change feed's XADD, the
 * extensions' schedules); one subscriber serves every channel, as a subscribed connection takes
 * no other command. A blocking read holds its connection: {@link blockingClient} makes one per
 * reader. Each user keeps its own RedisGuard (its log lines, its degradation), watching the
 * connections it uses. bull makes its own three (jobs/), the health check its own probe.
 */
class RedisBus {
  readonly commands: Redis;
  readonly #subscriber: Redis;
  readonly #options: RedisOptions;
  readonly #where: RedisWhere;
  readonly #channels = new Map<string, Set<MessageListener>>();
  readonly #reconnectListeners = new Set<() => void>();
  readonly #blockingClients = new Set<Redis>();
  #closing: Promise<void> | undefined;

  constructor(redis: RedisWhere & { readonly commandTimeoutMs: number }) {
    this.#where = redis;
    this.#options = { ...redisClientOptions(redis.commandTimeoutMs), lazyConnect: true };
    this.commands = this.#create(this.#options);
    this.#subscriber = this.#create(this.#options);
    this.#subscriber.on('message', (channel: string, message: string) => {
      for (const listener of this.#channels.get(channel) ?? []) listener(message);
    });
  }

  async start(): Promise<void> {
    await Promise.all([this.commands.connect(), this.#subscriber.connect()]);
    // After the first connection: each later one is a reconnection (ioredis subscribes again).
    this.#subscriber.on('ready', () => {
      for (const listener of this.#reconnectListeners) listener();
    });
  }

  /** Runs `listener` with each message of `channel` once Redis confirmed the subscription; returns the unsubscribe. */
  async subscribe(channel: string, listener: MessageListener): Promise<() => void> {
    const own: MessageListener = (message) => {
      listener(message);
    };
    const listeners = this.#channels.get(channel) ?? new Set();
    this.#channels.set(channel, listeners);
    listeners.add(own);
    try {
      await this.#subscriber.subscribe(channel);
    } catch (error) {
      this.#unsubscribe(channel, own);
      throw error;
    }
    return () => {
      this.#unsubscribe(channel, own);
    };
  }

  /**
   * Runs `listener` each time the subscriber is back after losing its connection: the messages
   * published meanwhile were lost. Returns the unsubscribe.
   */
  onSubscriberReconnect(listener: () => void): () => void {
    const own = () => {
      listener();
    };
    this.#reconnectListeners.add(own);
    return () => {
      this.#reconnectListeners.delete(own);
    };
  }

  /**
   * Makes `guard` hear the errors and reconnections (RedisGuard.watch) of the command connection
   * and, for a user that subscribes, of the subscriber. Returns the unwatch.
   */
  watch(guard: RedisGuard, { isSubscriber }: { readonly isSubscriber: boolean }): () => void {
    const unwatch = [guard.watch(this.commands), ...(isSubscriber ? [guard.watch(this.#subscriber)] : [])];
    return () => {
      for (const stop of unwatch) stop();
    };
  }

  /**
   * A connection of its own for a blocking read (XREAD BLOCK holds it while it waits), without
   * the command timeout, not connected yet: its user watches it, connects it, and may disconnect
   * it to end a read at once. The bus closes it too.
   */
  blockingClient(): Redis {
    const client = this.#create({ ...this.#options, commandTimeout: undefined });
    this.#blockingClients.add(client);
    return client;
  }

  /** Closes every connection, once; its users have stopped. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    // A blocking read would hold QUIT until it ends, and a blocking client has nothing else to send.
    for (const client of this.#blockingClients) client.disconnect();
    await Promise.all([closeRedis(this.#subscriber), closeRedis(this.commands)]);
  }

  #create(options: RedisOptions): Redis {
    const client = createRedis(this.#where, options);
    // The users' guards report errors; this keeps ioredis from printing those no guard hears
    // (a start that cannot reach Redis fails with the one line of describeRedisFailure).
    client.on('error', () => undefined);
    return client;
  }

  #unsubscribe(channel: string, listener: MessageListener): void {
    const listeners = this.#channels.get(channel);
    if (listeners?.delete(listener) !== true || listeners.size > 0) return;
    this.#channels.delete(channel);
    // Not awaited: a user stops without waiting for a Redis that may not answer.
    this.#subscriber.unsubscribe(channel).catch(() => undefined);
  }
}

// Made by openRedisBus only: connected, once per process.
export type { RedisBus };

/** The process's bus, connected; none without REDIS. A Redis that cannot be reached fails it. */
export async function openRedisBus(
  redis: RedisWhere & { readonly commandTimeoutMs: number },
): Promise<RedisBus | undefined> {
  if (redis.url === undefined) return undefined;
  const bus = new RedisBus(redis);
  try {
    await bus.start();
  } catch (error) {
    await bus.close();
    throw error;
  }
  return bus;
}
