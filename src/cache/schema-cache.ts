import { restoreNameMaps } from '../../catalog/overview/name-map.js';
import type { Redis } from 'ioredis';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { RedisBus } from './redis-bus.js';
import { RedisGuard } from './redis-guard.js';

/**
 * The schema overview, built once and held until the schema changes
 * (CACHE_SCHEMA). Every schema change and /utils/cache/clear calls `invalidate()`; the
 * overview's `version` then moves, so consumers keyed by it (GraphQL schemas, permission
 * caches) know to rebuild.
 */
export interface SchemaCache {
  /** The current overview: cached, or built now (one build at a time per instance). */
  getOverview(): Promise<SchemaOverview>;
  /** Forgets the overview here and, with Redis, on every instance; the version moves. */
  invalidate(): Promise<void>;
  close(): Promise<void>;
}

export interface SchemaCacheOptions {
  /** Builds the overview stamped with `version` (catalog/overview/build.ts). */
  readonly build: (version: number) => Promise<SchemaOverview>;
  /** CACHE_SCHEMA=false: build on every call (versions still move on invalidate). */
  readonly enabled: boolean;
  /** The process's Redis bus: the overview and its version are shared by all instances through Redis. */
  readonly bus: RedisBus | undefined;
  /** CACHE_NAMESPACE: key prefix, distinct per deployment sharing one Redis. */
  readonly namespace: string;
  readonly logger: CacheLogger;
}

export interface CacheLogger {
  warn(details: Record<string, unknown>, message: string): void;
}

/** The memory cache, or the Redis one when the process has a Redis bus. */
export async function createSchemaCache(options: SchemaCacheOptions): Promise<SchemaCache> {
  if (options.bus === undefined) return new MemorySchemaCache(options);
  const cache = new RedisSchemaCache(options.bus, options);
  await cache.start();
  return cache;
}

class MemorySchemaCache implements SchemaCache {
  #version = 1;
  #current: Promise<SchemaOverview> | undefined;

  constructor(private readonly options: SchemaCacheOptions) {}

  getOverview(): Promise<SchemaOverview> {
    if (!this.options.enabled) return this.options.build(this.#version);
    if (this.#current === undefined) {
      const building = this.options.build(this.#version);
      this.#current = building;
      // A failed build is not cached: the next call tries again.
      building.catch(() => {
        if (this.#current === building) this.#current = undefined;
      });
    }
    return this.#current;
  }

  invalidate(): Promise<void> {
    this.#version += 1;
    this.#current = undefined;
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const OVERVIEW_TTL_SECONDS = 24 * 60 * 60;
// Invalidations published meanwhile by other instances were lost: an overview built without Redis is not kept long.
const LOCAL_OVERVIEW_TTL_MS = 10_000;

/**
 * Shared by every instance: the version is a Redis counter, the overview of each version is
 * stored as JSON under its own key (so a build racing an invalidation can never overwrite
 * the newer one), and invalidations are published so each instance drops its local copy.
 * When Redis fails, the instance builds for itself (each such overview with a version of its
 * own, below 0) and logs it once rather than failing requests; once Redis answers again the
 * shared overview is used again.
 */
class RedisSchemaCache implements SchemaCache {
  readonly #versionKey: string;
  readonly #channel: string;
  #current: Promise<SchemaOverview> | undefined;
  /** Moves with every invalidation seen here: a build started before one is not kept. */
  #generation = 0;
  /** The versions of overviews built without Redis: -1, -2, ... (consumers key by version). */
  #localVersion = 0;
  /** When the overview in use was built without Redis: it is kept a while, then Redis is tried again. */
  #localBuiltAt: number | undefined;
  readonly #guard: RedisGuard;
  /** The bus's command connection. */
  readonly #redis: Redis;
  /** What {@link start} registered on the bus, undone by {@link close}. */
  readonly #stops: (() => void)[] = [];

  constructor(
    private readonly bus: RedisBus,
    private readonly options: SchemaCacheOptions,
  ) {
    this.#redis = bus.commands;
    // Invalidations of other instances may have been lost meanwhile: load the shared overview again.
    this.#guard = new RedisGuard('schema cache', 'the schema is built by this instance', options.logger, () => {
      this.#forget();
    });
    this.#stops.push(bus.watch(this.#guard, { isSubscriber: true }));
    this.#versionKey = `${options.namespace}:schema:version`;
    this.#channel = `${options.namespace}:schema:invalidate`;
  }

  async start(): Promise<void> {
    // Messages sent while the subscriber was reconnecting are lost: start afresh after one.
    this.#stops.push(
      this.bus.onSubscriberReconnect(() => {
        this.#forget();
      }),
    );
    this.#stops.push(
      await this.bus.subscribe(this.#channel, () => {
        this.#forget();
      }),
    );
  }

  getOverview(): Promise<SchemaOverview> {
    if (!this.options.enabled) return this.#load();
    if (this.#localBuiltAt !== undefined && Date.now() - this.#localBuiltAt > LOCAL_OVERVIEW_TTL_MS) this.#forget();
    if (this.#current === undefined) {
      const generation = this.#generation;
      const loading = this.#load();
      this.#current = loading;
      loading.then(
        () => {
          if (this.#generation !== generation && this.#current === loading) this.#current = undefined;
        },
        () => {
          if (this.#current === loading) this.#current = undefined;
        },
      );
    }
    return this.#current;
  }

  async invalidate(): Promise<void> {
    this.#forget();
    try {
      await this.#guard.run(async () => {
        const version = await this.#redis.incr(this.#versionKey);
        await this.#redis.del(this.#overviewKey(version - 1));
        await this.#redis.publish(this.#channel, String(version));
      });
    } catch {
      // Logged by the guard: other instances do not hear of it.
    }
  }

  /** Its connections are the bus's, closed with it. */
  close(): Promise<void> {
    for (const stop of this.#stops.splice(0)) stop();
    return Promise.resolve();
  }

  #forget(): void {
    this.#generation += 1;
    this.#current = undefined;
    this.#localBuiltAt = undefined;
  }

  #overviewKey(version: number): string {
    return `${this.options.namespace}:schema:overview:${version}`;
  }

  async #load(): Promise<SchemaOverview> {
    let version: number;
    try {
      const shared = await this.#guard.run(async () => {
        await this.#redis.setnx(this.#versionKey, '1');
        const current = Number(await this.#redis.get(this.#versionKey));
        return { current, cached: this.options.enabled ? await this.#redis.get(this.#overviewKey(current)) : null };
      });
      if (shared.cached !== null) return restoreNameMaps(JSON.parse(shared.cached) as SchemaOverview);
      version = shared.current;
    } catch {
      this.#localVersion -= 1;
      this.#localBuiltAt = Date.now();
      return this.options.build(this.#localVersion);
    }
    const overview = await this.options.build(version);
    if (this.options.enabled) {
      const text = JSON.stringify(overview);
      try {
        await this.#guard.run(() => this.#redis.set(this.#overviewKey(version), text, 'EX', OVERVIEW_TTL_SECONDS));
      } catch {
        // Logged by the guard: the next instance builds it too.
      }
    }
    return overview;
  }
}
