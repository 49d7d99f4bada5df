import type * as oidc from 'openid-client';
import type { AuthProviderConfig } from '../../config/index.js';
import { InvalidProviderConfigError } from '../../errors.js';

/** Seconds a provider has to answer one request (discovery, token, JWKS, profile). */
export const PROVIDER_TIMEOUT_S = 10;

/** What a provider said about the user: the verified ID token claims, its userinfo or profile. */
export type ProviderProfile = Readonly<Record<string, unknown>>;

/**
 * What differs between the single sign-on drivers of AUTH_<NAME>_DRIVER: where a provider's
 * endpoints come from and where the user's profile is read. The code flow around them (PKCE,
 * state, the token exchange and its checks, the errors) is provider-clients.ts's, for all.
 */
export interface SsoDriver {
  /** Whether a login asks for an ID token bound to a nonce (OpenID Connect). */
  readonly hasIdToken: boolean;
  /**
   * The provider's openid-client `Configuration`, with `setup` applied to it (the http:// opt-in
   * and the like); built at the first login and kept.
   */
  configure(
    provider: AuthProviderConfig,
    setup: readonly ((c: oidc.Configuration) => void)[],
  ): Promise<oidc.Configuration>;
  /** The user's profile once the login's code was exchanged for `tokens` (and checked). */
  profile(
    configuration: oidc.Configuration,
    provider: AuthProviderConfig,
    tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers,
  ): Promise<ProviderProfile>;
}

/** The provider's answer could not be used (an UNEXPECTED_RESPONSE, not the user's failed login). */
export class ProfileError extends Error {}

/** A setting the driver needs; config/auth-providers.ts requires each driver's endpoints at start. */
export function requireSetting(value: string | undefined): string {
  if (value === undefined) throw new InvalidProviderConfigError();
  return value;
}
