import { randomBytes } from 'node:crypto';
import { readAuthProviders, type AuthProviderConfig } from './auth-providers.js';
import type { EnvReader } from './env-reader.js';

interface CookieConfig {
  readonly name: string;
  readonly domain: string | undefined;
  readonly secure: boolean;
  readonly sameSite: 'lax' | 'strict' | 'none';
}

/** Signing keys, token and cookie lifetimes, login providers and where auth links may lead. */
export interface TokensConfig {
  readonly key: string;
  readonly secret: string;
  /** True when SECRET was generated at boot: tokens die on restart. */
  readonly isSecretGenerated: boolean;
  readonly accessTokenTtlMs: number;
  readonly refreshTokenTtlMs: number;
  readonly refreshTokenCookie: CookieConfig;
  readonly sessionCookie: CookieConfig & { readonly ttlMs: number };
  /** Session mode: how long a rotated session keeps serving in-flight requests. */
  readonly sessionRefreshGracePeriodMs: number;
  readonly loginStallTimeMs: number;
  readonly auth: {
    readonly providers: readonly AuthProviderConfig[];
    /** AUTH_DISABLE_DEFAULT: no e-mail/password login (/auth/login → 404). */
    readonly disableDefault: boolean;
  };
  readonly passwordResetUrlAllowList: readonly string[];
  readonly userInviteUrlAllowList: readonly string[];
  /** USER_REGISTER_URL_ALLOW_LIST: where a registration's verification link may lead. */
  readonly userRegisterUrlAllowList: readonly string[];
}

const COOKIE_SAME_SITE = ['lax', 'strict', 'none'] as const;

/** KEY, SECRET (`secret`: read first by loadConfig), *_TOKEN_*, *_COOKIE_*, AUTH_* and the URL allow lists. */
export function readTokensConfig(env: EnvReader, secret: string | undefined): TokensConfig {
  return {
    key: env.string('KEY') ?? randomBytes(16).toString('hex'),
    secret: secret ?? randomBytes(32).toString('base64url'),
    isSecretGenerated: secret === undefined,
    accessTokenTtlMs: env.duration('ACCESS_TOKEN_TTL', '15m'),
    refreshTokenTtlMs: env.duration('REFRESH_TOKEN_TTL', '7d'),
    refreshTokenCookie: {
      name: env.string('REFRESH_TOKEN_COOKIE_NAME', 'svc_refresh_token'),
      domain: env.string('REFRESH_TOKEN_COOKIE_DOMAIN'),
      secure: env.bool('REFRESH_TOKEN_COOKIE_SECURE', true),
      sameSite: env.oneOf('REFRESH_TOKEN_COOKIE_SAME_SITE', COOKIE_SAME_SITE, 'lax'),
    },
    sessionCookie: {
      name: env.string('SESSION_COOKIE_NAME', 'svc_session_token'),
      ttlMs: env.duration('SESSION_COOKIE_TTL', '1d'),
      domain: env.string('SESSION_COOKIE_DOMAIN'),
      secure: env.bool('SESSION_COOKIE_SECURE', false),
      sameSite: env.oneOf('SESSION_COOKIE_SAME_SITE', COOKIE_SAME_SITE, 'lax'),
    },
    sessionRefreshGracePeriodMs: env.duration('SESSION_REFRESH_GRACE_PERIOD', '10s'),
    loginStallTimeMs: env.duration('LOGIN_STALL_TIME', 500),
    auth: {
      providers: readAuthProviders(env, env.string('PUBLIC_URL', '/')),
      disableDefault: env.bool('AUTH_DISABLE_DEFAULT', false),
    },
    passwordResetUrlAllowList: env.list('PASSWORD_RESET_URL_ALLOW_LIST'),
    userInviteUrlAllowList: env.list('USER_INVITE_URL_ALLOW_LIST'),
    userRegisterUrlAllowList: env.list('USER_REGISTER_URL_ALLOW_LIST'),
  };
}
