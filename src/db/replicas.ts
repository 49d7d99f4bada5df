import type { Knex } from 'knex';
import type { DbConfig, ReplicaConfig } from '../config/index.js';

/** Where replica events are said: a replica gone (once per outage) and back. */
export interface ReplicaLog {
  warn(message: string): void;
  info(message: string): void;
}

/** How long a replica that could not be reached is left out before it is tried again. */
const RETRY_DOWN_MS = 5000;
/** A replica that does not accept a connection within this is taken as down. */
const CONNECT_TIMEOUT_MS = 2000;
/** Read-your-writes entries are swept of expired ones when there are more than this. */
const SWEEP_ABOVE = 1000;

interface Replica {
  readonly name: string;
  readonly db: Knex;
  /** Until when it is left out (0: in use). */
  downUntil: number;
  isDown: boolean;
}

/** The replicas of one primary and who wrote lately. */
class ReplicaRouter {
  private next = 0;
  private readonly recentWriters = new Map<string, number>();

  constructor(
    private readonly replicas: readonly Replica[],
    private readonly readYourWritesMs: number,
  ) {}

  pick(caller: string | undefined): Knex | undefined {
    const now = Date.now();
    if (caller !== undefined) {
      const until = this.recentWriters.get(caller);
      if (until !== undefined) {
        if (until > now) return undefined;
        this.recentWriters.delete(caller);
      }
    }
    for (let tried = 0; tried < this.replicas.length; tried += 1) {
      const replica = this.replicas[this.next++ % this.replicas.length];
      if (replica !== undefined && replica.downUntil <= now) return replica.db;
    }
    return undefined;
  }

  wrote(caller: string | undefined): void {
    if (caller === undefined || this.readYourWritesMs <= 0) return;
    const now = Date.now();
    if (this.recentWriters.size > SWEEP_ABOVE)
      for (const [key, until] of this.recentWriters) if (until <= now) this.recentWriters.delete(key);
    this.recentWriters.set(caller, now + this.readYourWritesMs);
  }

  destroy(): Promise<unknown> {
    return Promise.all(this.replicas.map((replica) => replica.db.destroy()));
  }
}

const ROUTERS = new WeakMap<Knex, ReplicaRouter>();
/** SQLite: the read-only connections of a primary's file. */
const READERS = new WeakMap<Knex, Knex>();

/**
 * The database a read goes to when it need not see writes other than its caller's own: a
 * replica (round-robin over those up), or the primary when there is none, when `caller` wrote
 * within DB_REPLICA_READ_YOUR_WRITES, or when every replica is down. `caller` names who
 * reads (a user, or an anonymous caller's address); undefined has no window.
 * Writes, reads inside a write, schema introspection and permission loads use the primary
 * itself and never call this.
 */
export function readDatabase(primary: Knex, caller: string | undefined): Knex {
  return ROUTERS.get(primary)?.pick(caller) ?? primary;
}

/**
 * Where a read that must see every committed write goes (the users behind tokens, permissions,
 * the schema): SQLite's read-only connections ({@link attachReaders}), which see each commit at
 * once, else the primary itself (a replica may lag behind it).
 */
export function committedReadDatabase(primary: Knex): Knex {
  return READERS.get(primary) ?? primary;
}

/** `caller` wrote through `primary`: its reads stay on the primary for the read-your-writes window. */
export function noteWrite(primary: Knex, caller: string | undefined): void {
  ROUTERS.get(primary)?.wrote(caller);
}

/**
 * Opens DB_REPLICA_* next to `primary` (`open` makes a knex of a config, createDatabase).
 * A replica's knex falls back to the primary's pool when no connection to the replica can be
 * made, so a read already sent to a replica that went down still succeeds; the replica is
 * then left out for a few seconds, said once per outage; a statement the replica cannot run
 * yet for want of the primary's latest schema runs on the primary. Destroying the primary
 * destroys them.
 */
export function attachReplicas(
  primary: Knex,
  config: DbConfig,
  open: (config: DbConfig, connectTimeoutMs: number) => Knex,
  log: ReplicaLog | undefined,
): void {
  const replication = config.replication;
  if (replication === undefined || replication.replicas.length === 0) return;
  const replicas = replication.replicas.map((replica) => {
    const db = open(replicaConfig(config, replica), CONNECT_TIMEOUT_MS);
    const state: Replica = { name: `${replica.host}:${replica.port}`, db, downUntil: 0, isDown: false };
    fallBackToPrimary(state, primary, log);
    retryBehindOnPrimary(state, primary);
    return state;
  });
  route(primary, new ReplicaRouter(replicas, replication.readYourWritesMs));
}

/**
 * SQLite: `readers`, read-only connections to the primary's file, take the reads. The file has
 * one writer, the primary's one connection; a read waiting for it while a long write holds it
 * (an import of a million rows) would wait until the write commits. In WAL mode a reader reads
 * the last committed state meanwhile, and sees each commit at once: no read-your-writes window.
 * The readers' statements are also the primary's `query` events.
 */
export function attachReaders(primary: Knex, name: string, readers: Knex, log: ReplicaLog | undefined): void {
  const state: Replica = { name, db: readers, downUntil: 0, isDown: false };
  fallBackToPrimary(state, primary, log);
  route(primary, new ReplicaRouter([state], 0));
  READERS.set(primary, readers);
  // One file, one place to watch its statements: the readers' are told on the primary too.
  for (const event of ['query', 'query-error', 'query-response'])
    readers.on(event, (...args: unknown[]) => primary.emit(event, ...args));
}

/** `router` picks the database of `primary`'s reads; destroying the primary destroys its databases. */
function route(primary: Knex, router: ReplicaRouter): void {
  ROUTERS.set(primary, router);
  const client = primary.client as { destroy(callback?: unknown): Promise<void> };
  const destroy = client.destroy.bind(client);
  client.destroy = async (callback?: unknown) => {
    await router.destroy();
    return destroy(callback);
  };
}

function replicaConfig(primary: DbConfig, replica: ReplicaConfig): DbConfig {
  return {
    ...primary,
    host: replica.host,
    port: replica.port,
    user: replica.user,
    password: replica.password,
    database: replica.database,
    connectionString: undefined,
    replication: undefined,
  };
}

interface PoolClient {
  acquireConnection(): Promise<object>;
  releaseConnection(connection: object): Promise<void>;
  query(connection: object, query: QueryParam): Promise<unknown>;
}

type QueryParam = string | { sql: string; bindings?: readonly unknown[] };

/**
 * PostgreSQL errors of a replica behind the primary's schema (a table, column, function or
 * schema the overview, read from the primary, already has) or cancelled by replay (40001).
 */
const REPLICA_BEHIND = new Set(['42P01', '42703', '42883', '42704', '3F000', '40001']);

/**
 * A statement that fails on the replica because it has not replayed the primary's schema
 * yet runs again on the primary (outside a transaction; knex rewrites the query object it
 * is given, so each run gets its own copy).
 */
function retryBehindOnPrimary(replica: Replica, primary: Knex): void {
  const client = replica.db.client as PoolClient;
  const primaryClient = primary.client as PoolClient;
  // Called below with the calling client as `this` (a transaction's client derives from it).
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const query = client.query;
  client.query = async function (this: PoolClient & { transacting?: boolean }, connection, param) {
    const copy = typeof param === 'string' ? param : { ...param };
    try {
      return await query.call(this, connection, copy);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (this.transacting === true || typeof code !== 'string' || !REPLICA_BEHIND.has(code)) throw error;
      const onPrimary = await primaryClient.acquireConnection();
      try {
        return await primaryClient.query(onPrimary, param);
      } finally {
        await primaryClient.releaseConnection(onPrimary);
      }
    }
  };
}

/** The replica's connections come from the primary's pool while it cannot be reached. */
function fallBackToPrimary(replica: Replica, primary: Knex, log: ReplicaLog | undefined): void {
  const client = replica.db.client as PoolClient;
  const primaryClient = primary.client as PoolClient;
  const acquire = client.acquireConnection.bind(client);
  const release = client.releaseConnection.bind(client);
  const borrowed = new WeakSet<object>();
  client.acquireConnection = async () => {
    if (replica.downUntil <= Date.now()) {
      try {
        const connection = await acquire();
        if (replica.isDown) {
          replica.isDown = false;
          log?.info(`Database replica ${replica.name} answers again; reads go to it`);
        }
        return connection;
      } catch (error) {
        replica.downUntil = Date.now() + RETRY_DOWN_MS;
        if (!replica.isDown) {
          replica.isDown = true;
          const reason = error instanceof Error ? error.message : String(error);
          log?.warn(`Database replica ${replica.name} cannot be reached (${reason}); its reads go to the primary`);
        }
      }
    }
    const connection = await primaryClient.acquireConnection();
    borrowed.add(connection);
    return connection;
  };
  client.releaseConnection = (connection) => {
    if (!borrowed.delete(connection)) return release(connection);
    return primaryClient.releaseConnection(connection);
  };
}

/**
 * The read-your-writes key of a caller: its user, or for a caller without one its address;
 * undefined when neither is known.
 */
export function replicaCaller(who: { readonly user: string | null; readonly ip: string | null }): string | undefined {
  if (who.user !== null) return `user:${who.user}`;
  return who.ip === null ? undefined : `ip:${who.ip}`;
}
