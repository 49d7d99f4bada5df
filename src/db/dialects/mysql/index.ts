import {
  InvalidForeignKeyError,
  NotNullViolationError,
  RecordNotUniqueError,
  ValueOutOfRangeError,
  ValueTooLongError,
  type ServiceError,
} from '../../../errors.js';
import { standard } from '../standard.js';
import type { BadInput, Dialect, DriverError, NumberTarget, StatementTarget } from '../types.js';
import { introspectMysql } from './introspect.js';
import { mysqlRead } from './read.js';

/** Backquotes (double quotes are strings without ANSI_QUOTES); a backquote inside is doubled. */
function quoteMysqlId(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

/** Errnos of refused values. */
const BAD_INPUT: Readonly<Record<number, BadInput>> = {
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

const ER_DUP_ENTRY = 1062;
const ER_BAD_NULL_ERROR = 1048;
const ER_NO_DEFAULT_FOR_FIELD = 1364;
const ER_DATA_TOO_LONG = 1406;
const ER_WARN_DATA_OUT_OF_RANGE = 1264;
const ER_ROW_IS_REFERENCED_2 = 1451;
const ER_NO_REFERENCED_ROW_2 = 1452;
/** A unique key or index over a TEXT/BLOB column needs a prefix length (MariaDB hashes it). */
const ER_BLOB_KEY_WITHOUT_LENGTH = 1170;
/** A key another table's foreign key needs. */
const ER_DROP_INDEX_FK = 1553;
/** A column default the column's type can't take. */
const ER_INVALID_DEFAULT = 1067;

/** Errnos of a column or row larger than MariaDB takes. */
const COLUMN_SIZE_ERRNOS: ReadonlySet<unknown> = new Set([
  1074, // ER_TOO_BIG_FIELDLENGTH: Column length too big for column (max = 16383)
  1118, // ER_TOO_BIG_ROWSIZE: Row size too large
  1425, // ER_TOO_BIG_SCALE
  1426, // ER_TOO_BIG_PRECISION
  1427, // ER_M_BIGGER_THAN_D: M must be >= D
]);

/** Errnos of a stored value the new column type can't hold. */
const CONVERSION_ERRNOS: ReadonlySet<unknown> = new Set([
  1265, // ER_WARN_DATA_TRUNCATED: Data truncated for column
  1292, // ER_TRUNCATED_WRONG_VALUE: Truncated incorrect INTEGER value
  1366, // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD: Incorrect integer value
]);

/**
 * MariaDB from 10.5 (MySQL is refused at start, `serverVersion`), by errno: DDL commits
 * implicitly, InnoDB indexes foreign keys, default collations that ignore case, and reads as
 * correlated JSON_ARRAYAGG subqueries (read.ts).
 */
export const mysql: Dialect = {
  ...standard,
  ...mysqlRead,
  client: 'mysql',
  engine: 'MariaDB/MySQL',
  vendor: 'mysql',
  quoteId: quoteMysqlId,
  rawRows: (result) => (result as [Record<string, unknown>[], unknown])[0],
  constraintError,
  badInput: ({ errno }) => (typeof errno === 'number' ? BAD_INPUT[errno] : undefined),
  insertKeys: 'insert-id',
  updatesRowsBy: 'join',
  valuesReadEarlierColumns: true,
  schemaChanges: 'undo',
  async withMigrationLock(trx, lock, run) {
    await trx.raw('SELECT GET_LOCK(?, 60) AS got', [lock.name]);
    try {
      return await run();
    } finally {
      await trx.raw('SELECT RELEASE_LOCK(?)', [lock.name]);
    }
  },
  indexesForeignKeys: true,
  autoIncrementKey: (table, name, isBig) =>
    table.specificType(name, `${isBig ? 'bigint' : 'int'} not null auto_increment primary key`),
  // knex writes float(8,2).
  floatColumn: (table, name) => table.specificType(name, 'float'),
  comparesTextExactly: false,
  // nopad: utf8mb4_bin still ignores trailing spaces.
  exactStringType: (length) => `varchar(${length}) character set utf8mb4 collate utf8mb4_nopad_bin`,
  numberSql: (to) => `cast(?? as ${mysqlNumberType(to)})`,
  isConversionError: ({ errno }) => CONVERSION_ERRNOS.has(errno),
  isInvalidDefaultError: ({ errno }) => errno === ER_INVALID_DEFAULT,
  isColumnSizeError: ({ errno }) => COLUMN_SIZE_ERRNOS.has(errno),
  isDependencyError: ({ errno }) => errno === ER_DROP_INDEX_FK,
  isUnindexableKeyError: ({ errno }) => errno === ER_BLOB_KEY_WITHOUT_LENGTH,
  // ER_NO_SUCH_TABLE, ER_BAD_FIELD_ERROR.
  isMissingSchemaObject: ({ errno }) => errno === 1146 || errno === 1054,
  defaultPort: 3306,
  createCommand(db) {
    const port = db.port === undefined ? '' : ` -P ${db.port}`;
    const user = db.user === undefined ? '' : ` -u ${db.user}`;
    return `\`mysql -h ${db.host ?? '127.0.0.1'}${port}${user} -p -e 'CREATE DATABASE ${db.database ?? 'svc'}'\``;
  },
  serverVersion: { sql: 'SELECT VERSION() AS version', unsupported: unsupportedMysqlServer },
  introspect: introspectMysql,
};

/** MariaDB from this version: INSERT ... RETURNING (10.5), JSON_ARRAYAGG with ORDER BY (10.5). */
const MARIADB_SINCE = [10, 5] as const;

/**
 * Why the server at `where`, whose VERSION() is `version`, cannot serve: MySQL (its INSERT has
 * no RETURNING, its JSON_ARRAYAGG no ORDER BY) or a MariaDB before 10.5.
 */
function unsupportedMysqlServer(version: string, where: string): string | undefined {
  const isMariaDb = /mariadb/i.test(version);
  const [major = 0, minor = 0] = (/^(\d+)\.(\d+)/.exec(version) ?? []).slice(1).map(Number);
  const [sinceMajor, sinceMinor] = MARIADB_SINCE;
  if (isMariaDb && (major > sinceMajor || (major === sinceMajor && minor >= sinceMinor))) return undefined;
  const server = isMariaDb
    ? `MariaDB ${version} at ${where} is too old`
    : `MySQL ${version} at ${where} is not supported`;
  return `${server}: DB_CLIENT=mysql needs MariaDB ${sinceMajor}.${sinceMinor} or later (INSERT ... RETURNING, JSON_ARRAYAGG with ORDER BY). Set DB_HOST / DB_PORT to such a server.`;
}

function constraintError(error: DriverError, target: StatementTarget): ServiceError | undefined {
  const message =
    typeof error.sqlMessage === 'string' ? error.sqlMessage : typeof error.message === 'string' ? error.message : '';
  const { collection } = target;
  const quoted = (pattern: RegExp): string | null => pattern.exec(message)?.[1] ?? null;
  switch (error.errno) {
    case ER_DUP_ENTRY:
      // `Duplicate entry 'a' for key 'articles_slug_unique'` (MySQL 8: 'articles.articles_slug_unique')
      return new RecordNotUniqueError({ collection, field: fieldOfUniqueKey(quoted(/for key '([^']+)'$/), target) });
    case ER_BAD_NULL_ERROR:
      return new NotNullViolationError({ collection, field: quoted(/^Column '([^']+)'/) });
    case ER_NO_DEFAULT_FOR_FIELD:
      return new NotNullViolationError({ collection, field: quoted(/^Field '([^']+)'/) });
    case ER_DATA_TOO_LONG:
      return new ValueTooLongError({ collection, field: quoted(/for column '([^']+)'/) });
    case ER_WARN_DATA_OUT_OF_RANGE:
      return new ValueOutOfRangeError({ collection, field: quoted(/for column '([^']+)'/) });
    case ER_NO_REFERENCED_ROW_2:
      return new InvalidForeignKeyError({ collection, field: quoted(/FOREIGN KEY \(`([^`]+)`\)/) });
    case ER_ROW_IS_REFERENCED_2:
      return new InvalidForeignKeyError({ collection, field: null });
    default:
      return undefined;
  }
}

/** The field behind a unique index name: `PRIMARY`, `<table>_<field>_unique` or `<field>`. */
function fieldOfUniqueKey(key: string | null, target: StatementTarget): string | null {
  if (key === null) return null;
  const name = key.includes('.') ? key.slice(key.lastIndexOf('.') + 1) : key;
  if (name === 'PRIMARY') return target.primaryKey ?? null;
  const prefix = `${target.collection}_`;
  const withoutPrefix = name.startsWith(prefix) ? name.slice(prefix.length) : name;
  return withoutPrefix.endsWith('_unique') ? withoutPrefix.slice(0, -'_unique'.length) : withoutPrefix;
}

/** The CAST type that converts as ALTER TABLE ... MODIFY does (integers: their range is the ALTER's check). */
function mysqlNumberType(to: NumberTarget): string {
  switch (to.type) {
    case 'integer':
    case 'bigInteger':
      return 'signed';
    case 'float':
      return 'float';
    case 'decimal':
      return `decimal(${to.precision}, ${to.scale})`;
    case 'exact':
      return 'decimal(65, 30)';
  }
}
