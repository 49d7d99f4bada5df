import type { Redis } from 'ioredis';
import type { RedisGuard } from '../cache/redis-guard.js';
import { RequestsExceededError, ServiceUnavailableError } from '../errors.js';

/** A counter's value and when its window ends (null: it never expires on its own). */
export interface Counter {
  readonly count: number;
  readonly resetAt: Date | null;
}

/**
 * Counters shared by the login protections: consecutive failures per user and failed
 * attempts per (account, IP). In memory for one instance, in Redis for several.
 */
export interface CounterStore {
  /** Adds one; the first hit of a window starts it (`windowMs` null: no expiry). */
  increment(key: string, windowMs: number | null): Promise<Counter>;
  /** The current value, or undefined when the key is unset or its window has ended. */
  get(key: string): Promise<Counter | undefined>;
  /** Takes one back from a live counter (never below 0, never starting one, its window kept). */
  decrement(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

/**
 * One hit of `key` in a window of `durationSeconds` started by its first hit; past `points`
 * hits → 429 REQUESTS_EXCEEDED (Retry-After) until the window ends. The rate limiters' step.
 */
export async function consumePoint(
  counters: CounterStore,
  key: string,
  points: number,
  durationSeconds: number,
): Promise<void> {
  const { count, resetAt } = await counters.increment(key, durationSeconds * 1000);
  if (count > points) throw new RequestsExceededError(points, resetAt ?? new Date(Date.now() + durationSeconds * 1000));
}

// Expired windows are swept every so many increments, so abandoned keys cannot pile up.
const SWEEP_EVERY = 1000;

/** The single-instance store. */
export class MemoryCounterStore implements CounterStore {
  readonly #counters = new Map<string, { count: number; resetAt: number | null }>();
  #incrementsSinceSweep = 0;

  increment(key: string, windowMs: number | null): Promise<Counter> {
    if (++this.#incrementsSinceSweep >= SWEEP_EVERY) this.#sweep();
    const now = Date.now();
    const current = this.#live(key, now);
    const next = current
      ? { count: current.count + 1, resetAt: current.resetAt }
      : { count: 1, resetAt: windowMs === null ? null : now + windowMs };
    this.#counters.set(key, next);
    return Promise.resolve(toCounter(next));
  }

  get(key: string): Promise<Counter | undefined> {
    const current = this.#live(key, Date.now());
    return Promise.resolve(current === undefined ? undefined : toCounter(current));
  }

  decrement(key: string): Promise<void> {
    const current = this.#live(key, Date.now());
    if (current !== undefined && current.count > 0) this.#counters.set(key, { ...current, count: current.count - 1 });
    return Promise.resolve();
  }

  reset(key: string): Promise<void> {
    this.#counters.delete(key);
    return Promise.resolve();
  }

  #live(key: string, now: number): { count: number; resetAt: number | null } | undefined {
    const current = this.#counters.get(key);
    if (current?.resetAt != null && current.resetAt <= now) {
      this.#counters.delete(key);
      return undefined;
    }
    return current;
  }

  #sweep(): void {
    this.#incrementsSinceSweep = 0;
    const now = Date.now();
    for (const [key, value] of this.#counters) {
      if (value.resetAt !== null && value.resetAt <= now) this.#counters.delete(key);
    }
  }
}

function toCounter(value: { count: number; resetAt: number | null }): Counter {
  return { count: value.count, resetAt: value.resetAt === null ? null : new Date(value.resetAt) };
}

// One round trip, atomic: the first hit of a window sets its expiry.
const INCREMENT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 and tonumber(ARGV[1]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}`;

// Atomic too: a key whose window ended is not brought back (DECR alone would, without expiry).
const DECREMENT_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]))
if count ~= nil and count > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

/**
 * The store shared by every instance. Redis failures are SERVICE_UNAVAILABLE
 * (the rate-limiter store is down): a login is never let through unchecked.
 */
export class RedisCounterStore implements CounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async increment(key: string, windowMs: number | null): Promise<Counter> {
    const reply = await this.#call(() => this.redis.eval(INCREMENT_SCRIPT, 1, this.prefix + key, windowMs ?? 0));
    const [count, ttl] = reply as [number, number];
    return { count, resetAt: fromTtl(ttl) };
  }

  async get(key: string): Promise<Counter | undefined> {
    const [value, ttl] = await this.#call(async () => {
      const replies = await this.redis
        .multi()
        .get(this.prefix + key)
        .pttl(this.prefix + key)
        .exec();
      const failed = replies?.find(([error]) => error !== null)?.[0];
      if (replies == null || failed != null) throw failed ?? new Error('transaction aborted');
      return replies.map(([, result]) => result) as [string | null, number];
    });
    return value === null ? undefined : { count: Number(value), resetAt: fromTtl(ttl) };
  }

  async decrement(key: string): Promise<void> {
    await this.#call(() => this.redis.eval(DECREMENT_SCRIPT, 1, this.prefix + key));
  }

  async reset(key: string): Promise<void> {
    await this.#call(() => this.redis.del(this.prefix + key));
  }

  async #call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      throw new ServiceUnavailableError('rate-limiter', (error as Error).message.replace(/\.$/, ''));
    }
  }
}

/** What a Redis store does while Redis fails (RATE_LIMITER_REDIS_FALLBACK). */
export type CounterFallback = 'memory' | 'open' | 'closed';

/**
 * A Redis store that degrades while Redis fails, each failure bounded by REDIS_COMMAND_TIMEOUT
 * and then skipped for a while (`guard`): `memory` counts in this process (the limits hold
 * per instance), `open` counts nothing (everything passes), `closed` is 503
 * SERVICE_UNAVAILABLE. Redis is used again as soon as it answers.
 */
export class FallbackCounterStore implements CounterStore {
  readonly #memory = new MemoryCounterStore();

  constructor(
    private readonly redis: CounterStore,
    private readonly guard: RedisGuard,
    private readonly fallback: CounterFallback,
  ) {}

  increment(key: string, windowMs: number | null): Promise<Counter> {
    return this.#call((store) => store.increment(key, windowMs), { count: 0, resetAt: null });
  }

  get(key: string): Promise<Counter | undefined> {
    return this.#call((store) => store.get(key), undefined);
  }

  decrement(key: string): Promise<void> {
    return this.#call((store) => store.decrement(key), undefined);
  }

  reset(key: string): Promise<void> {
    return this.#call((store) => store.reset(key), undefined);
  }

  async #call<T>(operation: (store: CounterStore) => Promise<T>, open: T): Promise<T> {
    try {
      return await this.guard.run(() => operation(this.redis));
    } catch (error) {
      switch (this.fallback) {
        case 'memory':
          return operation(this.#memory);
        case 'open':
          return open;
        case 'closed':
          throw error instanceof ServiceUnavailableError
            ? error
            : new ServiceUnavailableError('rate-limiter', 'Redis is unavailable');
      }
    }
  }
}

// PTTL: -1 = no expiry.
function fromTtl(ttl: number): Date | null {
  return ttl < 0 ? null : new Date(Date.now() + ttl);
}
