import type { Knex } from 'knex';
import { publicAccountability, type Accountability, type RequestOrigin } from '../access/accountability.js';
import { InvalidCredentialsError, InvalidTokenError } from '../errors.js';
import { isJwt, isOurJwt, passwordStamp, verifyAccessToken, type AccessTokenClaims } from './access-token.js';
import type { AuthUser } from './auth-user.js';
import { assertIpAllowed } from './ip-access.js';
import { findSession } from './sessions.js';

export type { RequestOrigin } from '../access/accountability.js';

/** What authentication reads of users, besides sessions: cached by the caller (src/auth/user-lookups.ts). */
export interface AuthLookups {
  /** The user of this id, whatever its status, with its current role. */
  readonly userById: (id: string) => Promise<AuthUser | undefined>;
  /** The active user whose static token this is. */
  readonly userByStaticToken: (token: string) => Promise<AuthUser | undefined>;
  /**
   * How long an answer read from these lookups may be trusted without asking again (0 or
   * absent: not at all), while `generation` has not moved (it moves whenever every user is
   * forgotten: a user or role changed). A socket's caller stands that long for its subscribers'
   * reads (src/realtime/socket-caller.ts).
   */
  readonly trust?: { readonly ttlMs: number; readonly generation: number };
}

/**
 * Turns a token (or its absence) into the caller's accountability:
 * our JWTs are verified (session-mode ones also need their session row); any other string
 * must be the static token of an active user.
 *
 * Every token is only as good as its user now: a JWT's user must still exist, be `active` and
 * have the password the token was signed under (else INVALID_CREDENTIALS, as a static token of
 * an inactive user: a suspension or a password change ends access tokens at once), and the role,
 * its admin and app access and its `ip_access` are the user's current ones, not the claims
 * signed when the token was issued. A role's `ip_access` is enforced on every request
 * (INVALID_IP).
 *
 * A JWT of another issuer that is nobody's static token is a forged token: INVALID_TOKEN
 * (a wrong issuer), where other unknown strings are INVALID_CREDENTIALS.
 * `verify` checks our JWTs (a socket's caller passes access-token.ts's rememberingVerifier).
 */
export async function authenticate(
  db: Knex,
  secret: string,
  token: string | undefined,
  request: RequestOrigin,
  lookups: AuthLookups,
  verify: (token: string) => AccessTokenClaims = (jwt) => verifyAccessToken(jwt, secret),
): Promise<Accountability> {
  if (token === undefined) return publicAccountability(request);
  if (isOurJwt(token)) {
    const claims = verify(token);
    if (claims.session !== undefined) {
      const session = await findSession(db, claims.session);
      if (session?.user !== claims.id) throw new InvalidCredentialsError();
    }
    const user = await lookups.userById(claims.id);
    if (
      user?.status !== 'active' ||
      (claims.password_stamp !== undefined && passwordStamp(user.password, secret) !== claims.password_stamp)
    ) {
      throw new InvalidCredentialsError();
    }
    return accountabilityOf(user, request);
  }
  const user = await lookups.userByStaticToken(token);
  if (user === undefined) throw isJwt(token) ? new InvalidTokenError() : new InvalidCredentialsError();
  return accountabilityOf(user, request);
}

function accountabilityOf(user: AuthUser, request: RequestOrigin): Accountability {
  assertIpAllowed(user.ipAccess, request.ip);
  return Object.freeze({
    user: user.id,
    role: user.role,
    admin: user.adminAccess,
    app: user.appAccess,
    ...request,
  });
}
