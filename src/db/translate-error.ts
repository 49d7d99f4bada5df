import type { DbClient } from '../db-client.js';
import { InvalidPayloadError, InvalidQueryError, ServiceUnavailableError } from '../errors.js';
import {
  databaseDialect,
  driverErrorOf,
  type BadInput,
  type DriverError,
  type StatementTarget,
} from './dialects/index.js';

export type { BadInput, StatementTarget } from './dialects/index.js';

/**
 * Turns a constraint violation reported by the database into the service error of
 * docs/errors.md (RECORD_NOT_UNIQUE, NOT_NULL_VIOLATION, VALUE_TOO_LONG,
 * VALUE_OUT_OF_RANGE, INVALID_FOREIGN_KEY), by SQLSTATE on PostgreSQL, errno on MySQL/MariaDB
 * and the extended result code on SQLite. Other refused values become INVALID_PAYLOAD ({@link translateBadInput}); anything else is returned unchanged.
 */
export function translateDatabaseError(error: unknown, dialect: DbClient, target: StatementTarget): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const translated = databaseDialect(dialect).constraintError(driverErrorOf(error), target);
  return translated ?? translateBadInput(error, dialect, 'write');
}

/** The reasons are fixed words: never the database's message, which may quote SQL, constraint names or other rows' values. */
const BAD_INPUT_REASONS: Readonly<Record<BadInput, string>> = {
  'out of range': 'A numeric value is out of range',
  'wrong form': 'A value is not in the form its field takes',
  'unstorable text': 'A text value contains characters the database cannot store',
  'too large': 'A value is too large for the database',
};

/** The kind of refused value behind a driver error, or undefined for any other failure. */
export function badInputOf(error: unknown, dialect: DbClient): BadInput | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  return databaseDialect(dialect).badInput(driverErrorOf(error));
}

/**
 * A database's refusal of a value the caller sent, as the 400 of its side: INVALID_QUERY for a
 * read (a filter, search or key), INVALID_PAYLOAD for a write. Anything else is returned as it is.
 */
export function translateBadInput(error: unknown, dialect: DbClient, side: 'read' | 'write'): unknown {
  const kind = badInputOf(error, dialect);
  if (kind === undefined) return error;
  const reason = BAD_INPUT_REASONS[kind];
  return side === 'read' ? new InvalidQueryError(reason) : new InvalidPayloadError(reason);
}

/**
 * A statement that named a table or column the database no longer has: this instance's schema
 * is older than the database's (changed by another instance or the CLI without Redis, or by
 * hand). SERVICE_UNAVAILABLE, to retry once the caller has dropped its schema; undefined for
 * any other error.
 */
export function translateMissingSchemaObject(error: unknown, dialect: DbClient): ServiceUnavailableError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  if (!databaseDialect(dialect).isMissingSchemaObject(driverErrorOf(error))) return undefined;
  return new ServiceUnavailableError('database', 'The database schema changed under this instance, retry');
}

/** Socket-level failures: the database is down, restarting or unreachable (any dialect's driver). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // mysql2
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
]);

/** MySQL/MariaDB: server gone away (2006), lost during query (2013), shutdown in progress (1053). */
const MYSQL_CONNECTION_ERRNOS = new Set([1053, 2006, 2013, 1927]);

/** The messages of drivers and knex that carry no code: a closed socket or an exhausted pool. */
const CONNECTION_MESSAGE =
  /Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|connection is in closed state|Can't add new command when connection is in closed state|Timeout acquiring a connection|Unable to acquire a connection|Connection lost: The server closed the connection|^timeout expired$/i;

/**
 * The database could not be reached or dropped the connection (restart, failover, network):
 * SERVICE_UNAVAILABLE (503) rather than a 500, whatever the statement.
 * PostgreSQL: SQLSTATE class 08 (connection exception), 57P01–57P03 (admin shutdown, crash
 * shutdown, cannot connect now); MySQL/MariaDB: the errno and codes above; knex: pool
 * acquisition timeouts. Undefined for any other error. The one place connection failures
 * become an answer (http/error-handler.ts calls it for every error).
 */
export function translateConnectionError(error: unknown): ServiceUnavailableError | undefined {
  return isConnectionError(error)
    ? new ServiceUnavailableError('database', 'The database is not reachable, retry later')
    : undefined;
}

/** Whether `error` says the database is unreachable (see {@link translateConnectionError}). */
export function isConnectionError(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = driverErrorOf(error) as DriverError & { readonly name?: unknown; readonly cause?: unknown };
  // A pool's or a transaction's own error that wraps the socket's (pg-pool's connection timeout).
  if (depth < 3 && e.cause !== undefined && isConnectionError(e.cause, depth + 1)) return true;
  if (
    typeof e.code === 'string' &&
    (CONNECTION_CODES.has(e.code) || /^08[0-9A-Z]{3}$/.test(e.code) || /^57P0[123]$/.test(e.code))
  )
    return true;
  if (typeof e.errno === 'number' && MYSQL_CONNECTION_ERRNOS.has(e.errno)) return true;
  if (e.name === 'KnexTimeoutError') return true;
  return typeof e.message === 'string' && CONNECTION_MESSAGE.test(e.message);
}

/** The start of a statement, as knex puts it in front of a driver's message (`insert into ... - ...`). */
const SQL_TEXT =
  /^\s*(select|insert|update|delete|create|alter|drop|with|pragma|truncate|begin|commit|rollback|savepoint|release)\b|\bquery:\s/i;

/**
 * Whether `error` comes from the database or knex's handling of a statement: its message may
 * hold SQL, bound values and constraint names, which no answer may show
 * (500s show admins the original message, never the statement). pg errors carry a SQLSTATE
 * and severity, mysql2's a sqlState or sqlMessage, better-sqlite3's a SQLITE_ code.
 */
export function isDatabaseError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = driverErrorOf(error) as DriverError & {
    readonly severity?: unknown;
    readonly sqlState?: unknown;
    readonly sql?: unknown;
  };
  if (e.sqlMessage !== undefined || e.sqlState !== undefined || e.sql !== undefined) return true;
  if (
    typeof e.code === 'string' &&
    (e.code.startsWith('SQLITE_') || (typeof e.severity === 'string' && /^[0-9A-Z]{5}$/.test(e.code)))
  )
    return true;
  return typeof e.message === 'string' && SQL_TEXT.test(e.message);
}
