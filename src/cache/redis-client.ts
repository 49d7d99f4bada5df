import { Redis, type RedisOptions } from 'ioredis';
import type { RedisConfig, RedisSentinelConfig } from '../config/index.js';

/** Where a client connects: the REDIS URL, or the Sentinels of REDIS_SENTINELS (`url` then only names them). */
export type RedisWhere = Pick<RedisConfig, 'url' | 'sentinel'>;

/**
 * Every Redis client of the service is made here (the connections of a process's RedisBus, the
 * health check's probe; bull's through {@link bullRedis}): to the REDIS URL, or through
 * ioredis's Sentinel support, which asks the Sentinels for the primary at each (re)connection.
 * After a failover the clients reconnect to the new primary: a connection lost (the primary
 * died, or Sentinel closed it as it demoted the primary), a primary that turned replica
 * (`READONLY` answers) makes them ask again.
 */
export function createRedis(where: RedisWhere, options: RedisOptions = {}): Redis {
  if (where.sentinel !== undefined) return new Redis({ ...sentinelOptions(where.sentinel), ...options });
  return new Redis(urlOf(where), options);
}

/** bull's `redis` argument: the URL, or the Sentinel options its three clients are made with. */
export function bullRedis(where: RedisWhere): string | RedisOptions {
  return where.sentinel === undefined ? urlOf(where) : sentinelOptions(where.sentinel);
}

function urlOf(where: RedisWhere): string {
  if (where.url === undefined) throw new Error('no Redis configured: check REDIS before making a client');
  return where.url;
}

/** The longest wait between two reconnection tries through the Sentinels. */
const SENTINEL_RETRY_MAX_MS = 250;

function sentinelOptions(sentinel: RedisSentinelConfig): RedisOptions {
  return {
    sentinels: sentinel.sentinels.map(({ host, port }) => ({ host, port })),
    name: sentinel.name,
    role: 'master',
    ...(sentinel.username === undefined ? {} : { username: sentinel.username }),
    ...(sentinel.password === undefined ? {} : { password: sentinel.password }),
    ...(sentinel.sentinelUsername === undefined ? {} : { sentinelUsername: sentinel.sentinelUsername }),
    ...(sentinel.sentinelPassword === undefined ? {} : { sentinelPassword: sentinel.sentinelPassword }),
    // Not ioredis's +switch-master subscription: fired while a reconnecting client asks a
    // Sentinel (as the primary died, most are), it ends that client for good ("Connection is
    // closed." ever after). A dead primary's connections close by themselves, and Sentinel
    // closes those of a primary it demotes.
    failoverDetector: false,
    // While the Sentinels still name the dead primary, each try is refused: tried again soon
    // (ioredis's default waits up to 2 s) so a client is back within moments of the promotion.
    retryStrategy: (times: number) => Math.min(times * 50, SENTINEL_RETRY_MAX_MS),
    sentinelRetryStrategy: (times: number) => Math.min(times * 50, SENTINEL_RETRY_MAX_MS),
    // A write that reached a primary demoted meanwhile (refused, so not done): reconnect, send it again.
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
  };
}
