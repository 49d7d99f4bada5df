import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createRedis, type RedisWhere } from '../cache/redis-client.js';
import type { Knex } from 'knex';
import { closeRedis, RedisGuard, redisClientOptions, type GuardLogger } from '../cache/redis-guard.js';
import type { Change, SeenBy } from '../commands/change-set.js';
import type { PrimaryKey } from '../commands/types.js';

export type { Change } from '../commands/change-set.js';

type ChangeListener = (change: Change) => void;

/** Asked inside a delete's transaction, before the rows go: who could read which of them (live-reads.ts). */
type DeleteWitness = (
  trx: Knex.Transaction,
  collection: string,
  keys: readonly PrimaryKey[],
) => Promise<SeenBy | undefined>;

/**
 * The committed changes of every instance: `publish` (the write side's `afterCommit`, wired in
 * server.ts) hands them to this process's listeners at once and, with Redis, to every other
 * instance through pub/sub (the pattern of cache/data-invalidation.ts, with its RedisGuard).
 */
export interface ChangeFeed {
  publish(changes: readonly Change[]): void;
  /** Runs `listener` for every change, here or elsewhere; returns the unsubscribe. */
  subscribe(listener: ChangeListener): () => void;
  /** The write side asks it before a delete (the witness set by {@link setWitness}; none: undefined). */
  witnessDelete(trx: Knex.Transaction, collection: string, keys: readonly PrimaryKey[]): Promise<SeenBy | undefined>;
  /** True when other instances get these changes too (Redis): a delete's witness speaks for their subscribers as well. */
  readonly isShared: boolean;
  /** The subscriptions of this process (LiveReads) answer {@link witnessDelete}. */
  setWitness(witness: DeleteWitness | undefined): void;
  close(): Promise<void>;
}

export interface ChangeFeedOptions {
  readonly redis: RedisWhere & { readonly commandTimeoutMs: number };
  readonly namespace: string;
  readonly logger: GuardLogger;
}

export async function createChangeFeed(options: ChangeFeedOptions): Promise<ChangeFeed> {
  if (options.redis.url === undefined) return new LocalFeed();
  const feed = new RedisFeed(options);
  await feed.start();
  return feed;
}

class LocalFeed implements ChangeFeed {
  #listeners = new Set<ChangeListener>();
  #witness: DeleteWitness | undefined;

  get isShared(): boolean {
    return false;
  }

  witnessDelete(trx: Knex.Transaction, collection: string, keys: readonly PrimaryKey[]): Promise<SeenBy | undefined> {
    return this.#witness?.(trx, collection, keys) ?? Promise.resolve(undefined);
  }

  setWitness(witness: DeleteWitness | undefined): void {
    this.#witness = witness;
  }

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

  override get isShared(): boolean {
    return true;
  }

  constructor(options: ChangeFeedOptions) {
    super();
    const connection = { ...redisClientOptions(options.redis.commandTimeoutMs), lazyConnect: true };
    this.#publisher = createRedis(options.redis, connection);
    this.#subscriber = createRedis(options.redis, connection);
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
  let count = 0;
  for (const change of changes) {
    for (let at = 0; at < change.keys.length; at += KEYS_PER_MESSAGE) {
      const keys = change.keys.slice(at, at + KEYS_PER_MESSAGE);
      const slice = {
        ...change,
        keys,
        ...(change.seenBy === undefined ? {} : { seenBy: seenWithin(change.seenBy, keys) }),
      };
      if (count + slice.keys.length > KEYS_PER_MESSAGE && part.length > 0) {
        yield part;
        [part, count] = [[], 0];
      }
      part.push(slice);
      count += slice.keys.length;
    }
  }
  if (part.length > 0) yield part;
}

/** A delete's witness cut to the keys of one message. */
function seenWithin(seenBy: SeenBy, keys: readonly PrimaryKey[]): SeenBy {
  const inPart = new Set(keys.map(String));
  const cut: Record<string, PrimaryKey[]> = {};
  for (const [viewer, seen] of Object.entries(seenBy)) cut[viewer] = seen.filter((key) => inPart.has(String(key)));
  return cut;
}

const isKey = (k: unknown) => typeof k === 'string' || typeof k === 'number';

function isChange(value: unknown): value is Change {
  const v = value as Partial<Change> | null;
  const seenBy: unknown = v?.seenBy;
  return (
    typeof v?.collection === 'string' &&
    typeof v.action === 'string' &&
    ACTIONS.has(v.action) &&
    Array.isArray(v.keys) &&
    v.keys.every(isKey) &&
    (seenBy === undefined ||
      (typeof seenBy === 'object' &&
        seenBy !== null &&
        Object.values(seenBy).every((seen) => Array.isArray(seen) && seen.every(isKey))))
  );
}
