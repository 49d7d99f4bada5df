import type { AuthContext } from './auth-context.js';
import { consumePoint } from './counter-store.js';

/**
 * POST /users/register attempts per IP,
 * counted in the login protections' store (memory, or Redis shared by every instance). Past
 * POINTS within DURATION seconds → 429 REQUESTS_EXCEEDED (Retry-After) until the window ends.
 */
export async function countRegistrationAttempt(
  ctx: Pick<AuthContext, 'config' | 'counters'>,
  ip: string | null,
): Promise<void> {
  const { enabled, points, durationSeconds } = ctx.config.registrationRateLimiter;
  if (enabled) await consumePoint(ctx.counters, `register-limit:${ip ?? ''}`, points, durationSeconds);
}
