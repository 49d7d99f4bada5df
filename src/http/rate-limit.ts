import type { Request, RequestHandler } from 'express';
import { consumePoint, type CounterStore } from '../auth/counter-store.js';
import type { Config } from '../config/index.js';
import { clientIp } from './client-ip.js';

/**
 * The general rate limiters (reference/auth.md, Rate limiting), in the order Directus runs
 * them: RATE_LIMITER_GLOBAL_* counts every request together, RATE_LIMITER_* each client IP
 * (client-ip.ts: IP_TRUST_PROXY / IP_CUSTOM_HEADER). A window starts at its first request and lasts its
 * duration; past the points, 429 REQUESTS_EXCEEDED with `Retry-After` until it ends. None is
 * installed when switched off.
 */
export function rateLimiters(config: Config, counters: CounterStore): RequestHandler[] {
  const { rateLimiter } = config;
  const limiters: RequestHandler[] = [];
  if (rateLimiter.global.enabled) {
    const { points, durationSeconds } = rateLimiter.global;
    limiters.push(limiter(counters, points, durationSeconds, () => 'rate-limit:global'));
  }
  if (rateLimiter.enabled) {
    const { points, durationSeconds } = rateLimiter;
    limiters.push(limiter(counters, points, durationSeconds, (req) => `rate-limit:ip:${clientIp(config, req) ?? ''}`));
  }
  return limiters;
}

function limiter(
  counters: CounterStore,
  points: number,
  durationSeconds: number,
  keyOf: (req: Request) => string,
): RequestHandler {
  return async (req, _res, next) => {
    await consumePoint(counters, keyOf(req), points, durationSeconds);
    next();
  };
}
