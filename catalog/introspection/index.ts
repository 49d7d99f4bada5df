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
