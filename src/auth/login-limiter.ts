import { createHash } from 'node:crypto';
import { RequestsExceededError } from '../errors.js';
import type { AuthContext } from './auth-context.js';

/**
 * The brute-force brake on POST /auth/login: failed attempts are counted per (account, IP),
 * and past RATE_LIMITER_LOGIN_POINTS within RATE_LIMITER_LOGIN_DURATION further attempts
 * from that IP on that account get 429 REQUESTS_EXCEEDED until the window ends. Keying on
 * both means an attacker slows only themselves: the same account from another IP, and other
 * accounts from the same IP, are untouched. (Whole-account lockout is the separate, slower
 * settings.auth_login_attempts suspension.)
 */
export async function assertLoginAllowed(ctx: AuthContext, email: string, ip: string | null): Promise<void> {
  const { enabled, points } = ctx.config.loginRateLimiter;
  if (!enabled) return;
  const counter = await ctx.counters.get(limiterKey(email, ip));
  if (counter === undefined || counter.count < points) return;
  throw new RequestsExceededError(points, counter.resetAt ?? new Date());
}

export async function recordLimitedFailure(ctx: AuthContext, email: string, ip: string | null): Promise<void> {
  const { enabled, durationSeconds } = ctx.config.loginRateLimiter;
  if (enabled) await ctx.counters.increment(limiterKey(email, ip), durationSeconds * 1000);
}

export async function clearLoginLimit(ctx: AuthContext, email: string, ip: string | null): Promise<void> {
  if (ctx.config.loginRateLimiter.enabled) await ctx.counters.reset(limiterKey(email, ip));
}

// Hashed: the store (Redis) never holds e-mail addresses.
function limiterKey(email: string, ip: string | null): string {
  const digest = createHash('sha256')
    .update(`${email.toLowerCase()}\n${ip ?? ''}`)
    .digest('base64url');
  return `login-limit:${digest}`;
}
