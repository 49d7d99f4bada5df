import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import knex, { type Knex } from 'knex';
import type { DbConfig } from '../config/index.js';
import type { DbClient } from '../db-client.js';
import { attachReaders, attachReplicas } from './replicas.js';

export type { Knex } from 'knex';

/** The knex driver behind each DB_CLIENT value. */
const KNEX_CLIENT: Record<DbClient, string> = {
  sqlite3: 'better-sqlite3',
  pg: 'pg',
  mysql: 'mysql2',
};

/** Where knex's own messages go (the service's logger); without it knex prints to the console. */
export interface DatabaseLog {
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

/**
 * Opens the configured database through knex. SQLite gets its folder created, foreign keys
 * enforced and WAL journaling, and a file (not `:memory:`) read-only connections for reads
 * beside its one writing connection; MySQL/MariaDB talk UTC and keep big numbers exact.
 * PostgreSQL with DB_REPLICA_HOST also opens its read replicas (replicas.ts).
 */
export function createDatabase(db: DbConfig, log?: DatabaseLog): Knex {
  const primary = openDatabase(db, log);
  if (db.client === 'pg')
    attachReplicas(primary, db, (replica, connectTimeoutMs) => openDatabase(replica, log, connectTimeoutMs), log);
  if (db.client === 'sqlite3' && db.filename !== ':memory:')
    attachReaders(primary, `${db.filename} (read-only)`, openSqlite(db, log, SQLITE_READERS, true), log);
  return primary;
}

/** The read-only connections of a SQLite file: opened as reads need them (after migrations). */
const SQLITE_READERS = { min: 0, max: 4 };

function openDatabase(db: DbConfig, log: DatabaseLog | undefined, connectTimeoutMs?: number): Knex {
  const pool = withoutUndefined({ min: db.pool.min, max: db.pool.max });
  const base = log === undefined ? {} : { log: knexLog(log) };
  switch (db.client) {
    case 'sqlite3':
      if (db.filename !== ':memory:') mkdirSync(dirname(db.filename), { recursive: true });
      return openSqlite(db, log, pool, false);
    case 'pg': {
      const pg = knex({
        ...base,
        client: KNEX_CLIENT.pg,
        connection:
          db.connectionString ??
          withoutUndefined({
            host: db.host ?? '127.0.0.1',
            port: db.port ?? 5432,
            database: db.database,
            user: db.user,
            password: db.password,
            ssl: tlsOptions(db),
            connectionTimeoutMillis: connectTimeoutMs,
          }),
        // knex sets it with a SET on each new connection: session state a pooler would leak.
        ...(db.preparedStatements === false ? {} : { searchPath: [...db.searchPath] }),
        pool,
      });
      if (db.preparedStatements === false) UNNAMED.add((pg.client as Knex.Client).config);
      return pg;
    }
    case 'mysql':
      return knex({
        ...base,
        client: KNEX_CLIENT.mysql,
        pool: {
          ...pool,
          // Nested reads aggregate JSON_ARRAYAGG, which MariaDB silently cuts at
          // group_concat_max_len (1 MB by default); TIMESTAMP columns read and write in UTC; a
          // given key 0 is stored as 0, as on PostgreSQL and SQLite, not taken as "generate one"
          // (the answer and the journal would name 0 while the row got the next key).
          afterCreate(conn: MysqlConnection, done: (err: Error | null, conn: unknown) => void) {
            conn.query(
              "SET SESSION group_concat_max_len = 4294967295, time_zone = '+00:00', sql_mode = CONCAT_WS(',', @@sql_mode, 'NO_AUTO_VALUE_ON_ZERO')",
              (err) => {
                done(err, conn);
              },
            );
          },
        },
        connection: withoutUndefined({
          host: db.host ?? '127.0.0.1',
          port: db.port ?? 3306,
          database: db.database,
          user: db.user,
          password: db.password,
          ssl: tlsOptions(db),
          timezone: 'Z',
          supportBigNumbers: true,
          bigNumberStrings: true,
          charset: 'utf8mb4',
        }),
      });
  }
}

/**
 * A SQLite file through knex: the connection that writes (knex's pool of one unless
 * DB_POOL__* says otherwise), which sets foreign keys and WAL journaling (the file keeps it),
 * or `readonly`, connections that only read.
 */
function openSqlite(
  db: DbConfig,
  log: DatabaseLog | undefined,
  pool: { min?: number; max?: number },
  readonly: boolean,
): Knex {
  return knex({
    ...(log === undefined ? {} : { log: knexLog(log) }),
    client: KNEX_CLIENT.sqlite3,
    connection: { filename: db.filename, options: { readonly } },
    useNullAsDefault: true,
    pool: {
      ...pool,
      afterCreate(conn: { pragma(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
        if (!readonly) {
          conn.pragma('foreign_keys = ON');
          conn.pragma('journal_mode = WAL');
        }
        conn.pragma('busy_timeout = 5000');
        done(null, conn);
      },
    },
  });
}

/**
 * knex's messages through `log`. A failed connection attempt is also thrown to the caller
 * (and said in one line at start, db/connection-failure.ts), so its stack is debug only.
 */
function knexLog(log: DatabaseLog): Knex.Logger {
  const text = (message: unknown) => (typeof message === 'string' ? message : String(message));
  return {
    warn: (message: unknown) => {
      if (text(message).startsWith('Acquire connection error')) log.debug(text(message));
      else log.warn(text(message));
    },
    error: (message: unknown) => {
      log.warn(text(message));
    },
    deprecate: (message: unknown) => {
      log.warn(text(message));
    },
    debug: (message: unknown) => {
      log.debug(text(message));
    },
  };
}

/** DB_SSL*: the TLS options both drivers take (a CA given replaces the system's). */
function tlsOptions(db: DbConfig): { rejectUnauthorized: boolean; ca?: string } | undefined {
  if (db.ssl === undefined) return undefined;
  return db.ssl.ca === undefined
    ? { rejectUnauthorized: db.ssl.rejectUnauthorized }
    : { rejectUnauthorized: db.ssl.rejectUnauthorized, ca: db.ssl.ca };
}

interface MysqlConnection {
  query(sql: string, callback: (err: Error | null) => void): void;
}

/** The knex configurations (shared by their transactions) opened with DB_PREPARED_STATEMENTS=false. */
const UNNAMED = new WeakSet<object>();

/**
 * Whether statements on `db` (or a transaction of it) may be prepared by name: not with
 * DB_PREPARED_STATEMENTS=false, where the next statement may reach a server connection
 * (PgBouncer in transaction pooling) that never prepared the name.
 */
function namedStatementsAllowed(db: Knex): boolean {
  return !UNNAMED.has((db.client as Knex.Client).config);
}

/** Distinct statement texts prepared by name at most, per process (each connection keeps its own). */
const MAX_PREPARED = 500;

/** A statement prepared by name: its name, and its text with PostgreSQL's `$1` placeholders. */
interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}
const preparedStatements = new Map<string, PreparedStatement | null>();

/**
 * PostgreSQL: the name to run `sql` under as a prepared statement, so each connection parses
 * and plans it once (a cheap read spends a fifth of its time there: bench/README.md), and its
 * text with its placeholders numbered as knex numbers them, worked out once per text (knex's
 * scan numbers none in it again). Only for statements whose result columns never change with
 * the schema (PostgreSQL refuses a cached plan whose result type changed): a JSON read's one
 * text column, a write's key, count and JSON text. The first MAX_PREPARED distinct texts get
 * names; later ones run unnamed, so what connections keep stays bounded whatever queries
 * clients invent. Undefined (unnamed) as well when {@link namedStatementsAllowed} says no, and
 * for a text with a `?` that is not a placeholder (`\\?`), which knex would number once more.
 */
function preparedStatement(db: Knex, sql: string): PreparedStatement | undefined {
  if (!namedStatementsAllowed(db)) return undefined;
  let prepared = preparedStatements.get(sql);
  if (prepared === undefined && preparedStatements.size < MAX_PREPARED) {
    const text = (db.client as StatementClient).positionBindings(sql);
    prepared = text.includes('?') ? null : { name: `s${createHash('sha1').update(sql).digest('hex')}`, text };
    preparedStatements.set(sql, prepared);
  }
  return prepared ?? undefined;
}

/** The part of knex's client (or a transaction's) that runs one statement on a connection. */
interface StatementClient {
  positionBindings(sql: string): string;
  acquireConnection(): Promise<object>;
  releaseConnection(connection: object): Promise<unknown>;
  query(
    connection: object,
    statement: { method: 'raw'; sql: string; bindings: unknown[]; options: { name?: string } },
  ): Promise<{ response: unknown }>;
}

/**
 * PostgreSQL: runs `sql` (`?` placeholders) with its values as the statement named by
 * {@link preparedStatement}, through knex's client as a raw statement runs: a connection
 * of the pool or the transaction, the `query` event, a refused statement's text in front of
 * the driver's message, and whatever wraps them (http/traffic.ts, replicas.ts). Knex's raw
 * builder and runner are left out: they scan the text for placeholders once more on each run
 * and allocate per statement, some tenth of a single write's CPU. Answers pg's result.
 */
export async function queryPrepared(
  db: Knex,
  sql: string,
  values: readonly unknown[],
): Promise<{ readonly rows: Record<string, unknown>[] }> {
  const prepared = preparedStatement(db, sql);
  const client = db.client as StatementClient;
  const connection = await client.acquireConnection();
  try {
    // knex writes the placeholders' positions into the object it is given: a copy of its own.
    const statement = {
      method: 'raw' as const,
      sql: prepared?.text ?? sql,
      bindings: values as unknown[],
      options: prepared === undefined ? {} : { name: prepared.name },
    };
    const { response } = await client.query(connection, statement);
    return response as { rows: Record<string, unknown>[] };
  } finally {
    await client.releaseConnection(connection);
  }
}

/** The dialect of an open knex instance, in DB_CLIENT terms. */
export function dialectOf(db: Knex): DbClient {
  const client = (db.client as Knex.Client).config.client as string;
  if (client === 'pg' || client === 'postgres' || client === 'postgresql') return 'pg';
  if (client === 'mysql' || client === 'mysql2') return 'mysql';
  return 'sqlite3';
}

/**
 * Runs the queries side by side on the pool, one after another on a transaction: its one
 * connection runs them in turn anyway, and pg deprecates queueing a query on a busy client
 * (`DeprecationWarning: Calling client.query() when the client is already executing a query`).
 */
export async function queryAll<T extends readonly unknown[]>(
  db: Knex,
  queries: { readonly [K in keyof T]: () => PromiseLike<T[K]> },
): Promise<T> {
  if (db.isTransaction !== true) return (await Promise.all(queries.map((query) => query()))) as unknown as T;
  const results: unknown[] = [];
  for (const query of queries) results.push(await query());
  return results as unknown as T;
}

type WithoutUndefined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** Drops unset keys, so drivers see their own defaults (exactOptionalPropertyTypes). */
function withoutUndefined<T extends object>(value: T): WithoutUndefined<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as WithoutUndefined<T>;
}
