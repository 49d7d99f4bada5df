import knex, { type Knex } from 'knex';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/**
 * The databases and services integration suites run against. SQLite always; PostgreSQL,
 * MariaDB and Redis when reachable (defaults: the machine's local services; override with
 * TEST_PG_*, TEST_MYSQL_*, TEST_REDIS_URL). With REQUIRE_SERVICES=1 an unreachable one fails.
 */
export const REQUIRE_SERVICES = process.env['REQUIRE_SERVICES'] === '1';

export type DialectName = 'sqlite' | 'postgres' | 'mariadb';

/** A fresh, empty database for one suite; `env` configures the service for it. */
export interface TestDatabase {
  readonly dialect: DialectName;
  readonly env: Readonly<Record<string, string>>;
  drop(): Promise<void>;
}

export interface DatabaseTarget {
  readonly dialect: DialectName;
  /** Why it cannot be used, or undefined when it can. */
  unavailable(): Promise<string | undefined>;
  create(): Promise<TestDatabase>;
}

const pg = {
  host: process.env['TEST_PG_HOST'] ?? '127.0.0.1',
  port: Number(process.env['TEST_PG_PORT'] ?? 5432),
  user: process.env['TEST_PG_USER'] ?? 'root',
  password: process.env['TEST_PG_PASSWORD'] ?? '',
  database: process.env['TEST_PG_DATABASE'] ?? 'postgres',
};

const mysql = {
  host: process.env['TEST_MYSQL_HOST'] ?? '127.0.0.1',
  port: Number(process.env['TEST_MYSQL_PORT'] ?? 3306),
  user: process.env['TEST_MYSQL_USER'] ?? 'root',
  password: process.env['TEST_MYSQL_PASSWORD'] ?? '',
};

export const TEST_REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

function uniqueName(): string {
  return `svc_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

function memo<T>(fn: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => (promise ??= fn());
}

async function probe(label: string, connect: () => Promise<void>): Promise<string | undefined> {
  try {
    await connect();
    return undefined;
  } catch (error) {
    return `${label} is not reachable (${(error as Error).message})`;
  }
}

function pgAdmin(): Knex {
  return knex({ client: 'pg', connection: { ...pg, connectionTimeoutMillis: 3000 }, pool: { min: 0, max: 1 } });
}

function mysqlAdmin(): Knex {
  return knex({ client: 'mysql2', connection: { ...mysql, connectTimeout: 3000 }, pool: { min: 0, max: 1 } });
}

async function withAdmin(open: () => Knex, run: (db: Knex) => Promise<unknown>): Promise<void> {
  const db = open();
  try {
    await run(db);
  } finally {
    await db.destroy();
  }
}

export const sqliteTarget: DatabaseTarget = {
  dialect: 'sqlite',
  unavailable: () => Promise.resolve(undefined),
  create() {
    const file = join(tmpdir(), `${uniqueName()}.sqlite`);
    return Promise.resolve({
      dialect: 'sqlite',
      env: { DB_CLIENT: 'sqlite3', DB_FILENAME: file },
      async drop() {
        await Promise.all(['', '-wal', '-shm'].map((suffix) => rm(file + suffix, { force: true })));
      },
    });
  },
};

export const postgresTarget: DatabaseTarget = {
  dialect: 'postgres',
  unavailable: memo(() =>
    probe(`PostgreSQL at ${pg.host}:${pg.port}`, () => withAdmin(pgAdmin, (db) => db.raw('SELECT 1'))),
  ),
  async create() {
    const name = uniqueName();
    await withAdmin(pgAdmin, (db) => db.raw('CREATE DATABASE ??', [name]));
    return {
      dialect: 'postgres',
      env: {
        DB_CLIENT: 'pg',
        DB_HOST: pg.host,
        DB_PORT: String(pg.port),
        DB_USER: pg.user,
        DB_PASSWORD: pg.password,
        DB_DATABASE: name,
      },
      drop: () => withAdmin(pgAdmin, (db) => db.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [name])),
    };
  },
};

export const mariadbTarget: DatabaseTarget = {
  dialect: 'mariadb',
  unavailable: memo(() =>
    probe(`MariaDB at ${mysql.host}:${mysql.port}`, () => withAdmin(mysqlAdmin, (db) => db.raw('SELECT 1'))),
  ),
  async create() {
    const name = uniqueName();
    await withAdmin(mysqlAdmin, (db) =>
      db.raw('CREATE DATABASE ?? CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci', [name]),
    );
    return {
      dialect: 'mariadb',
      env: {
        DB_CLIENT: 'mysql',
        DB_HOST: mysql.host,
        DB_PORT: String(mysql.port),
        DB_USER: mysql.user,
        DB_PASSWORD: mysql.password,
        DB_DATABASE: name,
      },
      drop: () => withAdmin(mysqlAdmin, (db) => db.raw('DROP DATABASE IF EXISTS ??', [name])),
    };
  },
};

export const DATABASE_TARGETS: readonly DatabaseTarget[] = [sqliteTarget, postgresTarget, mariadbTarget];

/** Why Redis cannot be used, or undefined when it can. */
export const redisUnavailable = memo(() =>
  probe(`Redis at ${TEST_REDIS_URL}`, async () => {
    const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, connectTimeout: 3000, maxRetriesPerRequest: 0 });
    try {
      await redis.connect();
      await redis.ping();
    } finally {
      redis.disconnect();
    }
  }),
);

/**
 * Call from a `before` hook: skips the suite (with the reason) when the service is missing,
 * or fails it when REQUIRE_SERVICES=1.
 */
export function requireOrSkip(ctx: Mocha.Context, reason: string | undefined): void {
  if (reason === undefined) return;
  if (REQUIRE_SERVICES) throw new Error(`REQUIRE_SERVICES=1 but ${reason}`);
  console.warn(`      skipped: ${reason}`);
  ctx.skip();
}
