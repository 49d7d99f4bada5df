import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import openKnex, { type Knex } from 'knex';
import type { DbConfig, DbClient } from '../config/index.js';

export type { Knex } from 'knex';

/** Where knex's own warnings go (pool acquisition failures, deprecations): the app's logger. */
export interface DatabaseLog {
  warn(details: object, message: string): void;
}

/** The knex driver behind each DB_CLIENT value. */
const KNEX_CLIENT: Record<DbClient, string> = {
  sqlite3: 'better-sqlite3',
  pg: 'pg',
  mysql: 'mysql2',
};

/**
 * Opens the configured database through knex. SQLite gets its folder created, foreign keys
 * enforced and WAL journaling; MySQL/MariaDB talk UTC and keep big numbers exact.
 */
export function createDatabase(db: DbConfig, logger?: DatabaseLog): Knex {
  const knex = (config: Knex.Config) => openKnex(logger === undefined ? config : { ...config, log: knexLog(logger) });
  const pool = withoutUndefined({ min: db.pool.min, max: db.pool.max });
  switch (db.client) {
    case 'sqlite3':
      if (db.filename !== ':memory:') mkdirSync(dirname(db.filename), { recursive: true });
      return knex({
        client: KNEX_CLIENT.sqlite3,
        connection: { filename: db.filename },
        useNullAsDefault: true,
        pool: {
          ...pool,
          afterCreate(conn: { pragma(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
            conn.pragma('foreign_keys = ON');
            conn.pragma('journal_mode = WAL');
            conn.pragma('busy_timeout = 5000');
            done(null, conn);
          },
        },
      });
    case 'pg':
      return knex({
        client: KNEX_CLIENT.pg,
        connection:
          db.connectionString ??
          withoutUndefined({
            host: db.host ?? '127.0.0.1',
            port: db.port ?? 5432,
            database: db.database,
            user: db.user,
            password: db.password,
          }),
        searchPath: [...db.searchPath],
        pool,
      });
    case 'mysql':
      return knex({
        client: KNEX_CLIENT.mysql,
        pool: {
          ...pool,
          // Nested reads aggregate JSON_ARRAYAGG, which MariaDB silently cuts at
          // group_concat_max_len (1 MB by default); TIMESTAMP columns read and write in UTC.
          afterCreate(conn: MysqlConnection, done: (err: Error | null, conn: unknown) => void) {
            conn.query("SET SESSION group_concat_max_len = 4294967295, time_zone = '+00:00'", (err) => done(err, conn));
          },
        },
        connection: withoutUndefined({
          host: db.host ?? '127.0.0.1',
          port: db.port ?? 3306,
          database: db.database,
          user: db.user,
          password: db.password,
          timezone: 'Z',
          supportBigNumbers: true,
          bigNumberStrings: true,
          charset: 'utf8mb4',
        }),
      });
  }
}

/** knex logs plain strings (or errors) on the console by default. */
function knexLog(logger: DatabaseLog): NonNullable<Knex.Config['log']> {
  const warn = (message: unknown) => logger.warn({ detail: message instanceof Error ? message.message : String(message) }, 'database driver');
  return { warn, error: warn, deprecate: warn, debug: () => undefined };
}

interface MysqlConnection {
  query(sql: string, callback: (err: Error | null) => void): void;
}

/** The dialect of an open knex instance, in DB_CLIENT terms. */
export function dialectOf(db: Knex): DbClient {
  const client = db.client.config.client as string;
  if (client === 'pg' || client === 'postgres' || client === 'postgresql') return 'pg';
  if (client === 'mysql' || client === 'mysql2') return 'mysql';
  return 'sqlite3';
}

type WithoutUndefined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** Drops unset keys, so drivers see their own defaults (exactOptionalPropertyTypes). */
function withoutUndefined<T extends object>(value: T): WithoutUndefined<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as WithoutUndefined<T>;
}
