import { InvalidCredentialsError, UserSuspendedError } from '../errors.js';
import { dialectOf } from '../db/index.js';
import { UserModel } from '../db/models/system-models.js';
import { toDatabaseTimestamp } from '../db/to-database-timestamp.js';
import type { AuthContext } from './auth-context.js';
import { findUserById } from './auth-user.js';
import type { RequestOrigin } from '../access/accountability.js';
import { assertIpAllowed } from './ip-access.js';
import { deleteSession, findSession, rotateSession, succeedSession } from './sessions.js';
import { grantTokens, type AuthMode, type TokenGrant } from './token-grant.js';

/**
 * POST /auth/refresh: a live session of an active user is rotated (the
 * old refresh token dies at once) and a new access token signed with the user's current role.
 */
export async function refresh(
  ctx: AuthContext,
  refreshToken: string,
  mode: AuthMode,
  origin: RequestOrigin,
): Promise<TokenGrant> {
  const session = await findSession(ctx.db, refreshToken);
  if (session?.user == null) throw new InvalidCredentialsError();
  const user = await findUserById(ctx.db, session.user);
  if (user?.status !== 'active') {
    await deleteSession(ctx.db, refreshToken);
    throw user?.status === 'suspended' ? new UserSuspendedError() : new InvalidCredentialsError();
  }
  assertIpAllowed(user.ipAccess, origin.ip);
  const { config } = ctx;
  const next =
    mode === 'session'
      ? await succeedSession(ctx.db, session, config.sessionCookie.ttlMs, config.sessionRefreshGracePeriodMs, origin)
      : await rotateSession(ctx.db, refreshToken, config.refreshTokenTtlMs);
  if (next === undefined) throw new InvalidCredentialsError();
  await UserModel.query(ctx.db)
    .findById(user.id)
    .patch({ lastAccess: toDatabaseTimestamp(new Date(), dialectOf(ctx.db)) });
  return grantTokens(config, user, next, mode);
}
