import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { LRUCache } from 'lru-cache';
import { InvalidTokenError, TokenExpiredError } from '../errors.js';

/** The issuer of our access tokens; tokens of other issuers are static tokens. */
export const TOKEN_ISSUER = 'svc';

export interface AccessTokenClaims {
  readonly id: string;
  readonly role: string | null;
  readonly app_access: boolean;
  readonly admin_access: boolean;
  readonly session?: string;
  /**
   * `password_stamp`: which password the user had when the token was signed (passwordStamp). A
   * token whose stamp is not the user's current one is refused: a password change ends every
   * access token issued before it at once, as suspension does. We sign every token with one;
   * only tokens signed before the claim existed lack it (accepted until they expire).
   */
  readonly password_stamp?: string;
}

/**
 * A short keyed digest (HMAC-SHA256 under SECRET) of the user's password hash ('' without one):
 * it changes with every password change, and tells nothing about the password or its hash.
 */
export function passwordStamp(passwordHash: string | null, secret: string): string {
  const key = `${secret}\n${passwordHash ?? ''}`;
  let stamp = stamps.get(key);
  if (stamp === undefined) {
    stamp = createHmac('sha256', secret)
      .update(`password-stamp\n${passwordHash ?? ''}`)
      .digest('base64url')
      .slice(0, 22);
    stamps.set(key, stamp);
  }
  return stamp;
}

/**
 * Pure answers remembered for the tokens and users asked about most (every request checks its
 * token's issuer and its user's password stamp; a live delivery, a thousand sockets' at once).
 */
const REMEMBERED = 10_000;
const stamps = new LRUCache<string, string>({ max: REMEMBERED });
const issuers = new LRUCache<string, boolean>({ max: REMEMBERED });

/** HS256 JWT with Directus 10's claims, valid for `ttlMs`. */
export function signAccessToken(claims: AccessTokenClaims, secret: string, ttlMs: number): string {
  return jwt.sign({ ...claims }, secret, {
    algorithm: 'HS256',
    issuer: TOKEN_ISSUER,
    expiresIn: Math.max(1, Math.floor(ttlMs / 1000)),
  });
}

/** True when `token` is a JWT that claims our issuer (so it must verify as an access token). */
export function isOurJwt(token: string): boolean {
  let ours = issuers.get(token);
  if (ours === undefined) {
    const decoded = jwt.decode(token, { json: true });
    ours = decoded !== null && decoded.iss === TOKEN_ISSUER;
    issuers.set(token, ours);
  }
  return ours;
}

/** True when `token` decodes as a JWT of any issuer. */
export function isJwt(token: string): boolean {
  return jwt.decode(token, { complete: true }) !== null;
}

/** The secret as a key, made once: given a string, jsonwebtoken first tries it as a PEM public key (a throw, about 0.4 ms) at every verify. */
let secretKey: { readonly secret: string; readonly key: KeyObject } | undefined;

function keyOf(secret: string): KeyObject {
  if (secretKey?.secret !== secret) secretKey = { secret, key: createSecretKey(Buffer.from(secret)) };
  return secretKey.key;
}

/**
 * Verifies an access token: TOKEN_EXPIRED when only `exp` is past, INVALID_TOKEN for any other
 * failure (bad signature, alg none or other algorithms, missing claims, `exp` included). `ignoreExpiration`
 * serves session-mode refresh and logout, where the session row's expiry is what counts.
 */
export function verifyAccessToken(
  token: string,
  secret: string,
  options: { readonly ignoreExpiration?: boolean } = {},
): AccessTokenClaims {
  let payload: jwt.JwtPayload | string;
  try {
    payload = jwt.verify(token, keyOf(secret), {
      algorithms: ['HS256'],
      issuer: TOKEN_ISSUER,
      ignoreExpiration: options.ignoreExpiration === true,
    });
  } catch (error) {
    if (error instanceof jwt.TokenExpiredError) throw new TokenExpiredError();
    throw new InvalidTokenError();
  }
  if (typeof payload === 'string') throw new InvalidTokenError();
  // Claims come from the token's JSON: unknown until checked (JwtPayload types them any).
  const claims: Readonly<Record<string, unknown>> = payload;
  const { id, role, app_access: app, admin_access: admin, session, exp, password_stamp: stamp } = claims;
  if (
    // A token without `exp` would never expire: only our own signing could make one, by mistake.
    typeof exp !== 'number' ||
    typeof id !== 'string' ||
    !(typeof role === 'string' || role === null) ||
    typeof app !== 'boolean' ||
    typeof admin !== 'boolean' ||
    !(stamp === undefined || typeof stamp === 'string')
  ) {
    throw new InvalidTokenError();
  }
  return {
    id,
    role,
    app_access: app,
    admin_access: admin,
    ...(typeof session === 'string' ? { session } : {}),
    ...(typeof stamp === 'string' ? { password_stamp: stamp } : {}),
  };
}

/**
 * verifyAccessToken for a token asked about again and again (a socket's, at every delivery of
 * live data): the signature and claims of the last token are checked once, its expiry at every
 * call (TOKEN_EXPIRED from the second `exp` names on, as jsonwebtoken decides). Another token is
 * verified in full, and remembered instead.
 */
export function rememberingVerifier(secret: string): (token: string) => AccessTokenClaims {
  let last: { token: string; claims: AccessTokenClaims; expiresAtMs: number } | undefined;
  return (token) => {
    if (last !== undefined && last.token === token) {
      if (Date.now() >= last.expiresAtMs) throw new TokenExpiredError();
      return last.claims;
    }
    const claims = verifyAccessToken(token, secret);
    last = { token, claims, expiresAtMs: accessTokenExpiresAt(token) ?? Number.NaN };
    return claims;
  };
}

/** When an access token (a JWT) expires, in ms since the epoch; undefined when it has no `exp` (a static token). */
export function accessTokenExpiresAt(token: string): number | undefined {
  const exp = jwt.decode(token, { json: true })?.exp;
  return typeof exp === 'number' ? exp * 1000 : undefined;
}
