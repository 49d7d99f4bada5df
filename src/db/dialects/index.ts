import type { Knex } from 'knex';
import type { DbClient } from '../../db-client.js';
import { dialectOf } from '../index.js';
import { mysqlDatabase } from './mysql.js';
import { postgresDatabase } from './postgres.js';
import { sqliteDatabase } from './sqlite.js';
import type { DatabaseDialect, DriverError, Vendor } from './types.js';

export type {
  BadInput,
  DatabaseDialect,
  DriverError,
  NumberTarget,
  StatementTarget,
  TableBuilder,
  Vendor,
} from './types.js';

const DIALECTS: Readonly<Record<DbClient, DatabaseDialect>> = {
  pg: postgresDatabase,
  mysql: mysqlDatabase,
  sqlite3: sqliteDatabase,
};

/** The database dialect of a DB_CLIENT. */
export function databaseDialect(client: DbClient): DatabaseDialect {
  return DIALECTS[client];
}

/** The database dialect of an open knex instance (or transaction). */
export function databaseDialectOf(db: Knex | Knex.Transaction): DatabaseDialect {
  return DIALECTS[dialectOf(db as Knex)];
}

/** The dialect a schema snapshot was taken on, or undefined for a vendor this service does not run on. */
export function dialectOfVendor(vendor: unknown): DatabaseDialect | undefined {
  return Object.values(DIALECTS).find((dialect: DatabaseDialect) => dialect.vendor === (vendor as Vendor));
}

/**
 * The driver's own error: objection's queries (db/models) hand on a driver error wrapped by
 * db-errors, with the driver's code only on `nativeError`; anything else is its own.
 */
export function driverErrorOf(error: object): DriverError {
  const native = (error as { readonly nativeError?: unknown }).nativeError;
  return typeof native === 'object' && native !== null ? native : error;
}
