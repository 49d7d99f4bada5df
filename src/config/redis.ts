import { ConfigError, type EnvReader } from './env-reader.js';

export interface RedisConfig {
  /** A redis:// URL; undefined means no Redis (memory caches, in-process jobs). */
  readonly url: string | undefined;
  /** REDIS_COMMAND_TIMEOUT: a command unanswered this long fails (and what needed it degrades). */
  readonly commandTimeoutMs: number;
}

/** REDIS (a URL) or REDIS_HOST/PORT/USERNAME/PASSWORD; REDIS_ENABLED=false switches it off. */
export function readRedisConfig(env: EnvReader): RedisConfig {
  const commandTimeoutMs = env.duration('REDIS_COMMAND_TIMEOUT', 500);
  if (commandTimeoutMs <= 0) throw new ConfigError('REDIS_COMMAND_TIMEOUT', 'must be longer than 0ms');
  return { url: readRedisUrl(env), commandTimeoutMs };
}

function readRedisUrl(env: EnvReader): string | undefined {
  if (env.raw('REDIS_ENABLED') !== undefined && !env.bool('REDIS_ENABLED', true)) return undefined;
  const url = env.string('REDIS');
  if (url !== undefined) {
    if (!/^rediss?:\/\//.test(url)) throw new ConfigError('REDIS', `must be a redis:// URL, got "${url}"`);
    return url;
  }
  const host = env.string('REDIS_HOST');
  if (host === undefined) return undefined;
  const port = env.int('REDIS_PORT', 6379, { min: 1, max: 65535 });
  const user = env.string('REDIS_USERNAME') ?? '';
  const password = env.string('REDIS_PASSWORD');
  const auth = password === undefined ? '' : `${encodeURIComponent(user)}:${encodeURIComponent(password)}@`;
  return `redis://${auth}${host}:${port}`;
}
