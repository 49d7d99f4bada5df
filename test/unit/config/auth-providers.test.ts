import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/config/index.js';

const NO_FILE = { defaultConfigPath: '/nonexistent/.env' };

const OPENID = {
  PUBLIC_URL: 'https://data.example',
  AUTH_PROVIDERS: 'keycloak',
  AUTH_KEYCLOAK_DRIVER: 'openid',
  AUTH_KEYCLOAK_CLIENT_ID: 'data-service',
  AUTH_KEYCLOAK_CLIENT_SECRET: 'secret',
  AUTH_KEYCLOAK_ISSUER_URL: 'https://sso.example/realms/staff',
};

const OAUTH2 = {
  PUBLIC_URL: 'https://data.example',
  AUTH_PROVIDERS: 'github',
  AUTH_GITHUB_DRIVER: 'oauth2',
  AUTH_GITHUB_CLIENT_ID: 'id',
  AUTH_GITHUB_CLIENT_SECRET: 'secret',
  AUTH_GITHUB_AUTHORIZE_URL: 'https://github.com/login/oauth/authorize',
  AUTH_GITHUB_ACCESS_URL: 'https://github.com/login/oauth/access_token',
  AUTH_GITHUB_PROFILE_URL: 'https://api.github.com/user',
};

/** The variable a start with `env` is refused for. */
function refusedVariable(env: Record<string, string>): string {
  try {
    loadConfig(env, NO_FILE);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    expect((error as ConfigError).message).to.include((error as ConfigError).variable);
    return (error as ConfigError).variable;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig: AUTH_PROVIDERS and AUTH_<NAME>_*', () => {
  it('reads an openid provider with the reference defaults', () => {
    const [provider] = loadConfig(OPENID, NO_FILE).auth.providers;
    expect(provider).to.deep.include({
      name: 'keycloak',
      driver: 'openid',
      scope: 'openid profile email',
      identifierKey: 'sub',
      emailKey: 'email',
      allowPublicRegistration: false,
      defaultRoleId: undefined,
      groupClaimName: 'groups',
      roleMapping: {},
      linkVerifiedEmail: false,
      redirectAllowList: [],
      mode: 'cookie',
      allowInsecureRequests: false,
      issuerUrl: 'https://sso.example/realms/staff',
    });
  });

  it('reads an oauth2 provider: scope email, identifier the e-mail, its three endpoints', () => {
    const [provider] = loadConfig(
      { ...OAUTH2, AUTH_GITHUB_ROLE_MAPPING: '{"admins":"r1"}', AUTH_GITHUB_PARAMS: '{"prompt":"consent"}' },
      NO_FILE,
    ).auth.providers;
    expect(provider).to.deep.include({
      driver: 'oauth2',
      scope: 'email',
      identifierKey: 'email',
      issuerUrl: undefined,
      profileUrl: 'https://api.github.com/user',
      roleMapping: { admins: 'r1' },
      params: { prompt: 'consent' },
    });
  });

  const refused: [string, Record<string, string>, string][] = [
    ['no driver', { ...OPENID, AUTH_KEYCLOAK_DRIVER: '' }, 'AUTH_KEYCLOAK_DRIVER'],
    ['a driver this build lacks', { ...OPENID, AUTH_KEYCLOAK_DRIVER: 'saml' }, 'AUTH_KEYCLOAK_DRIVER'],
    ['no client id', { ...OPENID, AUTH_KEYCLOAK_CLIENT_ID: '' }, 'AUTH_KEYCLOAK_CLIENT_ID'],
    ['no client secret', { ...OPENID, AUTH_KEYCLOAK_CLIENT_SECRET: '' }, 'AUTH_KEYCLOAK_CLIENT_SECRET'],
    ['openid without issuer', { ...OPENID, AUTH_KEYCLOAK_ISSUER_URL: '' }, 'AUTH_KEYCLOAK_ISSUER_URL'],
    ['a relative issuer', { ...OPENID, AUTH_KEYCLOAK_ISSUER_URL: '/realms/staff' }, 'AUTH_KEYCLOAK_ISSUER_URL'],
    ['a plain-http issuer', { ...OPENID, AUTH_KEYCLOAK_ISSUER_URL: 'http://sso.example' }, 'AUTH_KEYCLOAK_ISSUER_URL'],
    ['oauth2 without profile URL', { ...OAUTH2, AUTH_GITHUB_PROFILE_URL: '' }, 'AUTH_GITHUB_PROFILE_URL'],
    ['oauth2 without access URL', { ...OAUTH2, AUTH_GITHUB_ACCESS_URL: '' }, 'AUTH_GITHUB_ACCESS_URL'],
    [
      'a role mapping that is no JSON object',
      { ...OPENID, AUTH_KEYCLOAK_ROLE_MAPPING: '["a"]' },
      'AUTH_KEYCLOAK_ROLE_MAPPING',
    ],
    [
      'a role mapping to a non-string',
      { ...OPENID, AUTH_KEYCLOAK_ROLE_MAPPING: '{"a":1}' },
      'AUTH_KEYCLOAK_ROLE_MAPPING',
    ],
    [
      'a relative redirect allow-list entry',
      { ...OPENID, AUTH_KEYCLOAK_REDIRECT_ALLOW_LIST: '/done' },
      'AUTH_KEYCLOAK_REDIRECT_ALLOW_LIST',
    ],
    ['a bad mode', { ...OPENID, AUTH_KEYCLOAK_MODE: 'json' }, 'AUTH_KEYCLOAK_MODE'],
    ['a relative PUBLIC_URL', { ...OPENID, PUBLIC_URL: '/' }, 'PUBLIC_URL'],
    ['a name unfit for a path', { ...OPENID, AUTH_PROVIDERS: 'key cloak' }, 'AUTH_PROVIDERS'],
    ['a name given twice', { ...OPENID, AUTH_PROVIDERS: 'keycloak,KeyCloak' }, 'AUTH_PROVIDERS'],
  ];
  for (const [what, env, variable] of refused) {
    it(`refuses ${what}, naming ${variable}`, () => {
      expect(refusedVariable(env)).to.equal(variable);
    });
  }

  it('accepts http:// URLs with ALLOW_INSECURE_REQUESTS=true', () => {
    const env = {
      ...OPENID,
      AUTH_KEYCLOAK_ISSUER_URL: 'http://127.0.0.1:8080/realms/staff',
      AUTH_KEYCLOAK_ALLOW_INSECURE_REQUESTS: 'true',
    };
    expect(loadConfig(env, NO_FILE).auth.providers[0]?.issuerUrl).to.equal('http://127.0.0.1:8080/realms/staff');
  });
});
