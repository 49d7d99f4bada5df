import type { Knex } from 'knex';
import { databaseDialectOf } from '../src/db/dialects/index.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

const MIGRATIONS_TABLE = 'svc_migrations';
const LOCK_NAME = 'svc_migrations';
const LOCK_KEY = 74_220_551; // any constant: the pg advisory lock id of the migrator

/**
 * Brings the catalogue's system tables up to date and returns the versions it applied.
 * Safe to run from several instances at once: PostgreSQL takes an advisory lock and
 * MySQL/MariaDB a named lock, so one migrates and the others then find nothing to do.
 * PostgreSQL and SQLite apply each migration in one transaction; MySQL cannot roll back
 * DDL, so a failed migration there is reported and left for an operator.
 */
export async function migrate(db: Knex, migrations: readonly Migration[] = MIGRATIONS): Promise<string[]> {
  const dialect = databaseDialectOf(db);
  return db.transaction((trx) =>
    dialect.withMigrationLock(trx, { name: LOCK_NAME, key: LOCK_KEY }, () => applyPending(trx, migrations)),
  );
}

/**
 * The versions of `migrations` the database has not applied (all of them before the first
 * migration): what `/server/health` reports when a database is behind the code.
 */
export async function pendingMigrations(
  db: Knex,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<readonly string[]> {
  if (!(await db.schema.hasTable(MIGRATIONS_TABLE))) return migrations.map((m) => m.version);
  const done = new Set((await db(MIGRATIONS_TABLE).select<{ version: string }[]>('version')).map((r) => r.version));
  return migrations.filter((m) => !done.has(m.version)).map((m) => m.version);
}

async function applyPending(db: Knex, migrations: readonly Migration[]): Promise<string[]> {
  await ensureMigrationsTable(db);
  const done = new Set((await db(MIGRATIONS_TABLE).select<{ version: string }[]>('version')).map((r) => r.version));
  const applied: string[] = [];
  for (const migration of migrations) {
    if (done.has(migration.version)) continue;
    await migration.up(db);
    await db(MIGRATIONS_TABLE).insert({ version: migration.version, name: migration.name });
    applied.push(migration.version);
  }
  return applied;
}

async function ensureMigrationsTable(db: Knex): Promise<void> {
  if (await db.schema.hasTable(MIGRATIONS_TABLE)) return;
  await db.schema.createTable(MIGRATIONS_TABLE, (t) => {
    t.string('version', 255).primary().notNullable();
    t.string('name', 255).notNullable();
    t.timestamp('timestamp', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
}
