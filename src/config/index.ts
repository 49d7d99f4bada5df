import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { readCacheConfig, type CacheConfig } from './cache.js';
import { readCorsConfig, type CorsConfig } from './cors.js';
import { readDbConfig, type DbConfig } from './database.js';
import { readEmailConfig, type EmailConfig } from './email.js';
import { ConfigError, EnvReader, readFalseOrString } from './env-reader.js';
import { readFilesConfig, type FilesConfig } from './files.js';
import { readFlowsConfig, type FlowsConfig } from './flows.js';
import { readHashConfig, type HashConfig } from './hashing.js';
import { readJobsConfig, readRetentionConfig, type JobsConfig, type RetentionConfig } from './jobs.js';
import { readRateLimitsConfig, type RateLimitsConfig } from './rate-limits.js';
import { readRedisConfig, type RedisConfig } from './redis.js';
import { readTokensConfig, type TokensConfig } from './tokens.js';
import { readTrustedProxies, type TrustedProxies } from './trusted-proxies.js';
import { readWebsocketsConfig, type WebsocketsConfig } from './websockets.js';

export { ConfigError } from './env-reader.js';
export type { DbConfig } from './database.js';
export type { EmailConfig } from './email.js';
export { DEFAULT_IMPORT_IP_DENY_LIST } from './files.js';
export type { RedisConfig, RedisSentinelConfig } from './redis.js';
export type { AuthDriver, AuthProviderConfig } from './auth-providers.js';
export type { S3LocationConfig, StorageDriverName, StorageLocationConfig } from './storage-locations.js';
export type { ReplicaConfig } from './replicas.js';
export type { AssetsTransformConfig } from './assets-transform.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The one typed, validated configuration object. Only `loadConfig` reads the environment; each
 * area's part is read (and documented) in its own file beside this one.
 */
export interface Config extends TokensConfig, RateLimitsConfig, FilesConfig {
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
  readonly hash: HashConfig;
  readonly admin: {
    readonly email: string | undefined;
    readonly password: string | undefined;
    readonly token: string | undefined;
  };
  readonly cors: CorsConfig;
  readonly cache: CacheConfig;
  readonly jobs: JobsConfig;
  /** node:http's requestTimeout (REQUEST_TIMEOUT): the whole request, body included; 0: none. */
  readonly requestTimeoutMs: number;
  readonly shutdownTimeoutMs: number;
  /** SHUTDOWN_DRAIN_DELAY: on SIGTERM, serving on (health `draining`) before the listener closes. */
  readonly shutdownDrainDelayMs: number;
  readonly retention: RetentionConfig;
  /** FLOWS_*: limits of flows' runs (src/flows). */
  readonly flows: FlowsConfig;
  readonly extensions: ExtensionsConfig;
}

/** EXTENSIONS_PATH and what extensions read as their `env` (src/extensions/). */
interface ExtensionsConfig {
  /** The folder of hook and endpoint extensions loaded at start (a missing folder: none). */
  readonly path: string;
  /** The environment as the service read it (`.env` file and process), given to extensions as Directus does. */
  readonly env: Readonly<Record<string, string>>;
  /** EXTENSIONS_SANDBOX_MEMORY (MB) and EXTENSIONS_SANDBOX_TIMEOUT (ms): one call of a sandboxed extension. */
  readonly sandboxMemoryMb: number;
  readonly sandboxTimeoutMs: number;
}

export interface LoadConfigOptions {
  /** Where the `.env` file is looked for when CONFIG_PATH is unset. */
  readonly defaultConfigPath?: string;
  /** Told the name of every variable read (the settings table's test: src/config/settings.ts). */
  readonly onRead?: (name: string) => void;
}

/**
 * Reads and validates the configuration. Values in the process
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
    ...readTokensConfig(env, secret),
    email: readEmailConfig(env),
    ipTrustProxy: readTrustedProxies(env),
    ipCustomHeader: readFalseOrString(env, 'IP_CUSTOM_HEADER'),
    authUserCacheTtlMs: env.duration('AUTH_USER_CACHE_TTL', '1s'),
    hash: readHashConfig(env),
    admin: {
      email: env.string('ADMIN_EMAIL'),
      password: env.string('ADMIN_PASSWORD'),
      token: env.string('ADMIN_TOKEN'),
    },
    cors: readCorsConfig(env),
    ...readRateLimitsConfig(env),
    cache: readCacheConfig(env),
    ...readFilesConfig(env),
    jobs: readJobsConfig(env),
    requestTimeoutMs: env.duration('REQUEST_TIMEOUT', '1h'),
    shutdownTimeoutMs: env.duration('SHUTDOWN_TIMEOUT', '10s'),
    shutdownDrainDelayMs: env.duration('SHUTDOWN_DRAIN_DELAY', '0s'),
    retention: readRetentionConfig(env),
    flows: readFlowsConfig(env),
    extensions: {
      path: env.string('EXTENSIONS_PATH', './extensions'),
      env: env.entries(),
      sandboxMemoryMb: env.int('EXTENSIONS_SANDBOX_MEMORY', 100, { min: 8 }),
      sandboxTimeoutMs: env.duration('EXTENSIONS_SANDBOX_TIMEOUT', 1000),
    },
  } satisfies Config;
  assertRedisStores(config);
  assertNoKnownDefaults(env, config);
  if (config.ipCustomHeader !== false && config.ipTrustProxy === false) {
    // Anyone could name their own address in it: only a trusted proxy's value counts.
    throw new ConfigError('IP_CUSTOM_HEADER', 'needs IP_TRUST_PROXY (the proxies that set it)');
  }
  return Object.freeze(config);
}

/**
 * Example values from docker-compose.yml and the docs (anything starting with `change-me`): a
 * SECRET or ADMIN_PASSWORD everyone can read would sign anyone's tokens or let anyone in as
 * the administrator, so they are refused unless NODE_ENV=development.
 */
const KNOWN_DEFAULT = /^change-?me/i;

function assertNoKnownDefaults(env: EnvReader, config: Config): void {
  if (env.string('NODE_ENV') === 'development') return;
  if (!config.isSecretGenerated && KNOWN_DEFAULT.test(config.secret)) {
    throw new ConfigError(
      'SECRET',
      'is an example value everyone knows: set it to a long random string (e.g. `openssl rand -base64 32`), or NODE_ENV=development to try the example',
    );
  }
  if (config.admin.password !== undefined && KNOWN_DEFAULT.test(config.admin.password)) {
    throw new ConfigError(
      'ADMIN_PASSWORD',
      'is an example value everyone knows: set a password of your own, or leave it unset to have one generated and printed once',
    );
  }
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

/** ROOT_REDIRECT: `./admin` (the web console) by default, as in Directus; `false`: GET / is 404. */
function readRootRedirect(env: EnvReader): string | false {
  return readFalseOrString(env, 'ROOT_REDIRECT', './admin');
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
