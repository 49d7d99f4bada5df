import { ConfigError, type EnvReader } from './env-reader.js';
import { readReplicasConfig, type ReplicasConfig } from './replicas.js';
import { DB_CLIENTS, type DbClient } from '../db-client.js';

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
  /**
   * DB_PREPARED_STATEMENTS (pg): false keeps every statement valid on any server connection
   * (unnamed statements, no `SET search_path` per connection), for PgBouncer's transaction
   * pooling. Unset (a config built by hand): true.
   */
  readonly preparedStatements?: boolean;
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

/** DB_*: the database connection; pg and mysql need DB_DATABASE or DB_CONNECTION_STRING. */
export function readDbConfig(env: EnvReader): DbConfig {
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
    preparedStatements: env.bool('DB_PREPARED_STATEMENTS', true),
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
  if (client === 'pg' && config.preparedStatements === false && config.searchPath.join(',') !== 'public') {
    // Set per connection, it would hold only on the server connections that ran the SET.
    throw new ConfigError(
      'DB_SEARCH_PATH',
      'cannot be set per connection with DB_PREPARED_STATEMENTS=false (a pooler shares server connections): set it on the role instead (ALTER ROLE ... SET search_path) and leave DB_SEARCH_PATH unset',
    );
  }
  return config;
}
