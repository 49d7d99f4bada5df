import * as oidc from 'openid-client';
import { ProfileError, requireSetting, type ProviderProfile, type SsoDriver } from './sso-driver.js';

/**
 * OAuth 2.0 (`oauth2`): the configured AUTHORIZE_URL and ACCESS_URL; the profile is the
 * PROFILE_URL's JSON object, asked for with the access token.
 */
export const OAUTH2_DRIVER: SsoDriver = {
  hasIdToken: false,
  configure(provider, setup) {
    const metadata = {
      issuer: provider.issuerUrl ?? new URL(requireSetting(provider.authorizeUrl)).origin,
      authorization_endpoint: requireSetting(provider.authorizeUrl),
      token_endpoint: requireSetting(provider.accessUrl),
    };
    const configuration = new oidc.Configuration(metadata, provider.clientId, provider.clientSecret);
    for (const step of setup) step(configuration);
    return Promise.resolve(configuration);
  },
  async profile(configuration, provider, tokens) {
    const url = new URL(requireSetting(provider.profileUrl));
    const headers = new Headers({ accept: 'application/json' });
    const res = await oidc.fetchProtectedResource(configuration, tokens.access_token, url, 'GET', undefined, headers);
    if (!res.ok) throw new ProfileError(`the profile endpoint answered ${res.status}`);
    const profile: unknown = await res.json().catch(() => undefined);
    if (typeof profile !== 'object' || profile === null || Array.isArray(profile)) {
      throw new ProfileError('the profile endpoint answered no JSON object');
    }
    return profile as ProviderProfile;
  },
};
