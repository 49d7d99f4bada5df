import type { Knex } from 'knex';
import type { DbClient } from '../../db-client.js';
import { dialectOf } from '../index.js';
import { mysql } from './mysql/index.js';
import { postgres } from './postgres/index.js';
import { sqlite } from './sqlite/index.js';
import type { Dialect, DriverError, Vendor } from './types.js';

export type {
  BadInput,
  DatabaseDialect,
  Dialect,
  DriverError,
  NumberTarget,
  StatementTarget,
  TableBuilder,
  Vendor,
} from './types.js';

/** The one registry of databases: a new one is a folder beside these and a line here. */
const DIALECTS: Readonly<Record<DbClient, Dialect>> = {
  pg: postgres,
  mysql,
  sqlite3: sqlite,
};

/** The dialect of a DB_CLIENT. */
export function databaseDialect(client: DbClient): Dialect {
  return DIALECTS[client];
}

/** The dialect of an open knex instance (or transaction). */
export function databaseDialectOf(db: Knex | Knex.Transaction): Dialect {
  return DIALECTS[dialectOf(db as Knex)];
}

/** The dialect a schema snapshot was taken on, or undefined for a vendor this service does not run on. */
export function dialectOfVendor(vendor: unknown): Dialect | undefined {
  return Object.values(DIALECTS).find((dialect: Dialect) => dialect.vendor === (vendor as Vendor));
}

/**
 * The driver's own error: objection's queries (db/models) hand on a driver error wrapped by
 * db-errors, with the driver's code only on `nativeError`; anything else is its own.
 */
export function driverErrorOf(error: object): DriverError {
  const native = (error as { readonly nativeError?: unknown }).nativeError;
  return typeof native === 'object' && native !== null ? native : error;
}
