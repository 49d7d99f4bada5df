import type { Knex } from 'knex';
import type { DbClient } from '../../src/db-client.js';
import { dialectOf } from '../../src/db/index.js';
import { introspectMysql } from './mysql.js';
import { introspectPostgres } from './postgres.js';
import { introspectSqlite } from './sqlite.js';
import { NO_KEYS, type ColumnKeys } from './column-keys.js';
import type { RawSchema } from './types.js';

export type { RawColumn, RawForeignKey, RawSchema, RawTable, RawUniqueKey } from './types.js';
export type { ColumnKeys } from './column-keys.js';
export { parseSqlDefault } from './defaults.js';

/** The query set of each database, found by its client. */
const INTROSPECTORS: Readonly<Record<DbClient, (db: Knex) => Promise<RawSchema>>> = {
  pg: introspectPostgres,
  mysql: introspectMysql,
  sqlite3: introspectSqlite,
};

/**
 * The connected database's tables, columns, primary keys, single-column unique keys and
 * single-column foreign keys, read with a fixed set of queries per dialect (never one per
 * table). Nothing of the catalogue's metadata is applied here.
 */
export function introspect(db: Knex): Promise<RawSchema> {
  return INTROSPECTORS[dialectOf(db)](db);
}

/**
 * The keys of `table.column` as the database has them now, read the same way as for the
 * overview: its plain indexes' names and its unique keys (by name and kind), whoever made
 * them. A schema change reads them after its own adds: MariaDB silently drops the index it
 * made for a foreign key once another index serves the key.
 */
export async function readColumnKeys(db: Knex, table: string, column: string): Promise<ColumnKeys> {
  const { tables } = await introspect(db);
  const found = tables.find((t) => t.name === table)?.columns.find((c) => c.name === column);
  return found ?? NO_KEYS;
}
