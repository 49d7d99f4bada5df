import {
  InvalidForeignKeyError,
  NotNullViolationError,
  RecordNotUniqueError,
  type ServiceError,
} from '../../../errors.js';
import { standard } from '../standard.js';
import type { BadInput, Dialect, DriverError, NumberTarget, StatementTarget } from '../types.js';
import { introspectSqlite } from './introspect.js';
import { sqliteRead } from './read.js';

/** Result codes of refused values. */
const BAD_INPUT: Readonly<Record<string, BadInput>> = {
  SQLITE_MISMATCH: 'wrong form',
  SQLITE_TOOBIG: 'too large',
  SQLITE_RANGE: 'out of range',
};

/**
 * SQLite (better-sqlite3), by extended result code: a file opened in-process, declared types
 * kept as written, a schema change as a table rebuild with foreign keys off, temporal values as
 * text (read.ts).
 */
export const sqlite: Dialect = {
  ...standard,
  ...sqliteRead,
  client: 'sqlite3',
  engine: 'SQLite',
  vendor: 'sqlite',
  rawRows: (result) => result as Record<string, unknown>[],
  constraintError,
  badInput: ({ code }) => (typeof code === 'string' ? BAD_INPUT[code] : undefined),
  namesFailingForeignKey: false,
  timestampValue: (date) => date.toISOString().replace('T', ' ').replace('Z', ''),
  maxInsertRows: 500,
  insertsMixedColumns: false,
  schemaChanges: 'foreign-keys-off',
  // One writer at a time: the migration's transaction is the lock.
  withMigrationLock: (_trx, _lock, run) => run(),
  columnComments: false,
  // INTEGER PRIMARY KEY is the 64-bit rowid whatever the declared size.
  autoIncrementKey: (table, name) => table.increments(name, { primaryKey: true }),
  // Declared types SQLite would otherwise lose, so introspection reads them back.
  decimalColumn: (table, name, precision, scale) => table.specificType(name, `decimal(${precision}, ${scale})`),
  timestampColumn: (table, name) => table.specificType(name, 'timestamp'),
  addsRequiredColumns: false,
  // A changed column type converts nothing (catalog/ddl/schema-errors.ts assertSqliteConverted).
  convertsChangedTypes: false,
  textLengthSql: 'length(??)',
  roundsDecimals: false,
  numberSql: sqliteNumberSql,
  isMissingSchemaObject: ({ code, message }) =>
    code === 'SQLITE_ERROR' && typeof message === 'string' && /\bno such (table|column): /.test(message),
  isEmbedded: true,
  defaultPort: 0,
  createCommand: (db) => `(SQLite creates ${db.filename} itself)`,
  introspect: introspectSqlite,
};

function constraintError(error: DriverError, target: StatementTarget): ServiceError | undefined {
  const message = typeof error.message === 'string' ? error.message : '';
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

/**
 * SQLite's CAST to INTEGER truncates and its round() takes ties away from zero: PostgreSQL
 * and MariaDB round a float's tie to even (2.5 → 2, 3.5 → 4) and a decimal's away (2.5 → 3).
 */
function sqliteNumberSql(to: NumberTarget, fromFloat: boolean): string {
  switch (to.type) {
    case 'integer':
    case 'bigInteger':
      return fromFloat
        ? 'cast(case when abs(?? - cast(?? as integer)) = 0.5 then 2 * round(?? / 2.0) else round(??) end as integer)'
        : 'cast(round(??) as integer)';
    case 'float':
      return 'cast(?? as real)';
    case 'decimal':
      return `round(??, ${to.scale})`;
    case 'exact':
      return 'cast(?? as numeric)';
  }
}
