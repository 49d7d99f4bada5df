import type { Knex } from 'knex';
import { assertAdminRemains } from '../commands/user-rules.js';
import { SessionModel, SettingsModel, UserModel } from '../db/models/system-models.js';
import { InvalidCredentialsError, RequestsExceededError, UnprocessableEntityError } from '../errors.js';
import type { AuthContext } from './auth-context.js';
import type { AuthUser } from './auth-user.js';

// svc_settings.auth_login_attempts default.
const DEFAULT_LOGIN_ATTEMPTS = 25;

const failuresKey = (userId: string) => `login-failures:${userId}`;
const holdKey = (userId: string) => `login-hold:${userId}`;

/** A password check a user's lockout allowed: its place in the run of consecutive failures. */
export interface ClaimedAttempt {
  readonly allowed: number | null;
  readonly count: number;
}

/**
 * The lockout of `settings.auth_login_attempts` (null: none), counted BEFORE the password is
 * checked, atomically (the counter store's increment), so a burst sent at once gets no more
 * checks than allowed. An attempt past the allowed count is not checked: the user is locked
 * (below) and the attempt is 401 INVALID_CREDENTIALS, as for any suspended user. A user held
 * (the last administrator, below) gets 429 REQUESTS_EXCEEDED until the hold ends.
 */
export async function claimLoginAttempt(ctx: AuthContext, user: AuthUser): Promise<ClaimedAttempt> {
  const allowed = await readAllowedAttempts(ctx.db);
  const held = await ctx.counters.get(holdKey(user.id));
  if (held !== undefined) throw new RequestsExceededError(allowed ?? 0, held.resetAt ?? new Date());
  if (allowed === null) return { allowed, count: 0 };
  const { count } = await ctx.counters.increment(failuresKey(user.id), null);
  // A concurrent attempt may have held the account and restarted the count between the look
  // above and this increment (lockUser sets the hold first): asked again, the attempt is refused
  // and its count taken back, so no password past the allowed ones is checked.
  const heldMeanwhile = await ctx.counters.get(holdKey(user.id));
  if (heldMeanwhile !== undefined) {
    await ctx.counters.decrement(failuresKey(user.id));
    throw new RequestsExceededError(allowed, heldMeanwhile.resetAt ?? new Date());
  }
  if (count > allowed) {
    const hold = await lockUser(ctx, user, allowed, count);
    throw hold === undefined ? new InvalidCredentialsError() : new RequestsExceededError(allowed, hold);
  }
  return { allowed, count };
}

/**
 * A checked attempt failed (wrong password or one-time password): at `auth_login_attempts`
 * consecutive failures the user is locked.
 */
export async function recordLoginFailure(ctx: AuthContext, user: AuthUser, attempt: ClaimedAttempt): Promise<void> {
  if (attempt.allowed !== null && attempt.count >= attempt.allowed) {
    await lockUser(ctx, user, attempt.allowed, attempt.count);
  }
}

/** A successful login ends the run of consecutive failures. */
export function resetLoginFailures(ctx: AuthContext, userId: string): Promise<void> {
  return ctx.counters.reset(failuresKey(userId));
}

/**
 * Locks a user out after too many failures: suspended (status `suspended`, no session left), as
 * Directus does. But the last active administrator is never suspended by strangers' attempts
 * (only the command line could bring them back): the account is held instead, every login of it
 * answered 429 for RATE_LIMITER_LOGIN_DURATION, after which the count starts over.
 */
async function lockUser(
  ctx: AuthContext,
  user: AuthUser,
  allowed: number,
  attempts: number,
): Promise<Date | undefined> {
  let held = false;
  try {
    await ctx.db.transaction(async (trx) => {
      const suspended = await UserModel.query(trx)
        .findById(user.id)
        .where('status', 'active')
        .patch({ status: 'suspended' });
      if (suspended === 0) return;
      // Refused, and rolled back, when no active administrator would be left.
      await assertAdminRemains(trx);
      // As any suspension (commands/user-rules.ts): the user keeps no session.
      await SessionModel.query(trx).where('user', user.id).delete();
      ctx.logger.warn({ user: user.id, attempts }, 'user suspended after failed logins');
    });
  } catch (error) {
    if (!(error instanceof UnprocessableEntityError)) throw error;
    held = true;
  }
  if (held) {
    // The first hit starts the hold's window; later ones (a burst still arriving) do not extend it.
    const windowMs = ctx.config.loginRateLimiter.durationSeconds * 1000;
    const hold = await ctx.counters.increment(holdKey(user.id), windowMs);
    if (hold.count === 1) {
      ctx.logger.warn(
        { user: user.id, attempts, allowed },
        'the last active administrator is held, not suspended, after failed logins',
      );
    }
    await ctx.counters.reset(failuresKey(user.id));
    return hold.resetAt ?? new Date(Date.now() + windowMs);
  }
  await ctx.invalidation.changed(['svc_users']);
  await ctx.counters.reset(failuresKey(user.id));
  return undefined;
}

async function readAllowedAttempts(db: Knex): Promise<number | null> {
  const row = await SettingsModel.query(db).select('auth_login_attempts').first();
  if (row === undefined) return DEFAULT_LOGIN_ATTEMPTS;
  const value = row.authLoginAttempts === null ? null : Number(row.authLoginAttempts);
  return value === null || !Number.isFinite(value) || value < 1 ? null : value;
}
