import type { DbClient } from '../../db-client.js';
import type { Dialect } from './dialect.js';
import { mysqlDialect } from './mysql/mysql-dialect.js';
import { pgDialect } from './pg/pg-dialect.js';
import { sqliteDialect } from './sqlite/sqlite-dialect.js';

const DIALECTS: Readonly<Record<DbClient, Dialect>> = {
  pg: pgDialect,
  mysql: mysqlDialect,
  sqlite3: sqliteDialect,
};

/** The compiler dialect of a DB_CLIENT. */
export function dialectFor(client: DbClient): Dialect {
  return DIALECTS[client];
}
