import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { DataInvalidation } from './data-invalidation.js';
import { RedisGuard } from './redis-guard.js';
import type { CacheLogger } from './schema-cache.js';

/** A cached answer to a read: what a hit sends back. */
interface CachedResponse {
  readonly status: number;
  readonly contentType: string;
  /** The body as sent (JSON text). */
  readonly body: string;
  /** Epoch ms the entry expires at (the `max-age` of a hit). */
  readonly expiresAt: number;
}

/** What a lookup found, and how to store the answer computed on a miss. */
export interface CacheLookup {
  readonly hit: CachedResponse | undefined;
  /**
   * Stores the answer under the looked-up key. An answer computed while the cache was cleared
   * (a write committed meanwhile) is never served: it lands in the cleared generation. Never rejects.
   */
  store(response: Omit<CachedResponse, 'expiresAt'>): Promise<void>;
}

/**
 * The data cache: answers of reads by key, for CACHE_TTL, in
 * this process (a bounded LRU) or in Redis (shared by every instance). `clear()` drops them
 * all; with Redis it bumps a shared generation that is part of every key, so it is one
 * command and in-flight reads cannot store stale answers where they would be found.
 */
export interface DataCache {
  readonly ttlMs: number;
  lookup(key: string): Promise<CacheLookup>;
  /** Drops every entry; never rejects (a failure is logged and the cache bypassed until a clear succeeds). */
  clear(): Promise<void>;
}

export type DataCacheOptions = {
  readonly ttlMs: number;
  /** CACHE_NAMESPACE: key prefix of the Redis store. */
  readonly namespace: string;
  readonly logger: CacheLogger;
} & ({ readonly store: 'memory'; readonly maxSize: number } | { readonly store: 'redis'; readonly redis: Redis });

export function createDataCache(options: DataCacheOptions): DataCache {
  return options.store === 'memory'
    ? new MemoryDataCache(options.ttlMs, options.maxSize)
    : new RedisDataCache(options, options.redis);
}

/** The key of a read: a digest of everything its answer depends on (method, URL, caller, schema version, ...). */
export function dataCacheKey(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
}

/**
 * Collections whose writes change what callers may read: the data cache is cleared after
 * them even without CACHE_AUTO_PURGE, so no role is answered from another permission state.
 */
const ACCESS_COLLECTIONS: ReadonlySet<string> = new Set(['svc_permissions', 'svc_roles', 'svc_users']);

/**
 * Clears `cache` after the changes the write side reports (here, and with Redis pub/sub those
 * of other instances): every change (CACHE_AUTO_PURGE) except to collections of `ignore`
 * (CACHE_AUTO_PURGE_IGNORE_LIST), changes to permissions, roles and users always, and
 * /utils/cache/clear. The writer's `changed()` waits for the clear. Returns the unsubscribe.
 */
export function purgeOnChange(
  invalidation: DataInvalidation,
  cache: DataCache,
  options: { readonly autoPurge: boolean; readonly ignore: readonly string[] },
): () => void {
  const ignore = new Set(options.ignore);
  return invalidation.onAnyChange(async (collections) => {
    const isPurged = (c: string) => ACCESS_COLLECTIONS.has(c) || (options.autoPurge && !ignore.has(c));
    if (collections === undefined || collections.some(isPurged)) await cache.clear();
  });
}

const UNCACHED: CacheLookup = { hit: undefined, store: () => Promise.resolve() };

class MemoryDataCache implements DataCache {
  readonly #entries: LRUCache<string, CachedResponse>;
  /** Moves on every clear: an answer looked up before one is not stored. */
  #generation = 0;

  constructor(
    readonly ttlMs: number,
    maxSize: number,
  ) {
    this.#entries = new LRUCache<string, CachedResponse>({
      maxSize,
      sizeCalculation: (entry, key) => Buffer.byteLength(entry.body) + key.length + entry.contentType.length,
      ttl: ttlMs,
    });
  }

  lookup(key: string): Promise<CacheLookup> {
    // CACHE_TTL=0 keeps nothing (lru-cache would read a 0 ttl as "forever").
    if (this.ttlMs === 0) return Promise.resolve(UNCACHED);
    const generation = this.#generation;
    return Promise.resolve({
      hit: this.#entries.get(key),
      store: (response) => {
        if (generation === this.#generation)
          this.#entries.set(key, { ...response, expiresAt: Date.now() + this.ttlMs });
        return Promise.resolve();
      },
    });
  }

  clear(): Promise<void> {
    this.#generation += 1;
    this.#entries.clear();
    return Promise.resolve();
  }
}

// One round trip: the current generation and the entry of the key in it.
const LOOKUP_SCRIPT = `
local generation = redis.call('GET', KEYS[1]) or '0'
return {generation, redis.call('GET', ARGV[1] .. generation .. ':' .. ARGV[2])}`;

/**
 * Entries are `<prefix><generation>:<key>` with a PX expiry; entries of older generations are
 * never read again and expire on their own. Redis failures bypass the cache (logged once per
 * outage, see RedisGuard): a read is answered from the database rather than failed.
 */
class RedisDataCache implements DataCache {
  readonly ttlMs: number;
  readonly #generationKey: string;
  readonly #entryPrefix: string;
  /** A clear failed: nothing is read from or stored in Redis until one succeeds. */
  #isClearPending = false;
  readonly #guard: RedisGuard;

  constructor(
    options: DataCacheOptions,
    private readonly redis: Redis,
  ) {
    this.#guard = new RedisGuard('data cache', 'reads are not cached', options.logger);
    this.#guard.watch(redis);
    this.ttlMs = options.ttlMs;
    this.#generationKey = `${options.namespace}:data:generation`;
    this.#entryPrefix = `${options.namespace}:data:entry:`;
  }

  async lookup(key: string): Promise<CacheLookup> {
    if (this.ttlMs === 0) return UNCACHED;
    try {
      if (this.#isClearPending) await this.#clear();
      const [generation, value] = (await this.#guard.run(() =>
        this.redis.eval(LOOKUP_SCRIPT, 1, this.#generationKey, this.#entryPrefix, key),
      )) as [string, string | null];
      return {
        hit: value === null ? undefined : parseEntry(value),
        store: (response) => this.#store(`${generation}:${key}`, response),
      };
    } catch {
      return UNCACHED;
    }
  }

  async clear(): Promise<void> {
    try {
      await this.#clear();
    } catch {
      // Logged by the guard. The clear may not have happened: bypassed until one has.
      this.#isClearPending = true;
    }
  }

  async #clear(): Promise<void> {
    await this.#guard.run(() => this.redis.incr(this.#generationKey));
    this.#isClearPending = false;
  }

  async #store(entryKey: string, response: Omit<CachedResponse, 'expiresAt'>): Promise<void> {
    try {
      const entry = formatEntry({ ...response, expiresAt: Date.now() + this.ttlMs });
      await this.#guard.run(() => this.redis.set(this.#entryPrefix + entryKey, entry, 'PX', this.ttlMs));
    } catch {
      // Logged by the guard: the answer is simply not cached.
    }
  }
}

// `<status>\n<expiresAt>\n<content type>\n<body>`: the body is stored as is, not escaped again.
function formatEntry(entry: CachedResponse): string {
  return `${entry.status}\n${entry.expiresAt}\n${entry.contentType}\n${entry.body}`;
}

function parseEntry(value: string): CachedResponse | undefined {
  const [status, expiresAt, contentType] = value.split('\n', 3);
  if (status === undefined || expiresAt === undefined || contentType === undefined) return undefined;
  const bodyStart = status.length + expiresAt.length + contentType.length + 3;
  return { status: Number(status), expiresAt: Number(expiresAt), contentType, body: value.slice(bodyStart) };
}
