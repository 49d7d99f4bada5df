import { createHash } from 'node:crypto';
import type { AuthContext } from './auth-context.js';
import { consumePoint } from './counter-store.js';

/**
 * The brute-force brakes on POST /auth/login, both counted BEFORE anything is checked, in one
 * atomic step each (as the registration limiter), so that attempts sent at once cannot all be
 * checked: no more than the allowed number ever reach the password check.
 *
 * - Per (account, IP), RATE_LIMITER_LOGIN_*: past POINTS attempts within DURATION, further
 *   attempts from that IP on that account get 429 REQUESTS_EXCEEDED until the window ends. Keying
 *   on both means an attacker slows only themselves: the same account from another IP, and other
 *   accounts from the same IP, are untouched. A success clears the count.
 * - Per IP, RATE_LIMITER_LOGIN_ADDRESS_*: the budget of one address across every account
 *   (password spraying). A success gives its attempt back, so only failures use it up.
 *
 * (Whole-account lockout is the separate settings.auth_login_attempts count, login-attempts.ts.)
 */
export async function countLoginAttempt(ctx: AuthContext, email: string, ip: string | null): Promise<void> {
  const perAccount = ctx.config.loginRateLimiter;
  if (perAccount.enabled) {
    await consumePoint(ctx.counters, limiterKey(email, ip), perAccount.points, perAccount.durationSeconds);
  }
  const perAddress = ctx.config.loginAddressRateLimiter;
  if (perAddress.enabled) {
    await consumePoint(ctx.counters, addressKey(ip), perAddress.points, perAddress.durationSeconds);
  }
}

/** A successful login: the (account, IP) count starts over, and the address gets its attempt back. */
export async function settleLoginSuccess(ctx: AuthContext, email: string, ip: string | null): Promise<void> {
  if (ctx.config.loginRateLimiter.enabled) await ctx.counters.reset(limiterKey(email, ip));
  if (ctx.config.loginAddressRateLimiter.enabled) await ctx.counters.decrement(addressKey(ip));
}

// Hashed: the store (Redis) never holds e-mail addresses.
function limiterKey(email: string, ip: string | null): string {
  const digest = createHash('sha256')
    .update(`${email.toLowerCase()}\n${ip ?? ''}`)
    .digest('base64url');
  return `login-limit:${digest}`;
}

function addressKey(ip: string | null): string {
  return `login-address-limit:${createHash('sha256')
    .update(ip ?? '')
    .digest('base64url')}`;
}
