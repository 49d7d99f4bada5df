import jwt from 'jsonwebtoken';
import { ForbiddenError, InvalidTokenError, TokenExpiredError } from '../errors.js';
import { TOKEN_ISSUER } from './access-token.js';

/** What an e-mailed token is for: each flow accepts its own scope only. */
export type TokenScope = 'password-reset' | 'invite' | 'pending-registration';

/** The claims every e-mailed token carries, and whatever its flow adds. */
export interface ScopedClaims extends Readonly<Record<string, unknown>> {
  readonly email: string;
  readonly scope: TokenScope;
}

/** A lifetime as jsonwebtoken reads it: `7d`, `1d`. */
export type TokenTtl = NonNullable<jwt.SignOptions['expiresIn']>;

/** An e-mailed token: HS256 with SECRET, our issuer. */
export function signScopedToken(secret: string, claims: ScopedClaims, expiresIn: TokenTtl): string {
  return jwt.sign(claims, secret, { algorithm: 'HS256', expiresIn, issuer: TOKEN_ISSUER });
}

/**
 * The claims of an e-mailed token of `scope`. Expired → TOKEN_EXPIRED;
 * anything unverifiable (non-JWT included) → INVALID_TOKEN ([DEVIATION]); a valid token of
 * another scope, or without an e-mail address → FORBIDDEN.
 */
export function verifyScopedToken(token: string, secret: string, scope: TokenScope): ScopedClaims {
  const payload = verifyToken(token, secret);
  const email = payload['email'];
  if (payload['scope'] !== scope || typeof email !== 'string') throw new ForbiddenError();
  return { ...payload, email, scope };
}

/** The verified payload: a JSON object from the token, its claims of unknown types until checked. */
function verifyToken(token: string, secret: string): Readonly<Record<string, unknown>> {
  try {
    const payload = jwt.verify(token, secret, { algorithms: ['HS256'], issuer: TOKEN_ISSUER });
    if (typeof payload === 'string') throw new InvalidTokenError();
    return payload;
  } catch (error) {
    if (error instanceof jwt.TokenExpiredError) throw new TokenExpiredError();
    throw new InvalidTokenError();
  }
}
