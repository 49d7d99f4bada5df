import { InvalidCredentialsError, InvalidOtpError } from '../errors.js';
import { dialectOf } from '../db/index.js';
import { UserModel } from '../db/models/system-models.js';
import { toDatabaseTimestamp } from '../db/to-database-timestamp.js';
import type { AuthContext } from './auth-context.js';
import { findUserByEmail, type AuthUser } from './auth-user.js';
import type { RequestOrigin } from '../access/accountability.js';
import { assertIpAllowed } from './ip-access.js';
import { claimLoginAttempt, recordLoginFailure, resetLoginFailures } from './login-attempts.js';
import { countLoginAttempt, settleLoginSuccess } from './login-limiter.js';
import { verifyPassword } from '../access/passwords.js';
import { createSession, deleteExpiredSessions } from './sessions.js';
import { stall } from './stall.js';
import { acceptOtp } from './tfa.js';
import { grantTokens, type AuthMode, type TokenGrant } from './token-grant.js';

export interface Credentials {
  readonly email: string;
  readonly password: string;
  readonly otp: string | undefined;
}

/**
 * POST /auth/login: checks the credentials,
 * opens a session and signs an access token. Every failure takes at least LOGIN_STALL_TIME,
 * so timing tells nothing about which check failed. Every attempt is counted by the limiters
 * (per account and IP, per IP: login-limiter.ts) before anything is checked, and refused with
 * 429 past them; the account's lockout (login-attempts.ts) is counted before the password is.
 */
export async function login(
  ctx: AuthContext,
  credentials: Credentials,
  mode: AuthMode,
  origin: RequestOrigin,
): Promise<TokenGrant> {
  await countLoginAttempt(ctx, credentials.email, origin.ip);
  const startedAt = performance.now();
  try {
    const user = await checkCredentials(ctx, credentials);
    assertIpAllowed(user.ipAccess, origin.ip);
    await settleLoginSuccess(ctx, credentials.email, origin.ip);
    return await openSession(ctx, user, mode, origin);
  } catch (error) {
    await stall(ctx.config.loginStallTimeMs, startedAt);
    throw error;
  }
}

async function checkCredentials(ctx: AuthContext, credentials: Credentials): Promise<AuthUser> {
  const found = await findUserByEmail(ctx.db, credentials.email);
  const event = loginEvent(ctx, credentials, found?.id ?? null);
  // auth.login filters may change the password or one-time password checked, or refuse the login.
  const checked = await event.filter();
  try {
    const user = await verifyCredentials(ctx, found, checked);
    event.settled('success');
    return user;
  } catch (error) {
    event.settled('fail');
    throw error;
  }
}

async function verifyCredentials(
  ctx: AuthContext,
  user: AuthUser | undefined,
  credentials: Credentials,
): Promise<AuthUser> {
  // Unknown, inactive, SSO-only and password-less users all look the same to the caller.
  if (user?.status !== 'active' || user.provider !== 'default' || user.password === null) {
    throw new InvalidCredentialsError();
  }
  const attempt = await claimLoginAttempt(ctx, user);
  if (!(await verifyPassword(user.password, credentials.password))) {
    await recordLoginFailure(ctx, user, attempt);
    throw new InvalidCredentialsError();
  }
  // A TFA user also needs the current one-time password, once.
  if (
    user.tfaSecret !== null &&
    (credentials.otp === undefined || !(await acceptOtp(ctx.counters, user.id, user.tfaSecret, credentials.otp)))
  ) {
    await recordLoginFailure(ctx, user, attempt);
    throw new InvalidOtpError();
  }
  await resetLoginFailures(ctx, user.id);
  return user;
}

/**
 * Directus 10's `auth.login` events of one password login: the filter before the password is
 * checked (payload `{email, password, otp?}`, meta `{status: 'pending', user, provider}`), the
 * action once it is settled (`{payload, status: 'success' | 'fail', user, provider}`).
 */
function loginEvent(ctx: AuthContext, credentials: Credentials, user: string | null) {
  const { hooks } = ctx;
  const context = { database: ctx.db, schema: null, accountability: null } as const;
  const provider = 'default';
  let payload: Record<string, unknown> = { email: credentials.email, password: credentials.password };
  if (credentials.otp !== undefined) payload['otp'] = credentials.otp;
  return {
    async filter(): Promise<Credentials> {
      if (hooks === undefined) return credentials;
      payload = await hooks.runFilter(['auth.login'], payload, { status: 'pending', user, provider }, context);
      const { password, otp } = payload;
      return {
        email: credentials.email,
        password: typeof password === 'string' ? password : '',
        otp: typeof otp === 'string' ? otp : undefined,
      };
    },
    settled(status: 'success' | 'fail'): void {
      hooks?.runAction(['auth.login'], { payload, status, user, provider }, context);
    },
  };
}

/**
 * Opens a session for `user` who has proven who they are (password login, SSO callback):
 * the svc_sessions row, the `login` activity, last_access, and the tokens of `mode`.
 */
export async function openSession(
  ctx: Pick<AuthContext, 'db' | 'config'>,
  user: AuthUser,
  mode: AuthMode,
  origin: RequestOrigin,
): Promise<TokenGrant> {
  const ttlMs = mode === 'session' ? ctx.config.sessionCookie.ttlMs : ctx.config.refreshTokenTtlMs;
  const refreshToken = await ctx.db.transaction(async (trx) => {
    await deleteExpiredSessions(trx);
    const token = await createSession(trx, user.id, ttlMs, origin);
    await trx('svc_activity').insert({
      action: 'login',
      user: user.id,
      collection: 'svc_users',
      item: user.id,
      ip: origin.ip,
      user_agent: origin.userAgent,
      origin: origin.origin,
    });
    await UserModel.query(trx)
      .findById(user.id)
      .patch({ lastAccess: toDatabaseTimestamp(new Date(), dialectOf(ctx.db)) });
    return token;
  });
  return grantTokens(ctx.config, user, refreshToken, mode);
}
