import type { Knex } from 'knex';
import { SessionModel, SettingsModel, UserModel } from '../db/models/system-models.js';
import type { AuthContext } from './auth-context.js';
import type { AuthUser } from './auth-user.js';

// svc_settings.auth_login_attempts default.
const DEFAULT_LOGIN_ATTEMPTS = 25;

const failuresKey = (userId: string) => `login-failures:${userId}`;

/**
 * Counts a failed login of an active user; at `settings.auth_login_attempts` consecutive
 * failures the user is suspended. Null setting: no limit.
 */
export async function recordLoginFailure(ctx: AuthContext, user: AuthUser): Promise<void> {
  if (user.status !== 'active') return;
  const allowed = await readAllowedAttempts(ctx.db);
  if (allowed === null) return;
  const { count } = await ctx.counters.increment(failuresKey(user.id), null);
  if (count < allowed) return;
  await ctx.db.transaction(async (trx) => {
    const suspended = await UserModel.query(trx)
      .findById(user.id)
      .where('status', 'active')
      .patch({ status: 'suspended' });
    // As any suspension (commands/user-rules.ts): the user keeps no session.
    if (suspended > 0) await SessionModel.query(trx).where('user', user.id).delete();
  });
  await ctx.invalidation.changed(['svc_users']);
  await ctx.counters.reset(failuresKey(user.id));
  ctx.logger.warn({ user: user.id, attempts: count }, 'user suspended after failed logins');
}

/** A successful login ends the run of consecutive failures. */
export function resetLoginFailures(ctx: AuthContext, userId: string): Promise<void> {
  return ctx.counters.reset(failuresKey(userId));
}

async function readAllowedAttempts(db: Knex): Promise<number | null> {
  const row = await SettingsModel.query(db).select('auth_login_attempts').first();
  if (row === undefined) return DEFAULT_LOGIN_ATTEMPTS;
  const value = row.authLoginAttempts === null ? null : Number(row.authLoginAttempts);
  return value === null || !Number.isFinite(value) || value < 1 ? null : value;
}
