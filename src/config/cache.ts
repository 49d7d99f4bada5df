import { readFalseOrString, type EnvReader } from './env-reader.js';

export interface CacheConfig {
  readonly enabled: boolean;
  readonly store: 'memory' | 'redis';
  readonly ttlMs: number;
  readonly namespace: string;
  readonly autoPurge: boolean;
  /** CACHE_AUTO_PURGE_IGNORE_LIST: writes to these collections leave the data cache alone. */
  readonly autoPurgeIgnoreList: readonly string[];
  /** CACHE_CONTROL_S_MAXAGE: `s-maxage` of cacheable responses; true = the TTL, false = none. */
  readonly controlSMaxAge: number | boolean;
  /** CACHE_SKIP_ALLOWED: a request's `Cache-Control: no-store` bypasses the data cache. */
  readonly skipAllowed: boolean;
  /** CACHE_VALUE_MAX_SIZE: bigger response bodies are not cached (undefined: no limit). */
  readonly valueMaxSize: number | undefined;
  /** CACHE_MEMORY_MAX_SIZE (ours): total body bytes the memory store keeps, least recently used out first. */
  readonly memoryMaxSize: number;
  readonly schema: boolean;
  /** CACHE_PERMISSIONS: compiled permission rules kept per (role, schema version). */
  readonly permissions: boolean;
}

/** CACHE_*: the data cache and the schema and permission caches. */
export function readCacheConfig(env: EnvReader): CacheConfig {
  return {
    enabled: env.bool('CACHE_ENABLED', false),
    store: env.oneOf('CACHE_STORE', ['memory', 'redis'] as const, 'memory'),
    ttlMs: env.duration('CACHE_TTL', '5m'),
    namespace: env.string('CACHE_NAMESPACE', 'system-cache'),
    autoPurge: env.bool('CACHE_AUTO_PURGE', false),
    autoPurgeIgnoreList: env.list('CACHE_AUTO_PURGE_IGNORE_LIST', ['svc_activity', 'svc_presets']),
    controlSMaxAge: readSMaxAge(env),
    skipAllowed: env.bool('CACHE_SKIP_ALLOWED', false),
    valueMaxSize:
      readFalseOrString(env, 'CACHE_VALUE_MAX_SIZE') === false ? undefined : env.size('CACHE_VALUE_MAX_SIZE', '0'),
    memoryMaxSize: env.size('CACHE_MEMORY_MAX_SIZE', '64mb'),
    schema: env.bool('CACHE_SCHEMA', true),
    permissions: env.bool('CACHE_PERMISSIONS', true),
  };
}

/** CACHE_CONTROL_S_MAXAGE: seconds, or true (the TTL) / false (left out). */
function readSMaxAge(env: EnvReader): number | boolean {
  const value = env.raw('CACHE_CONTROL_S_MAXAGE');
  if (value === 'true' || value === 'false') return value === 'true';
  return env.int('CACHE_CONTROL_S_MAXAGE', 0, { min: 0 });
}
