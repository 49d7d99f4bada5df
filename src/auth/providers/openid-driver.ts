import * as oidc from 'openid-client';
import { PROVIDER_TIMEOUT_S, requireSetting, type SsoDriver } from './sso-driver.js';

/**
 * OpenID Connect (`openid`): the endpoints from the issuer's discovery document; the profile is
 * the ID token's claims (its signature checked against the provider's JWKS, its issuer,
 * audience, expiry and nonce by openid-client) over the userinfo, when the provider offers one.
 */
export const OPENID_DRIVER: SsoDriver = {
  hasIdToken: true,
  configure(provider, setup) {
    // openid-client trusts TLS for an ID token from the token endpoint unless told to check
    // its signature against the provider's JWKS too: we always check.
    return oidc.discovery(
      new URL(requireSetting(provider.issuerUrl)),
      provider.clientId,
      provider.clientSecret,
      undefined,
      { execute: [...setup, oidc.enableNonRepudiationChecks], timeout: PROVIDER_TIMEOUT_S },
    );
  },
  async profile(configuration, _provider, tokens) {
    const claims = tokens.claims();
    if (claims === undefined) throw new oidc.ClientError('no ID token in the token response');
    const userInfo =
      configuration.serverMetadata().userinfo_endpoint === undefined
        ? {}
        : await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
    return { ...userInfo, ...claims };
  },
};
