import type { EnvReader } from './env-reader.js';

interface WindowConfig {
  readonly enabled: boolean;
  readonly points: number;
  readonly durationSeconds: number;
}

export interface RateLimitsConfig {
  /**
   * The general rate limiter: RATE_LIMITER_* per client IP,
   * RATE_LIMITER_GLOBAL_* for all requests together; counters in RATE_LIMITER_STORE.
   */
  readonly rateLimiter: WindowConfig & {
    readonly store: 'memory' | 'redis';
    /**
     * RATE_LIMITER_REDIS_FALLBACK, while the Redis store fails: `memory` counts in this process,
     * `open` lets requests through uncounted, `closed` answers 503 SERVICE_UNAVAILABLE.
     */
    readonly redisFallback: 'memory' | 'open' | 'closed';
    readonly global: WindowConfig;
  };
  /**
   * Failed logins allowed per (account, IP) within the duration before 429 (an addition of
   * ours, named like RATE_LIMITER_REGISTRATION_*). Counters live in Redis when REDIS is set.
   */
  readonly loginRateLimiter: WindowConfig;
  /**
   * RATE_LIMITER_LOGIN_ADDRESS_*: failed logins allowed per IP, whatever the accounts, within the
   * duration before 429 (password spraying: one address trying one password on many accounts).
   * On by default, unlike RATE_LIMITER_ENABLED; successful logins do not use it up.
   */
  readonly loginAddressRateLimiter: WindowConfig;
  /** POST /users/register attempts allowed per IP within the duration before 429. */
  readonly registrationRateLimiter: WindowConfig;
}

/** RATE_LIMITER_*: the general, global, login and registration limiters. */
export function readRateLimitsConfig(env: EnvReader): RateLimitsConfig {
  return {
    rateLimiter: {
      enabled: env.bool('RATE_LIMITER_ENABLED', false),
      points: env.int('RATE_LIMITER_POINTS', 50, { min: 1 }),
      durationSeconds: env.int('RATE_LIMITER_DURATION', 1, { min: 1 }),
      store: env.oneOf('RATE_LIMITER_STORE', ['memory', 'redis'] as const, 'memory'),
      redisFallback: env.oneOf('RATE_LIMITER_REDIS_FALLBACK', ['memory', 'open', 'closed'] as const, 'memory'),
      global: {
        enabled: env.bool('RATE_LIMITER_GLOBAL_ENABLED', false),
        points: env.int('RATE_LIMITER_GLOBAL_POINTS', 1000, { min: 1 }),
        durationSeconds: env.int('RATE_LIMITER_GLOBAL_DURATION', 1, { min: 1 }),
      },
    },
    loginRateLimiter: {
      enabled: env.bool('RATE_LIMITER_LOGIN_ENABLED', true),
      points: env.int('RATE_LIMITER_LOGIN_POINTS', 10, { min: 1 }),
      durationSeconds: env.int('RATE_LIMITER_LOGIN_DURATION', 900, { min: 1 }),
    },
    loginAddressRateLimiter: {
      enabled: env.bool('RATE_LIMITER_LOGIN_ADDRESS_ENABLED', true),
      points: env.int('RATE_LIMITER_LOGIN_ADDRESS_POINTS', 50, { min: 1 }),
      durationSeconds: env.int('RATE_LIMITER_LOGIN_ADDRESS_DURATION', 900, { min: 1 }),
    },
    registrationRateLimiter: {
      enabled: env.bool('RATE_LIMITER_REGISTRATION_ENABLED', true),
      points: env.int('RATE_LIMITER_REGISTRATION_POINTS', 5, { min: 1 }),
      durationSeconds: env.int('RATE_LIMITER_REGISTRATION_DURATION', 60, { min: 1 }),
    },
  };
}
