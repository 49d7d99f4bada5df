import type { Knex } from 'knex';
import type { Accountability } from '../access/accountability.js';
import { publicAccountability } from '../access/accountability.js';
import { InvalidCredentialsError, InvalidTokenError } from '../errors.js';
import { isJwt, isOurJwt, verifyAccessToken } from './access-token.js';
import type { AuthUser } from './auth-user.js';
import { assertIpAllowed } from './ip-access.js';
import { findSession } from './sessions.js';

export type RequestOrigin = Pick<Accountability, 'ip' | 'userAgent' | 'origin'>;

/** A role's svc_roles.ip_access as stored (CSV or null); cached by the caller. */
export type IpAccessLookup = (role: string) => Promise<string | null>;

/** What authentication reads, besides sessions: cached by the caller (src/auth/static-token-users.ts). */
export interface AuthLookups {
  readonly ipAccessOf: IpAccessLookup;
  /** The active user whose static token this is. */
  readonly userByStaticToken: (token: string) => Promise<AuthUser | undefined>;
}

/**
 * Turns a token (or its absence) into the caller's accountability (reference/auth.md):
 * our JWTs are verified (session-mode ones also need their session row); any other string
 * must be the static token of an active user. A role's `ip_access` is enforced on every
 * request (INVALID_IP).
 *
 * A JWT of another issuer that is nobody's static token is a forged token: INVALID_TOKEN
 * (reference/errors.md: "wrong issuer"), where other unknown strings are INVALID_CREDENTIALS.
 */
export async function authenticate(
  db: Knex,
  secret: string,
  token: string | undefined,
  request: RequestOrigin,
  lookups: AuthLookups,
): Promise<Accountability> {
  if (token === undefined) return publicAccountability(request);
  if (isOurJwt(token)) {
    const claims = verifyAccessToken(token, secret);
    if (claims.session !== undefined) {
      const session = await findSession(db, claims.session);
      if (session?.user !== claims.id) throw new InvalidCredentialsError();
    }
    if (claims.role !== null) assertIpAllowed(await lookups.ipAccessOf(claims.role), request.ip);
    return Object.freeze({
      user: claims.id,
      role: claims.role,
      admin: claims.admin_access,
      app: claims.app_access,
      ...request,
    });
  }
  const user = await lookups.userByStaticToken(token);
  if (user === undefined) throw isJwt(token) ? new InvalidTokenError() : new InvalidCredentialsError();
  assertIpAllowed(user.ipAccess, request.ip);
  return Object.freeze({
    user: user.id,
    role: user.role,
    admin: user.adminAccess,
    app: user.appAccess,
    ...request,
  });
}
