import type { RequestHandler } from 'express';
import { consumePoint, type CounterStore } from '../auth/counter-store.js';
import type { Config } from '../config/index.js';
import { clientIp } from './client-ip.js';

/**
 * The general rate limiters, in the order Directus runs
 * them: RATE_LIMITER_GLOBAL_* counts every request together, RATE_LIMITER_* each client IP
 * (client-ip.ts: IP_TRUST_PROXY / IP_CUSTOM_HEADER). A window starts at its first request and lasts its
 * duration; past the points, 429 REQUESTS_EXCEEDED with `Retry-After` until it ends. None is
 * installed when switched off.
 */
export function rateLimiters(config: Config, counters: CounterStore): RequestHandler[] {
  const consume = rateLimitPoint(config, counters);
  if (consume === undefined) return [];
  return [
    async (req, _res, next) => {
      await consume(clientIp(config, req));
      next();
    },
  ];
}

/**
 * One point of the general limiters for a request, or a WebSocket message, from `ip`: the
 * global window first, then the IP's; REQUESTS_EXCEEDED past either. Undefined when both are off.
 */
export function rateLimitPoint(
  config: Config,
  counters: CounterStore,
): ((ip: string | null) => Promise<void>) | undefined {
  const { rateLimiter } = config;
  const { global } = rateLimiter;
  if (!global.enabled && !rateLimiter.enabled) return undefined;
  return async (ip) => {
    if (global.enabled) await consumePoint(counters, 'rate-limit:global', global.points, global.durationSeconds);
    if (rateLimiter.enabled)
      await consumePoint(counters, `rate-limit:ip:${ip ?? ''}`, rateLimiter.points, rateLimiter.durationSeconds);
  };
}
