import { randomUUID } from 'node:crypto';
import type { RedisBus } from './redis-bus.js';
import { RedisGuard } from './redis-guard.js';
import type { CacheLogger } from './schema-cache.js';

/**
 * Tells what is remembered from rows (the static tokens' users, ...) that those rows changed:
 * after a commit, the writer names the collections it touched; listeners of those collections
 * run at once in this process and, with Redis, on every other instance when the message
 * arrives (Redis pub/sub, as the schema cache's invalidations).
 */
export interface DataInvalidation {
  /**
   * The rows of `collections` changed (undefined: anything may have, /utils/cache/clear):
   * their listeners run here and on every other instance.
   */
  changed(collections?: readonly string[]): Promise<void>;
  /**
   * Runs `listener` whenever one of `collections` changes, here or elsewhere, and after the
   * Redis subscription reconnects (messages sent meanwhile are lost). Returns the unsubscribe.
   */
  onChange(collections: readonly string[], listener: () => void): () => void;
  /**
   * Runs `listener` after every change, with the collections named (undefined: anything may
   * have changed). `changed()` waits for it here, so a listener that clears a cache has
   * cleared it before the writer answers. Returns the unsubscribe.
   */
  onAnyChange(listener: ChangeListener): () => void;
  close(): Promise<void>;
}

type ChangeListener = (collections: readonly string[] | undefined) => void | Promise<void>;

export interface DataInvalidationOptions {
  /** The process's Redis bus: changes reach every instance sharing the Redis and the namespace. */
  readonly bus: RedisBus | undefined;
  readonly namespace: string;
  readonly logger: CacheLogger;
}

export async function createDataInvalidation(options: DataInvalidationOptions): Promise<DataInvalidation> {
  if (options.bus === undefined) return new Listeners();
  const shared = new RedisInvalidation(options.bus, options);
  await shared.start();
  return shared;
}

interface Subscription {
  /** Undefined: every change. */
  readonly collections: ReadonlySet<string> | undefined;
  readonly listener: ChangeListener;
}

/** This process's listeners: the whole of it without Redis. */
class Listeners implements DataInvalidation {
  #subscriptions: Subscription[] = [];

  changed(collections?: readonly string[]): Promise<void> {
    return this.notify(collections);
  }

  onChange(collections: readonly string[], listener: () => void): () => void {
    return this.#subscribe({ collections: new Set(collections), listener });
  }

  onAnyChange(listener: ChangeListener): () => void {
    return this.#subscribe({ collections: undefined, listener });
  }

  /** Runs the listeners of these collections (all of them when `collections` is undefined) and waits for them. */
  async notify(collections: readonly string[] | undefined): Promise<void> {
    const running: Promise<void>[] = [];
    for (const { collections: watched, listener } of this.#subscriptions) {
      if (collections === undefined || watched === undefined || collections.some((c) => watched.has(c)))
        running.push(Promise.resolve(listener(collections)));
    }
    await Promise.all(running);
  }

  #subscribe(subscription: Subscription): () => void {
    this.#subscriptions.push(subscription);
    return () => {
      this.#subscriptions = this.#subscriptions.filter((s) => s !== subscription);
    };
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

class RedisInvalidation extends Listeners {
  readonly #channel: string;
  /** Messages of this instance come back through the subscription: they were handled already. */
  readonly #origin = randomUUID();
  readonly #guard: RedisGuard;
  /** What {@link start} registered on the bus, undone by {@link close}. */
  readonly #stops: (() => void)[] = [];

  constructor(
    private readonly bus: RedisBus,
    options: DataInvalidationOptions,
  ) {
    super();
    // Messages of other instances may have been lost meanwhile: everything may have changed.
    this.#guard = new RedisGuard(
      'data invalidation',
      'changes are not shared with other instances',
      options.logger,
      () => void this.notify(undefined),
    );
    this.#stops.push(bus.watch(this.#guard, { isSubscriber: true }));
    this.#channel = `${options.namespace}:data:changed`;
  }

  async start(): Promise<void> {
    this.#stops.push(this.bus.onSubscriberReconnect(() => void this.notify(undefined)));
    this.#stops.push(
      await this.bus.subscribe(this.#channel, (message) => {
        this.#receive(message);
      }),
    );
  }

  override async changed(collections?: readonly string[]): Promise<void> {
    await this.notify(collections);
    const message = JSON.stringify({ origin: this.#origin, collections: collections ?? null });
    try {
      await this.#guard.run(() => this.bus.commands.publish(this.#channel, message));
    } catch {
      // Logged by the guard.
    }
  }

  /** Its connections are the bus's, closed with it. */
  override close(): Promise<void> {
    for (const stop of this.#stops.splice(0)) stop();
    return Promise.resolve();
  }

  #receive(message: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    const { origin, collections } = (parsed ?? {}) as { origin?: unknown; collections?: unknown };
    if (origin === this.#origin) return;
    // Anything unreadable may have named any collection.
    void this.notify(Array.isArray(collections) ? collections.map(String) : undefined);
  }
}
