import type { Config } from '../config/index.js';
import { passwordStamp, signAccessToken } from './access-token.js';
import type { AuthUser } from './auth-user.js';

/** How tokens are handed back. */
export const AUTH_MODES = ['json', 'cookie', 'session'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

/** The outcome of a login or refresh; the route turns it into a body and cookies by `mode`. */
export interface TokenGrant {
  readonly mode: AuthMode;
  readonly accessToken: string;
  /** ACCESS_TOKEN_TTL in milliseconds: the token response's `expires`. */
  readonly expires: number;
  /** The session's refresh token (inside the access token in session mode). */
  readonly refreshToken: string;
}

/** Signs the access token of `user` for the session `refreshToken`. */
export function grantTokens(
  config: Pick<Config, 'secret' | 'accessTokenTtlMs'>,
  user: AuthUser,
  refreshToken: string,
  mode: AuthMode,
): TokenGrant {
  const claims = {
    id: user.id,
    role: user.role,
    app_access: user.appAccess,
    admin_access: user.adminAccess,
    // Dies with the password it was signed under (authenticate.ts).
    password_stamp: passwordStamp(user.password, config.secret),
    // Session-mode tokens die with their session row.
    ...(mode === 'session' ? { session: refreshToken } : {}),
  };
  return {
    mode,
    accessToken: signAccessToken(claims, config.secret, config.accessTokenTtlMs),
    expires: config.accessTokenTtlMs,
    refreshToken,
  };
}
