import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { closeRedis, RedisGuard, redisClientOptions, type GuardLogger } from '../cache/redis-guard.js';
import type { Change } from '../commands/change-set.js';

export type { Change } from '../commands/change-set.js';

export type ChangeListener = (change: Change) => void;

/**
 * The committed changes of every instance: `publish` (the write side's `afterCommit`, wired in
 * server.ts) hands them to this process's listeners at once and, with Redis, to every other
 * instance through pub/sub (the pattern of cache/data-invalidation.ts, with its RedisGuard).
 */
export interface ChangeFeed {
  publish(changes: readonly Change[]): void;
  /** Runs `listener` for every change, here or elsewhere; returns the unsubscribe. */
  subscribe(listener: ChangeListener): () => void;
  close(): Promise<void>;
}

export interface ChangeFeedOptions {
  readonly redis: { readonly url: string | undefined; readonly commandTimeoutMs: number };
  readonly namespace: string;
  readonly logger: GuardLogger;
}

export async function createChangeFeed(options: ChangeFeedOptions): Promise<ChangeFeed> {
  if (options.redis.url === undefined) return new LocalFeed();
  const feed = new RedisFeed(options, options.redis.url);
  await feed.start();
  return feed;
}

class LocalFeed implements ChangeFeed {
  #listeners = new Set<ChangeListener>();

  publish(changes: readonly Change[]): void {
    this.deliver(changes);
  }

  /** A listener that throws is its own problem: the others still run. */
  deliver(changes: readonly Change[]): void {
    for (const change of changes)
      for (const listener of this.#listeners) {
        try {
          listener(change);
        } catch {
          // Listeners report their own failures.
        }
      }
  }

  subscribe(listener: ChangeListener): () => void {
    const own = (change: Change) => {
      listener(change);
    };
    this.#listeners.add(own);
    return () => this.#listeners.delete(own);
  }

  close(): Promise<void> {
    this.#listeners.clear();
    return Promise.resolve();
  }
}

const ACTIONS: ReadonlySet<string> = new Set(['create', 'update', 'delete']);

/**
 * Keys per pub/sub message (some 100 KB of JSON). Redis drops a subscriber whose pending
 * output passes 32 MB (`client-output-buffer-limit pubsub`): the keys of a 4-million-row import
 * in one message, so every other instance lost the change and its connection.
 */
export const KEYS_PER_MESSAGE = 10_000;

class RedisFeed extends LocalFeed {
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  readonly #channel: string;
  /** Own messages come back through the subscription: they were delivered here already. */
  readonly #origin = randomUUID();
  readonly #guard: RedisGuard;
  /** The messages of earlier changes: sent one at a time and in order, whatever their number. */
  #publishing: Promise<void> = Promise.resolve();

  constructor(options: ChangeFeedOptions, url: string) {
    super();
    const connection = { ...redisClientOptions(options.redis.commandTimeoutMs), lazyConnect: true };
    this.#publisher = new Redis(url, connection);
    this.#subscriber = new Redis(url, connection);
    this.#guard = new RedisGuard('live data', 'subscribers see the changes of this instance only', options.logger);
    for (const client of [this.#publisher, this.#subscriber]) this.#guard.watch(client);
    this.#channel = `${options.namespace}:realtime:changes`;
  }

  async start(): Promise<void> {
    await Promise.all([this.#publisher.connect(), this.#subscriber.connect()]);
    this.#subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.#channel) this.#receive(message);
    });
    await this.#subscriber.subscribe(this.#channel);
  }

  override publish(changes: readonly Change[]): void {
    this.deliver(changes);
    this.#publishing = this.#publishing.then(async () => {
      for (const part of messageParts(changes)) {
        const message = JSON.stringify({ origin: this.#origin, changes: part });
        await this.#guard
          .run(() => this.#publisher.publish(this.#channel, message))
          .catch(() => {
            // Logged by the guard.
          });
      }
    });
  }

  override async close(): Promise<void> {
    await super.close();
    await this.#publishing;
    await Promise.all([closeRedis(this.#subscriber), closeRedis(this.#publisher)]);
  }

  #receive(message: string): void {
    let parsed: { origin?: unknown; changes?: unknown };
    try {
      parsed = (JSON.parse(message) ?? {}) as typeof parsed;
    } catch {
      return;
    }
    if (parsed.origin === this.#origin || !Array.isArray(parsed.changes)) return;
    this.deliver((parsed.changes as unknown[]).filter(isChange));
  }
}

/** The changes in messages of at most {@link KEYS_PER_MESSAGE} keys, a big change split across several. */
export function* messageParts(changes: readonly Change[]): Generator<Change[]> {
  let part: Change[] = [];
  let keys = 0;
  for (const change of changes) {
    for (let at = 0; at < change.keys.length; at += KEYS_PER_MESSAGE) {
      const slice = { ...change, keys: change.keys.slice(at, at + KEYS_PER_MESSAGE) };
      if (keys + slice.keys.length > KEYS_PER_MESSAGE && part.length > 0) {
        yield part;
        [part, keys] = [[], 0];
      }
      part.push(slice);
      keys += slice.keys.length;
    }
  }
  if (part.length > 0) yield part;
}

function isChange(value: unknown): value is Change {
  const v = value as Partial<Change> | null;
  return (
    typeof v?.collection === 'string' &&
    typeof v.action === 'string' &&
    ACTIONS.has(v.action) &&
    Array.isArray(v.keys) &&
    v.keys.every((k) => typeof k === 'string' || typeof k === 'number')
  );
}
