import { ConfigError, type EnvReader } from './env-reader.js';

/** Redis behind Sentinels (REDIS_SENTINELS): clients ask them where the primary is, and again after a failover. */
export interface RedisSentinelConfig {
  readonly sentinels: readonly { readonly host: string; readonly port: number }[];
  /** The primary's name in the Sentinels' configuration (REDIS_NAME, or REDIS_SENTINEL_NAME). */
  readonly name: string;
  /** The primary's and replicas' credentials (REDIS_USERNAME, REDIS_PASSWORD). */
  readonly username: string | undefined;
  readonly password: string | undefined;
  /** The Sentinels' own (REDIS_SENTINEL_USERNAME, REDIS_SENTINEL_PASSWORD). */
  readonly sentinelUsername: string | undefined;
  readonly sentinelPassword: string | undefined;
}

export interface RedisConfig {
  /**
   * Where Redis is, undefined meaning no Redis (memory caches, in-process jobs): a redis://
   * URL, or with Sentinels a `redis-sentinel://host:port,…/name` naming them (for messages
   * only: every client is made by cache/redis-client.ts from `sentinel`).
   */
  readonly url: string | undefined;
  /** Set with REDIS_SENTINELS. */
  readonly sentinel?: RedisSentinelConfig | undefined;
  /** REDIS_COMMAND_TIMEOUT: a command unanswered this long fails (and what needed it degrades). */
  readonly commandTimeoutMs: number;
}

/**
 * REDIS (a URL) or REDIS_HOST/PORT/USERNAME/PASSWORD, or REDIS_SENTINELS with REDIS_NAME;
 * REDIS_ENABLED=false switches it off.
 */
export function readRedisConfig(env: EnvReader): RedisConfig {
  const commandTimeoutMs = env.duration('REDIS_COMMAND_TIMEOUT', 500);
  if (commandTimeoutMs <= 0) throw new ConfigError('REDIS_COMMAND_TIMEOUT', 'must be longer than 0ms');
  const sentinel = readSentinels(env);
  if (sentinel !== undefined) {
    const where = sentinel.sentinels.map(({ host, port }) => `${host}:${port}`).join(',');
    return { url: `redis-sentinel://${where}/${sentinel.name}`, sentinel, commandTimeoutMs };
  }
  return { url: readRedisUrl(env), commandTimeoutMs };
}

function isSwitchedOff(env: EnvReader): boolean {
  return env.raw('REDIS_ENABLED') !== undefined && !env.bool('REDIS_ENABLED', true);
}

function readRedisUrl(env: EnvReader): string | undefined {
  if (isSwitchedOff(env)) return undefined;
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

/**
 * REDIS_SENTINELS, as Directus 10 takes it (`json:[{"host":…,"port":…}]`, passed to ioredis) or
 * as a comma list of `host:port` (port 26379 when left out); the primary's name is REDIS_NAME
 * (Directus's, ioredis's `name`) or REDIS_SENTINEL_NAME.
 */
function readSentinels(env: EnvReader): RedisSentinelConfig | undefined {
  const value = env.raw('REDIS_SENTINELS');
  if (value === undefined || isSwitchedOff(env)) return undefined;
  const sentinels = value.startsWith('json:')
    ? sentinelsFromJson(value.slice('json:'.length))
    : sentinelsFromList(value);
  if (sentinels.length === 0) throw new ConfigError('REDIS_SENTINELS', 'names no Sentinel');
  if (env.raw('REDIS') !== undefined || env.raw('REDIS_HOST') !== undefined) {
    throw new ConfigError(
      'REDIS_SENTINELS',
      'is set with REDIS or REDIS_HOST: the Sentinels say where the primary is, so leave those unset',
    );
  }
  const name = env.string('REDIS_NAME');
  const alias = env.string('REDIS_SENTINEL_NAME');
  if (name !== undefined && alias !== undefined && name !== alias) {
    throw new ConfigError('REDIS_SENTINEL_NAME', `differs from REDIS_NAME ("${alias}", "${name}"): set one of them`);
  }
  const primary = name ?? alias;
  if (primary === undefined) {
    throw new ConfigError(
      'REDIS_NAME',
      "is needed with REDIS_SENTINELS: the primary's name in the Sentinels' configuration (`sentinel monitor <name> …`), for example mymaster",
    );
  }
  return {
    sentinels,
    name: primary,
    username: env.string('REDIS_USERNAME'),
    password: env.string('REDIS_PASSWORD'),
    sentinelUsername: env.string('REDIS_SENTINEL_USERNAME'),
    sentinelPassword: env.string('REDIS_SENTINEL_PASSWORD'),
  };
}

const SENTINEL_PORT = 26379;

function sentinelsFromList(value: string): { host: string; port: number }[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((entry) => {
      const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry);
      if (match === null) throw new ConfigError('REDIS_SENTINELS', `must be host:port entries, got "${entry}"`);
      const [, host = '', port] = match;
      return { host: host.replace(/^\[|\]$/g, ''), port: sentinelPort(port, entry) };
    });
}

function sentinelsFromJson(text: string): { host: string; port: number }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError('REDIS_SENTINELS', 'after `json:` must be a JSON array of {"host","port"}');
  }
  if (!Array.isArray(parsed)) throw new ConfigError('REDIS_SENTINELS', 'after `json:` must be a JSON array');
  return parsed.map((entry: unknown) => {
    const { host, port } = (entry ?? {}) as { host?: unknown; port?: unknown };
    if (typeof host !== 'string' || host === '') {
      throw new ConfigError('REDIS_SENTINELS', `needs a "host" in every entry, got ${JSON.stringify(entry)}`);
    }
    if (port !== undefined && typeof port !== 'number' && typeof port !== 'string') {
      throw new ConfigError('REDIS_SENTINELS', `has a port that is not a number in ${JSON.stringify(entry)}`);
    }
    return { host, port: sentinelPort(port === undefined ? undefined : String(port), JSON.stringify(entry)) };
  });
}

function sentinelPort(text: string | undefined, entry: string): number {
  if (text === undefined) return SENTINEL_PORT;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ConfigError('REDIS_SENTINELS', `has a port out of 1-65535 in "${entry}"`);
  }
  return port;
}
