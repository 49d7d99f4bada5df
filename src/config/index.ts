import { existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { parseEnv } from 'node:util';
import { readAuthProviders, type AuthProviderConfig } from './auth-providers.js';
import { ConfigError, EnvReader } from './env-reader.js';
import { readAssetsTransformConfig, type AssetsTransformConfig } from './assets-transform.js';
import { readReplicasConfig, type ReplicasConfig } from './replicas.js';
import { readStorageLocations, type StorageConfig } from './storage-locations.js';
import { readTrustedProxies, type TrustedProxies } from './trusted-proxies.js';
import { readWebsocketsConfig, type WebsocketsConfig } from './websockets.js';

export { ConfigError } from './env-reader.js';

export const DB_CLIENTS = ['sqlite3', 'pg', 'mysql'] as const;
export type DbClient = (typeof DB_CLIENTS)[number];

export { AUTH_DRIVERS, type AuthDriver, type AuthProviderConfig } from './auth-providers.js';
export type { S3LocationConfig, StorageConfig, StorageLocationConfig } from './storage-locations.js';

/** EMAIL_TRANSPORT values this build can send with (reference/config.md lists more). */
export const EMAIL_TRANSPORTS = ['sendmail', 'smtp'] as const;
export type EmailTransport = (typeof EMAIL_TRANSPORTS)[number];

export interface EmailConfig {
  readonly from: string;
  readonly transport: EmailTransport;
  /** Check the transport at boot (a failure is logged, not fatal). */
  readonly verifySetup: boolean;
  readonly sendmail: { readonly newline: 'unix' | 'windows'; readonly path: string };
  readonly smtp: {
    readonly host: string | undefined;
    readonly port: number | undefined;
    readonly user: string | undefined;
    readonly password: string | undefined;
    readonly pool: boolean;
    readonly secure: boolean;
    readonly ignoreTls: boolean;
    readonly name: string | undefined;
  };
}

export type { TrustedProxies };
export type { ReplicaConfig, ReplicasConfig } from './replicas.js';
export type { AssetsTransformConfig } from './assets-transform.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface DbConfig {
  readonly client: DbClient;
  /** sqlite3: the database file. */
  readonly filename: string;
  readonly host: string | undefined;
  readonly port: number | undefined;
  readonly database: string | undefined;
  readonly user: string | undefined;
  readonly password: string | undefined;
  readonly connectionString: string | undefined;
  readonly searchPath: readonly string[];
  readonly pool: { readonly min: number | undefined; readonly max: number | undefined };
  readonly excludeTables: readonly string[];
  readonly healthcheckThresholdMs: number;
  /** DB_SSL, DB_SSL__REJECT_UNAUTHORIZED, DB_SSL__CA (pg and mysql); undefined: no TLS. */
  readonly ssl?: { readonly rejectUnauthorized: boolean; readonly ca: string | undefined } | undefined;
  /** DB_CONNECT_WAIT: how long a start waits for a database that is not up yet (0: not at all). */
  readonly connectWaitMs: number;
  /** DB_REPLICA_*: PostgreSQL streaming replicas for reads (config/replicas.ts). */
  readonly replication?: ReplicasConfig | undefined;
}

/**
 * IMPORT_IP_DENY_LIST default: every local interface, loopback, the private, shared and
 * link-local ranges and the cloud metadata addresses, so /files/import cannot reach into the
 * service's own network ([DEVIATION] wider than the convention's `0.0.0.0,169.254.169.254`).
 */
export const DEFAULT_IMPORT_IP_DENY_LIST = [
  '0.0.0.0',
  '0.0.0.0/8',
  '127.0.0.0/8',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  '169.254.0.0/16',
  '169.254.169.254',
  '::',
  '::1',
  'fc00::/7',
  'fe80::/10',
  'fd00:ec2::254',
] as const;

export interface RedisConfig {
  /** A redis:// URL; undefined means no Redis (memory caches, in-process jobs). */
  readonly url: string | undefined;
  /** REDIS_COMMAND_TIMEOUT: a command unanswered this long fails (and what needed it degrades). */
  readonly commandTimeoutMs: number;
}

/** The one typed, validated configuration object. Only `loadConfig` reads the environment. */
export interface Config {
  readonly host: string;
  readonly port: number;
  readonly publicUrl: string;
  readonly logLevel: LogLevel;
  readonly logStyle: 'pretty' | 'raw';
  readonly maxPayloadSize: number;
  readonly maxRelationalDepth: number;
  readonly queryLimitDefault: number;
  readonly queryLimitMax: number;
  readonly maxBatchMutation: number;
  readonly robotsTxt: string;
  readonly rootRedirect: string | false;
  readonly tempPath: string;
  readonly graphqlIntrospection: boolean;
  /** GRAPHQL_QUERY_TOKEN_LIMIT: the most tokens a GraphQL document may have. */
  readonly graphqlQueryTokenLimit: number;
  /** GRAPHQL_QUERY_COST_LIMIT: the most rows one GraphQL operation may ask for (graphql/query-cost.ts). */
  readonly graphqlQueryCostLimit: number;
  /** GRAPHQL_QUERY_ALIAS_LIMIT: the most aliased fields one GraphQL operation may have. */
  readonly graphqlQueryAliasLimit: number;
  readonly db: DbConfig;
  readonly redis: RedisConfig;
  readonly websockets: WebsocketsConfig;
  /** METRICS_ENABLED / METRICS_TOKENS: Prometheus metrics at /server/metrics (http/metrics.ts). */
  readonly metrics: { readonly enabled: boolean; readonly tokens: readonly string[] };
  readonly key: string;
  readonly secret: string;
  /** True when SECRET was generated at boot: tokens die on restart. */
  readonly isSecretGenerated: boolean;
  readonly accessTokenTtlMs: number;
  readonly refreshTokenTtlMs: number;
  readonly refreshTokenCookie: {
    readonly name: string;
    readonly domain: string | undefined;
    readonly secure: boolean;
    readonly sameSite: 'lax' | 'strict' | 'none';
  };
  readonly sessionCookie: {
    readonly name: string;
    readonly ttlMs: number;
    readonly domain: string | undefined;
    readonly secure: boolean;
    readonly sameSite: 'lax' | 'strict' | 'none';
  };
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
  readonly email: EmailConfig;
  /**
   * IP_TRUST_PROXY: which proxies in front of the service may name the client in
   * X-Forwarded-For: none (false, the default), a number of hops (`true` is one hop), or a list
   * of proxy addresses and CIDR ranges (http/client-ip.ts).
   */
  readonly ipTrustProxy: TrustedProxies;
  /** IP_CUSTOM_HEADER: a header a trusted proxy sets to the client's address; false: none. */
  readonly ipCustomHeader: string | false;
  /**
   * AUTH_USER_CACHE_TTL (ours): how long an instance keeps what it read of a token's user
   * (status, role, role flags, ip_access) before reading it again; changes made through the
   * service are forgotten at once on every instance anyway (data invalidation).
   */
  readonly authUserCacheTtlMs: number;
  readonly admin: {
    readonly email: string | undefined;
    readonly password: string | undefined;
    readonly token: string | undefined;
  };
  readonly cors: {
    readonly enabled: boolean;
    readonly origin: boolean | readonly string[];
    readonly methods: readonly string[];
    readonly allowedHeaders: readonly string[];
    readonly exposedHeaders: readonly string[];
    readonly credentials: boolean;
    readonly maxAgeSeconds: number;
  };
  /**
   * The general rate limiter (reference/auth.md, Rate limiting): RATE_LIMITER_* per client IP,
   * RATE_LIMITER_GLOBAL_* for all requests together; counters in RATE_LIMITER_STORE.
   */
  readonly rateLimiter: {
    readonly enabled: boolean;
    readonly points: number;
    readonly durationSeconds: number;
    readonly store: 'memory' | 'redis';
    /**
     * RATE_LIMITER_REDIS_FALLBACK, while the Redis store fails: `memory` counts in this process,
     * `open` lets requests through uncounted, `closed` answers 503 SERVICE_UNAVAILABLE.
     */
    readonly redisFallback: 'memory' | 'open' | 'closed';
    readonly global: { readonly enabled: boolean; readonly points: number; readonly durationSeconds: number };
  };
  /**
   * Failed logins allowed per (account, IP) within the duration before 429 (an addition of
   * ours, named like RATE_LIMITER_REGISTRATION_*). Counters live in Redis when REDIS is set.
   */
  readonly loginRateLimiter: {
    readonly enabled: boolean;
    readonly points: number;
    readonly durationSeconds: number;
  };
  /** POST /users/register attempts allowed per IP within the duration before 429. */
  readonly registrationRateLimiter: {
    readonly enabled: boolean;
    readonly points: number;
    readonly durationSeconds: number;
  };
  readonly cache: {
    readonly enabled: boolean;
    readonly store: 'memory' | 'redis';
    readonly ttlMs: number;
    readonly namespace: string;
    readonly autoPurge: boolean;
    /** CACHE_AUTO_PURGE_IGNORE_LIST: writes to these collections leave the data cache alone. */
    readonly autoPurgeIgnoreList: readonly string[];
    /** CACHE_CONTROL_S_MAXAGE: `s-maxage` of cacheable responses; true = the TTL, false = none. */
    readonly controlSMaxAge: number | boolean;
    /** CACHE_SKIP_ALLOWED: a request's `Cache-Control: no-store` bypasses the data cache. */
    readonly skipAllowed: boolean;
    /** CACHE_VALUE_MAX_SIZE: bigger response bodies are not cached (undefined: no limit). */
    readonly valueMaxSize: number | undefined;
    /** CACHE_MEMORY_MAX_SIZE (ours): total body bytes the memory store keeps, least recently used out first. */
    readonly memoryMaxSize: number;
    readonly schema: boolean;
    /** CACHE_PERMISSIONS: compiled permission rules kept per (role, schema version). */
    readonly permissions: boolean;
  };
  readonly storage: StorageConfig;
  /** FILES_MIME_TYPE_ALLOW_LIST: exact types (`application/pdf`) or a type with any subtype (`image` + `/` + `*`). */
  readonly mimeTypeAllowList: readonly string[];
  readonly assetsCacheTtlMs: number;
  readonly assetsTransform: AssetsTransformConfig;
  /** IMPORT_IP_DENY_LIST: addresses and CIDR ranges /files/import refuses; `0.0.0.0` = every local interface. */
  readonly importIpDenyList: readonly string[];
  readonly exportBatchSize: number;
  /**
   * EXPORT_CSV_ESCAPE_FORMULAS: csv exports put `'` before a text cell starting with `=`, `+`,
   * `-`, `@`, tab or carriage return, so a spreadsheet shows it instead of running it (OWASP).
   */
  readonly exportCsvEscapeFormulas: boolean;
  /** Background jobs (exports): bull settings with Redis, the in-process runner without. */
  readonly jobs: {
    /** Tries of a failing job before it is given up. */
    readonly attempts: number;
    /** A worker holds a job's lock this long between renewals; a dead worker's job is retried after it. */
    readonly lockDurationMs: number;
    /** How often workers look for jobs whose worker died. */
    readonly stalledIntervalMs: number;
    /** Jobs one worker process runs at once. */
    readonly concurrency: number;
  };
  readonly shutdownTimeoutMs: number;
  /**
   * Issue 18, retention: svc_activity rows (ACTIVITY_RETENTION) and svc_revisions rows
   * (REVISIONS_RETENTION) older than these durations are deleted by a background pruner every
   * RETENTION_INTERVAL, RETENTION_BATCH_SIZE rows per statement; null (unset) keeps them forever.
   */
  readonly retention: {
    readonly activityMs: number | null;
    readonly revisionsMs: number | null;
    readonly intervalMs: number;
    readonly batchSize: number;
  };
}

export interface LoadConfigOptions {
  /** Where the `.env` file is looked for when CONFIG_PATH is unset. */
  readonly defaultConfigPath?: string;
  /** Told the name of every variable read (the settings table's test: src/config/settings.ts). */
  readonly onRead?: (name: string) => void;
}

/**
 * Reads and validates the configuration (reference/config.md). Values in the process
 * environment win over the `.env` file at CONFIG_PATH. Throws ConfigError naming the
 * offending variable.
 */
export function loadConfig(
  processEnv: Readonly<Record<string, string | undefined>>,
  options: LoadConfigOptions = {},
): Config {
  options.onRead?.('CONFIG_PATH');
  const configPath = processEnv['CONFIG_PATH'] ?? options.defaultConfigPath ?? './.env';
  const fileEnv = readEnvFile(configPath, processEnv['CONFIG_PATH'] !== undefined);
  const env = new EnvReader({ ...fileEnv, ...processEnv }, options.onRead);

  const secret = env.string('SECRET');
  const cookieSameSite = ['lax', 'strict', 'none'] as const;

  const config = {
    host: env.string('HOST', '0.0.0.0'),
    port: env.int('PORT', 8055, { min: 0, max: 65535 }),
    publicUrl: env.string('PUBLIC_URL', '/'),
    logLevel: env.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    logStyle: env.oneOf('LOG_STYLE', ['pretty', 'raw'] as const, 'pretty'),
    maxPayloadSize: env.size('MAX_PAYLOAD_SIZE', '1mb'),
    maxRelationalDepth: env.int('MAX_RELATIONAL_DEPTH', 10, { min: 2 }),
    queryLimitDefault: env.int('QUERY_LIMIT_DEFAULT', 100, { min: 1 }),
    queryLimitMax: env.limit('QUERY_LIMIT_MAX', Infinity, 1),
    maxBatchMutation: env.limit('MAX_BATCH_MUTATION', Infinity, 1),
    robotsTxt: env.string('ROBOTS_TXT', 'User-agent: *\nDisallow: /'),
    rootRedirect: readRootRedirect(env),
    tempPath: env.string('TEMP_PATH', './data/tmp'),
    graphqlIntrospection: env.bool('GRAPHQL_INTROSPECTION', true),
    graphqlQueryTokenLimit: env.int('GRAPHQL_QUERY_TOKEN_LIMIT', 5000, { min: 1 }),
    graphqlQueryCostLimit: env.limit('GRAPHQL_QUERY_COST_LIMIT', 250_000, 1),
    graphqlQueryAliasLimit: env.limit('GRAPHQL_QUERY_ALIAS_LIMIT', 100, 0),
    db: readDbConfig(env),
    redis: readRedisConfig(env),
    websockets: readWebsocketsConfig(env),
    metrics: { enabled: env.bool('METRICS_ENABLED', false), tokens: env.list('METRICS_TOKENS') },
    key: env.string('KEY') ?? randomBytes(16).toString('hex'),
    secret: secret ?? randomBytes(32).toString('base64url'),
    isSecretGenerated: secret === undefined,
    accessTokenTtlMs: env.duration('ACCESS_TOKEN_TTL', '15m'),
    refreshTokenTtlMs: env.duration('REFRESH_TOKEN_TTL', '7d'),
    refreshTokenCookie: {
      name: env.string('REFRESH_TOKEN_COOKIE_NAME', 'svc_refresh_token'),
      domain: env.string('REFRESH_TOKEN_COOKIE_DOMAIN'),
      secure: env.bool('REFRESH_TOKEN_COOKIE_SECURE', true),
      sameSite: env.oneOf('REFRESH_TOKEN_COOKIE_SAME_SITE', cookieSameSite, 'lax'),
    },
    sessionCookie: {
      name: env.string('SESSION_COOKIE_NAME', 'svc_session_token'),
      ttlMs: env.duration('SESSION_COOKIE_TTL', '1d'),
      domain: env.string('SESSION_COOKIE_DOMAIN'),
      secure: env.bool('SESSION_COOKIE_SECURE', false),
      sameSite: env.oneOf('SESSION_COOKIE_SAME_SITE', cookieSameSite, 'lax'),
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
    email: readEmailConfig(env),
    ipTrustProxy: readTrustedProxies(env),
    ipCustomHeader: readFalseOrString(env, 'IP_CUSTOM_HEADER'),
    authUserCacheTtlMs: env.duration('AUTH_USER_CACHE_TTL', '1s'),
    admin: {
      email: env.string('ADMIN_EMAIL'),
      password: env.string('ADMIN_PASSWORD'),
      token: env.string('ADMIN_TOKEN'),
    },
    cors: {
      enabled: env.bool('CORS_ENABLED', false),
      origin: readCorsOrigin(env),
      methods: env.list('CORS_METHODS', ['GET', 'POST', 'PATCH', 'DELETE']),
      allowedHeaders: env.list('CORS_ALLOWED_HEADERS', ['Content-Type', 'Authorization']),
      exposedHeaders: env.list('CORS_EXPOSED_HEADERS', ['Content-Range']),
      credentials: env.bool('CORS_CREDENTIALS', true),
      maxAgeSeconds: env.int('CORS_MAX_AGE', 18000, { min: 0 }),
    },
    rateLimiter: {
      enabled: env.bool('RATE_LIMITER_ENABLED', false),
      points: env.int('RATE_LIMITER_POINTS', 50, { min: 1 }),
      durationSeconds: env.int('RATE_LIMITER_DURATION', 1, { min: 1 }),
      store: env.oneOf('RATE_LIMITER_STORE', ['memory', 'redis'] as const, 'memory'),
      redisFallback: env.oneOf('RATE_LIMITER_REDIS_FALLBACK', ['memory', 'open', 'closed'] as const, 'memory'),
      global: {
        enabled: env.bool('RATE_LIMITER_GLOBAL_ENABLED', false),
        points: env.int('RATE_LIMITER_GLOBAL_POINTS', 1000, { min: 1 }),
        durationSeconds: env.int('RATE_LIMITER_GLOBAL_DURATION', 1, { min: 1 }),
      },
    },
    loginRateLimiter: {
      enabled: env.bool('RATE_LIMITER_LOGIN_ENABLED', true),
      points: env.int('RATE_LIMITER_LOGIN_POINTS', 10, { min: 1 }),
      durationSeconds: env.int('RATE_LIMITER_LOGIN_DURATION', 900, { min: 1 }),
    },
    registrationRateLimiter: {
      enabled: env.bool('RATE_LIMITER_REGISTRATION_ENABLED', true),
      points: env.int('RATE_LIMITER_REGISTRATION_POINTS', 5, { min: 1 }),
      durationSeconds: env.int('RATE_LIMITER_REGISTRATION_DURATION', 60, { min: 1 }),
    },
    cache: {
      enabled: env.bool('CACHE_ENABLED', false),
      store: env.oneOf('CACHE_STORE', ['memory', 'redis'] as const, 'memory'),
      ttlMs: env.duration('CACHE_TTL', '5m'),
      namespace: env.string('CACHE_NAMESPACE', 'system-cache'),
      autoPurge: env.bool('CACHE_AUTO_PURGE', false),
      autoPurgeIgnoreList: env.list('CACHE_AUTO_PURGE_IGNORE_LIST', ['svc_activity', 'svc_presets']),
      controlSMaxAge: readSMaxAge(env),
      skipAllowed: env.bool('CACHE_SKIP_ALLOWED', false),
      valueMaxSize:
        readFalseOrString(env, 'CACHE_VALUE_MAX_SIZE') === false ? undefined : env.size('CACHE_VALUE_MAX_SIZE', '0'),
      memoryMaxSize: env.size('CACHE_MEMORY_MAX_SIZE', '64mb'),
      schema: env.bool('CACHE_SCHEMA', true),
      permissions: env.bool('CACHE_PERMISSIONS', true),
    },
    storage: readStorageConfig(env),
    mimeTypeAllowList: env.list('FILES_MIME_TYPE_ALLOW_LIST', ['*/*']),
    assetsCacheTtlMs: env.duration('ASSETS_CACHE_TTL', '30d'),
    assetsTransform: readAssetsTransformConfig(env),
    importIpDenyList: env.list('IMPORT_IP_DENY_LIST', DEFAULT_IMPORT_IP_DENY_LIST),
    exportBatchSize: env.int('EXPORT_BATCH_SIZE', 5000, { min: 1 }),
    exportCsvEscapeFormulas: env.bool('EXPORT_CSV_ESCAPE_FORMULAS', true),
    jobs: {
      attempts: env.int('JOBS_ATTEMPTS', 3, { min: 1 }),
      lockDurationMs: env.duration('JOBS_LOCK_DURATION', '30s'),
      stalledIntervalMs: env.duration('JOBS_STALLED_INTERVAL', '30s'),
      concurrency: env.int('JOBS_CONCURRENCY', 1, { min: 1 }),
    },
    shutdownTimeoutMs: env.duration('SHUTDOWN_TIMEOUT', '10s'),
    retention: {
      activityMs: env.raw('ACTIVITY_RETENTION') === undefined ? null : env.duration('ACTIVITY_RETENTION', 0),
      revisionsMs: env.raw('REVISIONS_RETENTION') === undefined ? null : env.duration('REVISIONS_RETENTION', 0),
      intervalMs: env.duration('RETENTION_INTERVAL', '1h'),
      batchSize: env.int('RETENTION_BATCH_SIZE', 1000, { min: 1 }),
    },
  } satisfies Config;
  assertRedisStores(config);
  if (config.ipCustomHeader !== false && config.ipTrustProxy === false) {
    // Anyone could name their own address in it: only a trusted proxy's value counts.
    throw new ConfigError('IP_CUSTOM_HEADER', 'needs IP_TRUST_PROXY (the proxies that set it)');
  }
  return Object.freeze(config);
}

/** A store in Redis needs a Redis to be in; only checked for what is switched on. */
function assertRedisStores(config: Config): void {
  if (config.redis.url !== undefined) return;
  const { rateLimiter, cache } = config;
  if ((rateLimiter.enabled || rateLimiter.global.enabled) && rateLimiter.store === 'redis') {
    throw new ConfigError('RATE_LIMITER_STORE', 'is redis but REDIS is not set');
  }
  if (cache.enabled && cache.store === 'redis') throw new ConfigError('CACHE_STORE', 'is redis but REDIS is not set');
}

function readEnvFile(path: string, isExplicit: boolean): Record<string, string> {
  if (!existsSync(path)) {
    if (isExplicit) throw new ConfigError('CONFIG_PATH', `points to a missing file "${path}"`);
    return {};
  }
  return parseEnv(readFileSync(path, 'utf8')) as Record<string, string>;
}

function readDbConfig(env: EnvReader): DbConfig {
  const client = env.oneOf('DB_CLIENT', DB_CLIENTS, 'sqlite3');
  const config: DbConfig = {
    client,
    filename: env.string('DB_FILENAME', './data/database.sqlite'),
    host: env.string('DB_HOST'),
    port: env.raw('DB_PORT') === undefined ? undefined : env.int('DB_PORT', 0, { min: 1, max: 65535 }),
    database: env.string('DB_DATABASE'),
    user: env.string('DB_USER'),
    password: env.string('DB_PASSWORD'),
    connectionString: env.string('DB_CONNECTION_STRING'),
    searchPath: env.list('DB_SEARCH_PATH', ['public']),
    pool: {
      min: env.raw('DB_POOL__MIN') === undefined ? undefined : env.int('DB_POOL__MIN', 0, { min: 0 }),
      max: env.raw('DB_POOL__MAX') === undefined ? undefined : env.int('DB_POOL__MAX', 0, { min: 1 }),
    },
    excludeTables: env.list('DB_EXCLUDE_TABLES', ['spatial_ref_sys', 'sysdiagrams']),
    healthcheckThresholdMs: env.int('DB_HEALTHCHECK_THRESHOLD', 150, { min: 0 }),
    ssl: env.bool('DB_SSL', false)
      ? { rejectUnauthorized: env.bool('DB_SSL__REJECT_UNAUTHORIZED', true), ca: env.string('DB_SSL__CA') }
      : undefined,
    connectWaitMs: env.duration('DB_CONNECT_WAIT', '60s'),
    replication: readReplicasConfig(env, client),
  };
  if (client !== 'sqlite3' && config.connectionString === undefined && config.database === undefined) {
    throw new ConfigError('DB_DATABASE', `is required when DB_CLIENT is ${client}`);
  }
  return config;
}

function readRedisConfig(env: EnvReader): RedisConfig {
  const commandTimeoutMs = env.duration('REDIS_COMMAND_TIMEOUT', 500);
  if (commandTimeoutMs <= 0) throw new ConfigError('REDIS_COMMAND_TIMEOUT', 'must be longer than 0ms');
  return { url: readRedisUrl(env), commandTimeoutMs };
}

function readRedisUrl(env: EnvReader): string | undefined {
  if (env.raw('REDIS_ENABLED') !== undefined && !env.bool('REDIS_ENABLED', true)) return undefined;
  const url = env.string('REDIS');
  if (url !== undefined) {
    if (!/^rediss?:\/\//.test(url)) throw new ConfigError('REDIS', `must be a redis:// URL, got "${url}"`);
    return url;
  }
  const host = env.string('REDIS_HOST');
  if (host === undefined) return undefined;
  const port = env.int('REDIS_PORT', 6379, { min: 1, max: 65535 });
  const user = env.string('REDIS_USERNAME') ?? '';
  const password = env.string('REDIS_PASSWORD');
  const auth = password === undefined ? '' : `${encodeURIComponent(user)}:${encodeURIComponent(password)}@`;
  return `redis://${auth}${host}:${port}`;
}

function readEmailConfig(env: EnvReader): EmailConfig {
  const transport = env.string('EMAIL_TRANSPORT', 'sendmail');
  if (!(EMAIL_TRANSPORTS as readonly string[]).includes(transport)) {
    throw new ConfigError('EMAIL_TRANSPORT', `"${transport}" is not supported (use ${EMAIL_TRANSPORTS.join(' or ')})`);
  }
  return {
    from: env.string('EMAIL_FROM', 'no-reply@example.com'),
    transport: transport as EmailTransport,
    verifySetup: env.bool('EMAIL_VERIFY_SETUP', true),
    sendmail: {
      newline: env.oneOf('EMAIL_SENDMAIL_NEW_LINE', ['unix', 'windows'] as const, 'unix'),
      path: env.string('EMAIL_SENDMAIL_PATH', '/usr/sbin/sendmail'),
    },
    smtp: {
      host: env.string('EMAIL_SMTP_HOST'),
      port:
        env.raw('EMAIL_SMTP_PORT') === undefined ? undefined : env.int('EMAIL_SMTP_PORT', 0, { min: 1, max: 65535 }),
      user: env.string('EMAIL_SMTP_USER'),
      password: env.string('EMAIL_SMTP_PASSWORD'),
      pool: env.bool('EMAIL_SMTP_POOL', false),
      secure: env.bool('EMAIL_SMTP_SECURE', false),
      ignoreTls: env.bool('EMAIL_SMTP_IGNORE_TLS', false),
      name: env.string('EMAIL_SMTP_NAME'),
    },
  };
}

function readStorageConfig(env: EnvReader): Config['storage'] {
  return { ...readStorageLocations(env), maxUploadSize: readUnlimitedSize(env, 'FILES_MAX_UPLOAD_SIZE') };
}

/** ROOT_REDIRECT: `./admin` (the web console) by default, as in Directus; `false`: GET / is 404. */
function readRootRedirect(env: EnvReader): string | false {
  return readFalseOrString(env, 'ROOT_REDIRECT', './admin');
}

/** CACHE_CONTROL_S_MAXAGE: seconds, or true (the TTL) / false (left out). */
function readSMaxAge(env: EnvReader): number | boolean {
  const value = env.raw('CACHE_CONTROL_S_MAXAGE');
  if (value === 'true' || value === 'false') return value === 'true';
  return env.int('CACHE_CONTROL_S_MAXAGE', 0, { min: 0 });
}

function readFalseOrString(env: EnvReader, name: string, fallback?: string): string | false {
  const value = env.string(name);
  if (value === undefined) return fallback ?? false;
  return value === 'false' ? false : value;
}

function readCorsOrigin(env: EnvReader): boolean | string[] {
  const value = env.string('CORS_ORIGIN');
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  return env.list('CORS_ORIGIN');
}

function readUnlimitedSize(env: EnvReader, name: string): number {
  const value = env.raw(name);
  if (value === undefined || /^(unlimited|infinity)$/i.test(value)) return Infinity;
  return env.size(name, value);
}

/** loadConfig for a process entry point: a ConfigError is printed and the process exits 1. */
export function loadConfigOrExit(processEnv: Readonly<Record<string, string | undefined>>): Config {
  try {
    return loadConfig(processEnv);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
