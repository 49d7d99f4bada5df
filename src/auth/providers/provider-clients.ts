import * as oidc from 'openid-client';
import type { AuthDriver, AuthProviderConfig } from '../../config/index.js';
import {
  InvalidCredentialsError,
  InvalidProviderConfigError,
  isServiceError,
  type ServiceError,
  ServiceUnavailableError,
  UnexpectedResponseError,
} from '../../errors.js';
import type { Logger } from '../../logger/index.js';
import { OAUTH2_DRIVER } from './oauth2-driver.js';
import { OPENID_DRIVER } from './openid-driver.js';
import { PROVIDER_TIMEOUT_S, ProfileError, type ProviderProfile, type SsoDriver } from './sso-driver.js';

/**
 * The single sign-on drivers, by the name AUTH_<NAME>_DRIVER gives (config/auth-providers.ts
 * reads their settings): a new driver is its file and a line here.
 */
const DRIVERS: { readonly [Name in AuthDriver]: SsoDriver } = {
  oauth2: OAUTH2_DRIVER,
  openid: OPENID_DRIVER,
};

/** The secrets of one authorization request, kept until its callback (sso-state.ts). */
export interface AuthorizationChecks {
  readonly state: string;
  /** Drivers with an ID token only. */
  readonly nonce: string | undefined;
  readonly codeVerifier: string;
}

/**
 * The code flow of every driver, and the openid-client `Configuration` of each provider: built
 * at the first login (by its driver: openid-driver.ts, oauth2-driver.ts) and kept; a failed
 * discovery is not kept, so a provider that was down is asked again at the next login.
 */
export class ProviderClients {
  readonly #configurations = new Map<string, Promise<oidc.Configuration>>();

  constructor(private readonly logger: Logger) {}

  /** The provider's authorization URL for a new login, and the checks its callback needs. */
  async authorizationUrl(
    provider: AuthProviderConfig,
    callbackUrl: string,
  ): Promise<{ url: string; checks: AuthorizationChecks }> {
    const configuration = await this.configuration(provider);
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const checks = {
      state: oidc.randomState(),
      nonce: DRIVERS[provider.driver].hasIdToken ? oidc.randomNonce() : undefined,
      codeVerifier,
    };
    const parameters: Record<string, string> = {
      ...provider.params,
      redirect_uri: callbackUrl,
      response_type: 'code',
      scope: provider.scope,
      state: checks.state,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      ...(checks.nonce === undefined ? {} : { nonce: checks.nonce }),
    };
    return { url: oidc.buildAuthorizationUrl(configuration, parameters).href, checks };
  }

  /**
   * The authorization response at `currentUrl` (the callback with its query) exchanged for
   * tokens and checked by openid-client: state, PKCE, and for openid the ID token's
   * signature (the provider's JWKS), issuer, audience, expiry and nonce. Returns the profile:
   * openid the userinfo (when offered) under the ID token's claims; oauth2 the PROFILE_URL
   * answer. Every refusal is logged with the provider's reason and thrown as a service error.
   */
  async completeAuthorization(
    provider: AuthProviderConfig,
    currentUrl: URL,
    checks: AuthorizationChecks,
  ): Promise<ProviderProfile> {
    const configuration = await this.configuration(provider);
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
        expectedState: checks.state,
        pkceCodeVerifier: checks.codeVerifier,
        ...(checks.nonce === undefined ? {} : { expectedNonce: checks.nonce, idTokenExpected: true }),
      });
      return await DRIVERS[provider.driver].profile(configuration, provider, tokens);
    } catch (error) {
      throw this.refusal(provider, error);
    }
  }

  #discover(provider: AuthProviderConfig): Promise<oidc.Configuration> {
    // openid-client marks allowInsecureRequests deprecated only to flag it; the setting is the
    // operator's explicit opt-in for http:// providers (AUTH_<NAME>_ALLOW_INSECURE_REQUESTS).
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- see above
    const allowInsecure: (configuration: oidc.Configuration) => void = oidc.allowInsecureRequests;
    return DRIVERS[provider.driver].configure(provider, provider.allowInsecureRequests ? [allowInsecure] : []);
  }

  private async configuration(provider: AuthProviderConfig): Promise<oidc.Configuration> {
    let configuration = this.#configurations.get(provider.name);
    if (configuration === undefined) {
      configuration = this.#discover(provider).then((c) => {
        c.timeout = PROVIDER_TIMEOUT_S;
        return c;
      });
      this.#configurations.set(provider.name, configuration);
    }
    try {
      return await configuration;
    } catch (error) {
      this.#configurations.delete(provider.name);
      throw this.refusal(provider, error, 'discovery');
    }
  }

  /**
   * The service error of a provider failure, logged with the provider's reason (never a token:
   * openid-client's messages and the provider's `error`/`error_description` carry none).
   * Unreachable or timed out → 503 SERVICE_UNAVAILABLE; a discovery document or profile that
   * makes no sense → 503 UNEXPECTED_RESPONSE; a discovery naming another issuer → 503
   * INVALID_PROVIDER_CONFIG; anything refused in the user's login → 401 INVALID_CREDENTIALS.
   */
  private refusal(provider: AuthProviderConfig, error: unknown, step: 'discovery' | 'login' = 'login'): ServiceError {
    if (isServiceError(error)) return error;
    const reason = describe(error);
    this.logger.warn({ provider: provider.name, step, reason }, 'SSO login refused');
    if (isUnreachable(error))
      return new ServiceUnavailableError(provider.name, 'The identity provider cannot be reached');
    if (step === 'discovery') {
      return error instanceof oidc.ClientError && error.code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED'
        ? new InvalidProviderConfigError()
        : new UnexpectedResponseError();
    }
    if (error instanceof ProfileError) return new UnexpectedResponseError();
    return new InvalidCredentialsError();
  }
}

function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return true;
  // undici: `TypeError: fetch failed` with the socket error as its cause.
  return error instanceof TypeError && error.message === 'fetch failed';
}

function describe(error: unknown): string {
  if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError) {
    return `${error.error}${error.error_description === undefined ? '' : `: ${error.error_description}`}`;
  }
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${typeof code === 'string' ? `${code}: ` : ''}${error.message}${cause}`;
}
