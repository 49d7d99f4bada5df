import { Redis } from 'ioredis';
import type { SchemaOverview } from '../../catalog/overview/types.js';

/**
 * The schema overview, built once and held until the schema changes (reference/config.md,
 * CACHE_SCHEMA). Every schema change and /utils/cache/clear calls `invalidate()`; the
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
  /** With a URL the overview and its version are shared by all instances through Redis. */
  readonly redisUrl: string | undefined;
  /** CACHE_NAMESPACE: key prefix, distinct per deployment sharing one Redis. */
  readonly namespace: string;
  readonly logger: CacheLogger;
}

export interface CacheLogger {
  warn(details: Record<string, unknown>, message: string): void;
}

/** The memory cache, or the Redis one when a URL is configured. */
export async function createSchemaCache(options: SchemaCacheOptions): Promise<SchemaCache> {
  if (options.redisUrl === undefined) return new MemorySchemaCache(options);
  const cache = new RedisSchemaCache(options, options.redisUrl);
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

/**
 * Shared by every instance: the version is a Redis counter, the overview of each version is
 * stored as JSON under its own key (so a build racing an invalidation can never overwrite
 * the newer one), and invalidations are published so each instance drops its local copy.
 * When Redis fails, the instance builds for itself and logs it rather than failing requests.
 */
class RedisSchemaCache implements SchemaCache {
  readonly #redis: Redis;
  readonly #subscriber: Redis;
  readonly #versionKey: string;
  readonly #channel: string;
  #current: Promise<SchemaOverview> | undefined;
  /** Moves with every invalidation seen here: a build started before one is not kept. */
  #generation = 0;

  constructor(
    private readonly options: SchemaCacheOptions,
    url: string,
  ) {
    const connection = { lazyConnect: true, maxRetriesPerRequest: 2 };
    this.#redis = new Redis(url, connection);
    this.#subscriber = new Redis(url, connection);
    for (const client of [this.#redis, this.#subscriber]) {
      client.on('error', (error: Error) => options.logger.warn({ err: error }, 'schema cache: Redis error'));
    }
    this.#versionKey = `${options.namespace}:schema:version`;
    this.#channel = `${options.namespace}:schema:invalidate`;
  }

  async start(): Promise<void> {
    await Promise.all([this.#redis.connect(), this.#subscriber.connect()]);
    this.#subscriber.on('message', (channel: string) => {
      if (channel === this.#channel) this.#forget();
    });
    // Messages sent while the subscriber was reconnecting are lost: start afresh after one.
    this.#subscriber.on('ready', () => this.#forget());
    await this.#subscriber.subscribe(this.#channel);
  }

  getOverview(): Promise<SchemaOverview> {
    if (!this.options.enabled) return this.#load();
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
      const version = await this.#redis.incr(this.#versionKey);
      await this.#redis.del(this.#overviewKey(version - 1));
      await this.#redis.publish(this.#channel, String(version));
    } catch (error) {
      this.options.logger.warn({ err: error }, 'schema cache: invalidation not shared (Redis failed)');
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.#subscriber.quit(), this.#redis.quit()]);
  }

  #forget(): void {
    this.#generation += 1;
    this.#current = undefined;
  }

  #overviewKey(version: number): string {
    return `${this.options.namespace}:schema:overview:${version}`;
  }

  async #load(): Promise<SchemaOverview> {
    let version: number;
    try {
      await this.#redis.setnx(this.#versionKey, '1');
      version = Number(await this.#redis.get(this.#versionKey));
      const cached = this.options.enabled ? await this.#redis.get(this.#overviewKey(version)) : null;
      if (cached !== null) return JSON.parse(cached) as SchemaOverview;
    } catch (error) {
      this.options.logger.warn({ err: error }, 'schema cache: Redis unavailable, building locally');
      return this.options.build(0);
    }
    const overview = await this.options.build(version);
    if (this.options.enabled) {
      try {
        await this.#redis.set(this.#overviewKey(version), JSON.stringify(overview), 'EX', OVERVIEW_TTL_SECONDS);
      } catch (error) {
        this.options.logger.warn({ err: error }, 'schema cache: overview not stored in Redis');
      }
    }
    return overview;
  }
}
