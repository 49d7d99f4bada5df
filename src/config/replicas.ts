import { ConfigError, type EnvReader } from './env-reader.js';

/** One PostgreSQL streaming replica reads may go to. */
export interface ReplicaConfig {
  readonly host: string;
  readonly port: number;
  readonly user: string | undefined;
  readonly password: string | undefined;
  readonly database: string | undefined;
}

export interface ReplicasConfig {
  /** Empty: every read goes to the primary. */
  readonly replicas: readonly ReplicaConfig[];
  /** DB_REPLICA_READ_YOUR_WRITES: how long after a caller's write its reads stay on the primary. */
  readonly readYourWritesMs: number;
}

/**
 * DB_REPLICA_HOST (comma list, one entry per replica) and DB_REPLICA_PORT / _USER /
 * _PASSWORD / _DATABASE: one value for all replicas, or a comma list of the same length.
 * Unset user, password and database are the primary's. PostgreSQL only.
 */
export function readReplicasConfig(env: EnvReader, client: string): ReplicasConfig {
  const primary = { user: env.string('DB_USER'), password: env.string('DB_PASSWORD') };
  const primaryDatabase = env.string('DB_DATABASE');
  const readYourWritesMs = env.duration('DB_REPLICA_READ_YOUR_WRITES', '5s');
  const hosts = env.list('DB_REPLICA_HOST');
  const each = (name: string): (string | undefined)[] => {
    // A password may hold commas: a single value is taken whole.
    const raw = env.raw(name);
    if (raw === undefined) return hosts.map(() => undefined);
    const values = name === 'DB_REPLICA_PASSWORD' && hosts.length === 1 ? [raw] : raw.split(',');
    if (values.length === 1) return hosts.map(() => values[0]);
    if (values.length !== hosts.length)
      throw new ConfigError(
        name,
        `lists ${values.length} values for ${hosts.length} replica hosts (give one or one each)`,
      );
    return values;
  };
  const ports = each('DB_REPLICA_PORT');
  const users = each('DB_REPLICA_USER');
  const passwords = each('DB_REPLICA_PASSWORD');
  const databases = each('DB_REPLICA_DATABASE');
  if (hosts.length === 0) return { replicas: [], readYourWritesMs };
  if (client !== 'pg') throw new ConfigError('DB_REPLICA_HOST', 'is for PostgreSQL (DB_CLIENT=pg) only');
  const replicas = hosts.map((host, i): ReplicaConfig => {
    const port = Number(ports[i]?.trim() ?? 5432);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new ConfigError('DB_REPLICA_PORT', `must be a port number (1-65535), got "${ports[i] ?? ''}"`);
    return {
      host,
      port,
      user: users[i]?.trim() ?? primary.user,
      password: passwords[i] ?? primary.password,
      database: databases[i]?.trim() ?? primaryDatabase,
    };
  });
  return { replicas, readYourWritesMs };
}
