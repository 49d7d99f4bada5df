import jwt from 'jsonwebtoken';
import { InvalidCredentialsError } from '../../errors.js';
import { TOKEN_ISSUER } from '../access-token.js';
import type { CounterStore } from '../counter-store.js';
import type { AuthorizationChecks } from './provider-clients.js';

/** The cookie holding a login between GET /auth/login/:provider and its callback. */
export const SSO_STATE_COOKIE = 'svc_sso_state';

/** How long a user has to log in at the provider. */
export const SSO_STATE_TTL_MS = 10 * 60 * 1000;

const SCOPE = 'sso-state';

/** A login under way: which provider, its checks, and where to go afterwards. */
export interface PendingLogin extends AuthorizationChecks {
  readonly provider: string;
  /** The allow-listed `?redirect=` (normalised), if any. */
  readonly redirect: string | undefined;
}

/**
 * The pending login as the value of a signed (HS256, SECRET), short-lived cookie: the
 * browser carries it to the callback, nobody can forge or alter it, and it names no user.
 */
export function signPendingLogin(secret: string, pending: PendingLogin): string {
  const claims = {
    scope: SCOPE,
    provider: pending.provider,
    state: pending.state,
    verifier: pending.codeVerifier,
    ...(pending.nonce === undefined ? {} : { nonce: pending.nonce }),
    ...(pending.redirect === undefined ? {} : { redirect: pending.redirect }),
  };
  return jwt.sign(claims, secret, { algorithm: 'HS256', issuer: TOKEN_ISSUER, expiresIn: SSO_STATE_TTL_MS / 1000 });
}

/**
 * The pending login of the state cookie, for the callback of `provider`. Missing, forged,
 * expired, for another provider → INVALID_CREDENTIALS. A state is good for one callback:
 * its first use is counted (shared by every instance with Redis), a second is refused.
 */
export async function takePendingLogin(
  secret: string,
  counters: CounterStore,
  cookie: string | undefined,
  provider: string,
): Promise<PendingLogin> {
  if (cookie === undefined) throw new InvalidCredentialsError();
  let claims: jwt.JwtPayload | string;
  try {
    claims = jwt.verify(cookie, secret, { algorithms: ['HS256'], issuer: TOKEN_ISSUER });
  } catch {
    throw new InvalidCredentialsError();
  }
  if (typeof claims === 'string' || claims['scope'] !== SCOPE || claims['provider'] !== provider)
    throw new InvalidCredentialsError();
  const { state, verifier, nonce, redirect } = claims as Record<string, unknown>;
  if (typeof state !== 'string' || typeof verifier !== 'string') throw new InvalidCredentialsError();
  const { count } = await counters.increment(`sso-state:${state}`, SSO_STATE_TTL_MS);
  if (count > 1) throw new InvalidCredentialsError();
  return {
    provider,
    state,
    codeVerifier: verifier,
    nonce: typeof nonce === 'string' ? nonce : undefined,
    redirect: typeof redirect === 'string' ? redirect : undefined,
  };
}
