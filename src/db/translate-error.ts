import type { DbClient } from '../db-client.js';
import {
  InvalidForeignKeyError,
  InvalidPayloadError,
  InvalidQueryError,
  NotNullViolationError,
  RecordNotUniqueError,
  ServiceUnavailableError,
  ValueOutOfRangeError,
  ValueTooLongError,
  type ServiceError,
} from '../errors.js';

/** What the statement was writing: the errors of some dialects do not name the table. */
export interface StatementTarget {
  /** The collection (table) the failing statement wrote to. */
  readonly collection: string;
  /** Its primary key field: MySQL names a duplicate primary key only as `PRIMARY`. */
  readonly primaryKey?: string;
}

/** The driver error fields this module reads (pg, mysql2 and better-sqlite3 together). */
interface DriverError {
  readonly code?: unknown;
  readonly errno?: unknown;
  readonly message?: unknown;
  readonly sqlMessage?: unknown;
  readonly table?: unknown;
  readonly column?: unknown;
  readonly detail?: unknown;
}

/**
 * Turns a constraint violation reported by the database into the service error of
 * reference/errors.md (RECORD_NOT_UNIQUE, NOT_NULL_VIOLATION, VALUE_TOO_LONG,
 * VALUE_OUT_OF_RANGE, INVALID_FOREIGN_KEY), by SQLSTATE on PostgreSQL, errno on MySQL/MariaDB
 * and the extended result code on SQLite. Other refused values become INVALID_PAYLOAD ({@link translateBadInput}); anything else is returned unchanged.
 */
export function translateDatabaseError(error: unknown, dialect: DbClient, target: StatementTarget): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const translated = translateByDialect(driverErrorOf(error), dialect, target);
  return translated ?? translateBadInput(error, dialect, 'write');
}

/**
 * The driver's own error: objection's queries (db/models) hand on a driver error wrapped by
 * db-errors, with the driver's code only on `nativeError`; anything else is its own.
 */
function driverErrorOf(error: object): DriverError {
  const native = (error as { readonly nativeError?: unknown }).nativeError;
  return (typeof native === 'object' && native !== null ? native : error) as DriverError;
}

function translateByDialect(error: DriverError, dialect: DbClient, target: StatementTarget): ServiceError | undefined {
  switch (dialect) {
    case 'pg':
      return translatePostgres(error, target);
    case 'mysql':
      return translateMysql(error, target);
    case 'sqlite3':
      return translateSqlite(error, target);
  }
}

/**
 * What a statement failed on when the database refused a value the caller sent (as opposed
 * to a fault of the service): a number out of range, text in the wrong form or that cannot
 * be stored, a value too large for the database. The reasons are fixed words: never the
 * database's message, which may quote SQL, constraint names or other rows' values.
 */
export type BadInput = 'out of range' | 'wrong form' | 'unstorable text' | 'too large';

const BAD_INPUT_REASONS: Readonly<Record<BadInput, string>> = {
  'out of range': 'A numeric value is out of range',
  'wrong form': 'A value is not in the form its field takes',
  'unstorable text': 'A text value contains characters the database cannot store',
  'too large': 'A value is too large for the database',
};

/** PostgreSQL SQLSTATEs of class 22 (data exception) and 54 (program limit) by what they mean. */
const PG_BAD_INPUT: Readonly<Record<string, BadInput>> = {
  '22003': 'out of range', // numeric_value_out_of_range
  '22008': 'out of range', // datetime_field_overflow
  '22P02': 'wrong form', // invalid_text_representation (also a lone surrogate in json)
  '22007': 'wrong form', // invalid_datetime_format
  '22023': 'wrong form', // invalid_parameter_value
  '2201B': 'wrong form', // invalid_regular_expression
  '22025': 'wrong form', // invalid_escape_sequence
  '22019': 'wrong form', // invalid_escape_character
  '22021': 'unstorable text', // character_not_in_repertoire: NUL in text
  '22P05': 'unstorable text', // untranslatable_character: \u0000 in json
  '54000': 'too large', // program_limit_exceeded: an index row or a value too big
  '54001': 'too large', // statement_too_complex
};

/** MariaDB / MySQL errnos of refused values. */
const MYSQL_BAD_INPUT: Readonly<Record<number, BadInput>> = {
  1264: 'out of range', // ER_WARN_DATA_OUT_OF_RANGE
  1690: 'out of range', // ER_DATA_OUT_OF_RANGE (BIGINT UNSIGNED value is out of range)
  1292: 'wrong form', // ER_TRUNCATED_WRONG_VALUE
  1265: 'wrong form', // WARN_DATA_TRUNCATED
  1367: 'wrong form', // ER_ILLEGAL_VALUE_FOR_TYPE
  1411: 'wrong form', // ER_WRONG_VALUE_FOR_TYPE
  1139: 'wrong form', // ER_REGEXP_ERROR
  3140: 'wrong form', // ER_INVALID_JSON_TEXT
  4038: 'wrong form', // ER_JSON_SYNTAX (MariaDB)
  1366: 'wrong form', // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD: incorrect integer / string value
  1118: 'too large', // ER_TOO_BIG_ROWSIZE
  1153: 'too large', // ER_NET_PACKET_TOO_LARGE
  1301: 'too large', // ER_WARN_ALLOWED_PACKET_OVERFLOWED
};

/** SQLite result codes of refused values. */
const SQLITE_BAD_INPUT: Readonly<Record<string, BadInput>> = {
  SQLITE_MISMATCH: 'wrong form',
  SQLITE_TOOBIG: 'too large',
  SQLITE_RANGE: 'out of range',
};

/** The kind of refused value behind a driver error, or undefined for any other failure. */
export function badInputOf(error: unknown, dialect: DbClient): BadInput | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errno } = driverErrorOf(error);
  switch (dialect) {
    case 'pg':
      return typeof code === 'string' ? PG_BAD_INPUT[code] : undefined;
    case 'mysql':
      return typeof errno === 'number' ? MYSQL_BAD_INPUT[errno] : undefined;
    case 'sqlite3':
      return typeof code === 'string' ? SQLITE_BAD_INPUT[code] : undefined;
  }
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

function translatePostgres(error: DriverError, target: StatementTarget): ServiceError | undefined {
  const collection = typeof error.table === 'string' ? error.table : target.collection;
  const detail = typeof error.detail === 'string' ? error.detail : '';
  // detail: `Key (slug)=(a) already exists.` / `Key (author)=(5) is not present in table "users".`
  const keyColumn = /^Key \(([^,)]+)\)=/.exec(detail)?.[1]?.replace(/^"|"$/g, '') ?? null;
  switch (error.code) {
    case '23505':
      return new RecordNotUniqueError({ collection, field: keyColumn });
    case '23502':
      return new NotNullViolationError({ collection, field: typeof error.column === 'string' ? error.column : null });
    case '23503':
      // Deleting a still referenced row names the referenced key, not a column of `collection`.
      return /is still referenced/.test(detail)
        ? new InvalidForeignKeyError({ collection: target.collection, field: null })
        : new InvalidForeignKeyError({ collection, field: keyColumn });
    case '22001':
      return new ValueTooLongError({ collection: target.collection, field: null });
    case '22003':
      return new ValueOutOfRangeError({ collection: target.collection, field: null });
    default:
      return undefined;
  }
}

const MYSQL_ER_DUP_ENTRY = 1062;
const MYSQL_ER_BAD_NULL_ERROR = 1048;
const MYSQL_ER_NO_DEFAULT_FOR_FIELD = 1364;
const MYSQL_ER_DATA_TOO_LONG = 1406;
const MYSQL_ER_WARN_DATA_OUT_OF_RANGE = 1264;
const MYSQL_ER_ROW_IS_REFERENCED_2 = 1451;
const MYSQL_ER_NO_REFERENCED_ROW_2 = 1452;

function translateMysql(error: DriverError, target: StatementTarget): ServiceError | undefined {
  const message = typeof error.sqlMessage === 'string' ? error.sqlMessage : String(error.message ?? '');
  const { collection } = target;
  const quoted = (pattern: RegExp): string | null => pattern.exec(message)?.[1] ?? null;
  switch (error.errno) {
    case MYSQL_ER_DUP_ENTRY:
      // `Duplicate entry 'a' for key 'articles_slug_unique'` (MySQL 8: 'articles.articles_slug_unique')
      return new RecordNotUniqueError({ collection, field: fieldOfUniqueKey(quoted(/for key '([^']+)'$/), target) });
    case MYSQL_ER_BAD_NULL_ERROR:
      return new NotNullViolationError({ collection, field: quoted(/^Column '([^']+)'/) });
    case MYSQL_ER_NO_DEFAULT_FOR_FIELD:
      return new NotNullViolationError({ collection, field: quoted(/^Field '([^']+)'/) });
    case MYSQL_ER_DATA_TOO_LONG:
      return new ValueTooLongError({ collection, field: quoted(/for column '([^']+)'/) });
    case MYSQL_ER_WARN_DATA_OUT_OF_RANGE:
      return new ValueOutOfRangeError({ collection, field: quoted(/for column '([^']+)'/) });
    case MYSQL_ER_NO_REFERENCED_ROW_2:
      return new InvalidForeignKeyError({ collection, field: quoted(/FOREIGN KEY \(`([^`]+)`\)/) });
    case MYSQL_ER_ROW_IS_REFERENCED_2:
      return new InvalidForeignKeyError({ collection, field: null });
    default:
      return undefined;
  }
}

/** The field behind a MySQL unique index name: `PRIMARY`, `<table>_<field>_unique` or `<field>`. */
function fieldOfUniqueKey(key: string | null, target: StatementTarget): string | null {
  if (key === null) return null;
  const name = key.includes('.') ? key.slice(key.lastIndexOf('.') + 1) : key;
  if (name === 'PRIMARY') return target.primaryKey ?? null;
  const prefix = `${target.collection}_`;
  const withoutPrefix = name.startsWith(prefix) ? name.slice(prefix.length) : name;
  return withoutPrefix.endsWith('_unique') ? withoutPrefix.slice(0, -'_unique'.length) : withoutPrefix;
}

function translateSqlite(error: DriverError, target: StatementTarget): ServiceError | undefined {
  const message = String(error.message ?? '');
  // `UNIQUE constraint failed: articles.slug` / `NOT NULL constraint failed: articles.title`
  const column = /constraint failed: ([^.\s]+)\.([^\s,]+)/.exec(message);
  const collection = column?.[1] ?? target.collection;
  const field = column?.[2] ?? null;
  switch (error.code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
      return new RecordNotUniqueError({ collection, field });
    case 'SQLITE_CONSTRAINT_NOTNULL':
      return new NotNullViolationError({ collection, field });
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      // SQLite does not say which foreign key failed.
      return new InvalidForeignKeyError({ collection: target.collection, field: null });
    default:
      return undefined;
  }
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
  /Connection terminated|Client has encountered a connection error|connection is in closed state|Can't add new command when connection is in closed state|Timeout acquiring a connection|Connection lost: The server closed the connection/i;

/**
 * The database could not be reached or dropped the connection (restart, failover, network):
 * SERVICE_UNAVAILABLE (503, reference/errors.md) rather than a 500, whatever the statement.
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
export function isConnectionError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = driverErrorOf(error) as DriverError & { readonly name?: unknown };
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
 * hold SQL, bound values and constraint names, which no answer may show (reference/errors.md:
 * 500s show admins the original message, never the statement). pg errors carry a SQLSTATE
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
