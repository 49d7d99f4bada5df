import type { Knex } from 'knex';
import { dialectOf } from '../../src/db/index.js';
import { introspectMysql } from './mysql.js';
import { introspectPostgres } from './postgres.js';
import { introspectSqlite } from './sqlite.js';
import type { RawSchema } from './types.js';

export type { RawColumn, RawForeignKey, RawSchema, RawTable } from './types.js';
export { parseSqlDefault, type ColumnDefault } from './defaults.js';

/**
 * The connected database's tables, columns, primary keys, single-column unique keys and
 * single-column foreign keys, read with a fixed set of queries per dialect (never one per
 * table). Nothing of the catalogue's metadata is applied here.
 */
export function introspect(db: Knex): Promise<RawSchema> {
  switch (dialectOf(db)) {
    case 'pg':
      return introspectPostgres(db);
    case 'mysql':
      return introspectMysql(db);
    case 'sqlite3':
      return introspectSqlite(db);
  }
}

/**
 * The plain (not unique) single-column indexes on `table.column` as the database has them
 * now, read the same way as for the overview. A schema change reads them after its own adds:
 * MariaDB silently drops the index it made for a foreign key once another index serves the key.
 */
export async function readIndexNames(db: Knex, table: string, column: string): Promise<readonly string[]> {
  const { tables } = await introspect(db);
  return tables.find((t) => t.name === table)?.columns.find((c) => c.name === column)?.indexNames ?? [];
}
