import { ConfigError, type EnvReader } from './env-reader.js';

/**
 * The drivers AUTH_<NAME>_DRIVER may name, with their defaults and the endpoints each requires
 * or accepts (AUTH_<NAME>_<ENDPOINT>; the others are not read): a new driver is a line here and its file under auth/providers/,
 * registered by the line of the same name there (provider-clients.ts; the compiler asks for it).
 */
const AUTH_DRIVERS = {
  oauth2: {
    scope: 'email',
    identifierKey: 'email',
    endpoints: ['AUTHORIZE_URL', 'ACCESS_URL', 'PROFILE_URL'],
    // The `iss` an authorization response must carry (default: the authorize URL's origin).
    optional: ['ISSUER_URL'],
  },
  openid: { scope: 'openid profile email', identifierKey: 'sub', endpoints: ['ISSUER_URL'], optional: [] },
} as const;
export type AuthDriver = keyof typeof AUTH_DRIVERS;
type Endpoint = 'ISSUER_URL' | 'AUTHORIZE_URL' | 'ACCESS_URL' | 'PROFILE_URL';

/** One entry of AUTH_PROVIDERS: its AUTH_<NAME>_* settings, read and checked at start. */
export interface AuthProviderConfig {
  readonly name: string;
  readonly driver: AuthDriver;
  readonly icon: string | undefined;
  readonly label: string | undefined;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Space-separated scopes asked for (oauth2 `email`, openid `openid profile email`). */
  readonly scope: string;
  /**
   * openid: the issuer (its discovery document is read at the first login). oauth2: optional,
   * the `iss` an authorization response must carry (default: the authorize URL's origin).
   */
  readonly issuerUrl: string | undefined;
  /** oauth2: the authorization, token and profile endpoints. */
  readonly authorizeUrl: string | undefined;
  readonly accessUrl: string | undefined;
  readonly profileUrl: string | undefined;
  /** Extra authorization request parameters (AUTH_<NAME>_PARAMS, a JSON object of strings). */
  readonly params: Readonly<Record<string, string>>;
  /** Profile (or ID token) keys: external_identifier, email, first and last name. */
  readonly identifierKey: string;
  readonly emailKey: string;
  readonly firstNameKey: string | undefined;
  readonly lastNameKey: string | undefined;
  /** Create unknown users (of defaultRoleId, or a mapped role). */
  readonly allowPublicRegistration: boolean;
  readonly defaultRoleId: string | undefined;
  /** AUTH_<NAME>_GROUP_CLAIM_NAME: the claim whose values ROLE_MAPPING maps (default `groups`). */
  readonly groupClaimName: string;
  /** AUTH_<NAME>_ROLE_MAPPING: a claim value → role id (JSON object); the first match wins. */
  readonly roleMapping: Readonly<Record<string, string>>;
  /**
   * AUTH_<NAME>_LINK_VERIFIED_EMAIL: a first login whose e-mail (said verified by the
   * provider, `email_verified: true`) belongs to an existing user of no other provider
   * links that user to the provider. Off by default: a matching e-mail alone never links.
   */
  readonly linkVerifiedEmail: boolean;
  /** Where `?redirect=` may lead after login (origin and path must match an entry). */
  readonly redirectAllowList: readonly string[];
  /** How the callback hands the session back when a redirect was asked for (AUTH_<NAME>_MODE). */
  readonly mode: 'cookie' | 'session';
  /** AUTH_<NAME>_ALLOW_INSECURE_REQUESTS: accept http:// provider URLs (local providers only). */
  readonly allowInsecureRequests: boolean;
}

// Names end up in paths (/auth/login/<name>) and variable names (AUTH_<NAME>_*).
const NAME_PATTERN = /^[A-Za-z0-9_-]+$/;

/**
 * AUTH_PROVIDERS and each provider's AUTH_<NAME>_*.
 * A provider that could never log anyone in (missing client or endpoints, a relative or
 * plain-http URL, bad JSON) stops the start with a ConfigError naming the variable.
 */
export function readAuthProviders(env: EnvReader, publicUrl: string): AuthProviderConfig[] {
  const names = env.list('AUTH_PROVIDERS');
  if (names.length > 0 && !isAbsoluteUrl(publicUrl)) {
    throw new ConfigError(
      'PUBLIC_URL',
      `must be an absolute URL when AUTH_PROVIDERS is set (the SSO callback is built from it), got "${publicUrl}"`,
    );
  }
  const seen = new Set<string>();
  return names.map((name) => {
    if (!NAME_PATTERN.test(name))
      throw new ConfigError('AUTH_PROVIDERS', `names letters, digits, "_" and "-" only, got "${name}"`);
    if (seen.has(name.toLowerCase())) throw new ConfigError('AUTH_PROVIDERS', `names "${name}" twice`);
    seen.add(name.toLowerCase());
    return readProvider(env, name);
  });
}

function readProvider(env: EnvReader, name: string): AuthProviderConfig {
  const prefix = `AUTH_${name.toUpperCase().replace(/-/g, '_')}`;
  const required = (key: string): string => {
    const value = env.string(`${prefix}_${key}`);
    if (value === undefined) throw new ConfigError(`${prefix}_${key}`, `is required for provider "${name}"`);
    return value;
  };
  const driver = required('DRIVER');
  if (!Object.hasOwn(AUTH_DRIVERS, driver)) {
    throw new ConfigError(
      `${prefix}_DRIVER`,
      `must be one of ${Object.keys(AUTH_DRIVERS).join(', ')}, got "${driver}"`,
    );
  }
  const defaults = AUTH_DRIVERS[driver as AuthDriver];
  const allowInsecureRequests = env.bool(`${prefix}_ALLOW_INSECURE_REQUESTS`, false);
  const endpoint = (key: Endpoint): string | undefined => {
    const is = (list: readonly Endpoint[]) => list.includes(key);
    const value = is(defaults.endpoints)
      ? required(key)
      : is(defaults.optional)
        ? env.string(`${prefix}_${key}`)
        : undefined;
    return value === undefined ? undefined : providerUrl(prefix, key, value, allowInsecureRequests);
  };
  const roleMapping = readStringMap(env, `${prefix}_ROLE_MAPPING`);
  return {
    name,
    driver: driver as AuthDriver,
    icon: env.string(`${prefix}_ICON`),
    label: env.string(`${prefix}_LABEL`),
    clientId: required('CLIENT_ID'),
    clientSecret: required('CLIENT_SECRET'),
    scope: env.string(`${prefix}_SCOPE`, defaults.scope),
    issuerUrl: endpoint('ISSUER_URL'),
    authorizeUrl: endpoint('AUTHORIZE_URL'),
    accessUrl: endpoint('ACCESS_URL'),
    profileUrl: endpoint('PROFILE_URL'),
    params: readStringMap(env, `${prefix}_PARAMS`),
    identifierKey: env.string(`${prefix}_IDENTIFIER_KEY`, defaults.identifierKey),
    emailKey: env.string(`${prefix}_EMAIL_KEY`, 'email'),
    firstNameKey: env.string(`${prefix}_FIRST_NAME_KEY`),
    lastNameKey: env.string(`${prefix}_LAST_NAME_KEY`),
    allowPublicRegistration: env.bool(`${prefix}_ALLOW_PUBLIC_REGISTRATION`, false),
    defaultRoleId: env.string(`${prefix}_DEFAULT_ROLE_ID`),
    groupClaimName: env.string(`${prefix}_GROUP_CLAIM_NAME`, 'groups'),
    roleMapping,
    linkVerifiedEmail: env.bool(`${prefix}_LINK_VERIFIED_EMAIL`, false),
    redirectAllowList: env.list(`${prefix}_REDIRECT_ALLOW_LIST`).map((url) => {
      if (!isAbsoluteUrl(url))
        throw new ConfigError(`${prefix}_REDIRECT_ALLOW_LIST`, `must list absolute URLs, got "${url}"`);
      return url;
    }),
    mode: env.oneOf(`${prefix}_MODE`, ['cookie', 'session'] as const, 'cookie'),
    allowInsecureRequests,
  };
}

function providerUrl(prefix: string, key: string, value: string, allowInsecure: boolean): string {
  const variable = `${prefix}_${key}`;
  if (!isAbsoluteUrl(value)) throw new ConfigError(variable, `must be an absolute URL, got "${value}"`);
  const { protocol } = new URL(value);
  if (protocol === 'https:' || (protocol === 'http:' && allowInsecure)) return value;
  throw new ConfigError(
    variable,
    `must be an https:// URL (http:// only with ${prefix}_ALLOW_INSECURE_REQUESTS=true), got "${value}"`,
  );
}

/** A JSON object of strings (`json:` prefix accepted); {} when unset. */
function readStringMap(env: EnvReader, variable: string): Record<string, string> {
  const text = env.string(variable);
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text.startsWith('json:') ? text.slice(5) : text);
  } catch {
    throw new ConfigError(variable, 'must be a JSON object');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ConfigError(variable, 'must be a JSON object');
  const entries: [string, string][] = [];
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v !== 'string') throw new ConfigError(variable, `must map to strings, "${key}" does not`);
    entries.push([key, v]);
  }
  return Object.fromEntries(entries);
}

function isAbsoluteUrl(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}
