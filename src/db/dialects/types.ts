import type { Knex } from 'knex';
import type { DbConfig } from '../../config/index.js';
import type { DbClient } from '../../db-client.js';
import type { ServiceError } from '../../errors.js';
import type { RawSchema } from './introspection.js';
import type { ReadDialect } from './read.js';

/** The driver error fields the dialects read (pg, mysql2 and better-sqlite3 together). */
export interface DriverError {
  readonly code?: unknown;
  readonly errno?: unknown;
  readonly message?: unknown;
  readonly sqlMessage?: unknown;
  readonly table?: unknown;
  readonly column?: unknown;
  readonly detail?: unknown;
}

/** What the statement was writing: the errors of some dialects do not name the table. */
export interface StatementTarget {
  /** The collection (table) the failing statement wrote to. */
  readonly collection: string;
  /** Its primary key field: MySQL names a duplicate primary key only as `PRIMARY`. */
  readonly primaryKey?: string;
}

/**
 * What a statement failed on when the database refused a value the caller sent (as opposed
 * to a fault of the service): a number out of range, text in the wrong form or that cannot
 * be stored, a value too large for the database.
 */
export type BadInput = 'out of range' | 'wrong form' | 'unstorable text' | 'too large';

/**
 * A number a column's value converts to (catalog/ddl/number-changes.ts): one of the number
 * column types, or `exact`, the value as an exact number of any size (text is measured so).
 */
export type NumberTarget =
  | { readonly type: 'integer' | 'bigInteger' | 'float' | 'exact' }
  | { readonly type: 'decimal'; readonly precision: number; readonly scale: number };

/** The table builders a column is added with (create or alter). */
export type TableBuilder = Knex.CreateTableBuilder | Knex.AlterTableBuilder;

/** How schema snapshots name the database (`vendor`). */
export type Vendor = 'postgres' | 'mysql' | 'sqlite';

/**
 * One database, all it differs in: what the query compiler asks (ReadDialect, read.ts), what
 * db/ and catalog/ ask (DatabaseDialect: driver answers and error codes, inserts, DDL, how a
 * failed connection is explained), and how its tables are read (`introspect`). Each is one
 * module, dialects/<database>/, written as `standard` (standard.ts) with its own answers over
 * it; `databaseDialect(client)` (dialects/index.ts) finds the one of a DB_CLIENT. Nothing
 * else branches on the client's name.
 */
export interface Dialect extends DatabaseDialect, ReadDialect {
  /**
   * The database's tables, columns, primary keys, single-column unique keys and single-column
   * foreign keys, read with a fixed set of queries (never one per table).
   */
  introspect(db: Knex): Promise<RawSchema>;
}

/** What db/ and catalog/ ask a database (the driver, writes, schema changes, the server). */
export interface DatabaseDialect {
  readonly client: DbClient;
  /** The database's name in messages to operators. */
  readonly engine: string;
  readonly vendor: Vendor;
  /** A table, column or alias name quoted for SQL text (standard SQL's in standard.ts, or the database's own). */
  readonly quoteId: (name: string) => string;

  /** The rows of a knex `raw()` result, whatever shape the driver answers in. */
  rawRows(result: unknown): Record<string, unknown>[];
  /** A constraint violation (unique, not null, foreign key, too long, out of range) as the reference's error. */
  constraintError(error: DriverError, target: StatementTarget): ServiceError | undefined;
  /** The kind of refused value behind a driver error, or undefined for any other failure. */
  badInput(error: DriverError): BadInput | undefined;
  /** A foreign key violation names its column (SQLite's does not: db/write-statement.ts finds it). */
  readonly namesFailingForeignKey: boolean;
  /**
   * A moment as the database stores it: a Date (the MySQL connection talks UTC), or SQLite's
   * UTC text `YYYY-MM-DD HH:MM:SS.SSS`, the form of its CURRENT_TIMESTAMP (text order is time order).
   */
  timestampValue(date: Date): Date | string;
  /** Text columns refuse NUL (PostgreSQL); every database refuses lone surrogates. */
  readonly refusesNul: boolean;

  /**
   * How an insert gives its generated keys: `returning` (knex's RETURNING), `insert-id`
   * (MySQL: knex has no RETURNING; one generated key is the statement's insert id, more need
   * MariaDB's own `returning`).
   */
  readonly insertKeys: 'returning' | 'insert-id';
  /** RETURNING answers a given key as stored, typed by its column (PostgreSQL), not as given. */
  readonly returnsStoredKeys: boolean;
  /** Rows one multi-row insert takes at most (SQLite: knex's compound SELECT of 500 terms). */
  readonly maxInsertRows: number;
  /** One insert takes rows of different columns (the missing ones written as DEFAULT). */
  readonly insertsMixedColumns: boolean;
  /** Many rows go as one bound JSON recordset (json_populate_recordset) rather than VALUES. */
  readonly insertsRecordset: boolean;
  /** Sequences stay behind keys given explicitly to an auto-increment column (db/serial-sequences.ts). */
  readonly sequencesLagGivenKeys: boolean;
  /** Rows load by COPY FROM STDIN (db/copy-rows.ts: imports). */
  readonly copiesRows: boolean;
  /**
   * How many rows are set by key in one statement (db/update-rows.ts: imports): COPY into a
   * temporary table then UPDATE ... FROM it, UPDATE ... JOIN a derived table of the rows, or
   * UPDATE ... FROM (VALUES ...).
   */
  readonly updatesRowsBy: 'copy' | 'join' | 'values';
  /**
   * A row of an INSERT's VALUES may name a column set earlier in it (MySQL, MariaDB): a value
   * two columns share is sent once (db/insert-rows.ts, `copies`).
   */
  readonly valuesReadEarlierColumns: boolean;
  /** A connection keeps its foreign key checks' plans until statistics change (db/journal-statistics.ts). */
  readonly keepsForeignKeyPlans: boolean;

  /**
   * How a schema change is all or nothing: `transaction` (DDL is transactional), `foreign-keys-off`
   * (foreign keys off around the rebuild), `undo` (DDL commits implicitly: each statement
   * records its undo).
   */
  readonly schemaChanges: 'transaction' | 'foreign-keys-off' | 'undo';
  /** Runs `run` in `trx` holding the migrations' lock (named `name`, or numbered `key`). */
  withMigrationLock<T>(
    trx: Knex.Transaction,
    lock: { readonly name: string; readonly key: number },
    run: () => Promise<T>,
  ): Promise<T>;
  /** Columns take comments. */
  readonly columnComments: boolean;
  /** Every foreign key column has an index the database made and keeps (InnoDB). */
  readonly indexesForeignKeys: boolean;
  /** An auto-increment primary key column, signed (MySQL: knex would write it unsigned). */
  autoIncrementKey(table: TableBuilder, name: string, isBig: boolean): Knex.ColumnBuilder;
  /** The columns whose spelling differs: introspection must read the same API type back. */
  floatColumn(table: TableBuilder, name: string): Knex.ColumnBuilder;
  decimalColumn(table: TableBuilder, name: string, precision: number, scale: number): Knex.ColumnBuilder;
  dateTimeColumn(table: TableBuilder, name: string): Knex.ColumnBuilder;
  timestampColumn(table: TableBuilder, name: string): Knex.ColumnBuilder;
  /** A NOT NULL column without a default can be added in one step (SQLite: nullable, then tightened). */
  readonly addsRequiredColumns: boolean;
  /** A column's changed type converts (or refuses) its stored values (SQLite keeps them as they are). */
  readonly convertsChangedTypes: boolean;
  /** SQL of a value's length in characters, the column as `??`. */
  readonly textLengthSql: string;
  /** `=` on text compares byte for byte, as JavaScript does (MySQL's default collations ignore case and trailing spaces). */
  readonly comparesTextExactly: boolean;
  /**
   * The column type of a string of `length` characters that compares exactly (case, accents,
   * trailing spaces), as every string column does on PostgreSQL and SQLite (undefined there):
   * MariaDB's default collations ignore all three, so a token, a key or an e-mail address
   * would match another that differs (catalog/migrations/0004).
   */
  readonly exactStringType?: (length: number) => string;
  /**
   * SQL of the value `??` converted to `to` as an ALTER of its column converts it (SQLite,
   * which converts nothing: as PostgreSQL and MariaDB do, ties of a `float` value rounding to
   * even, of others away from zero). `fromFloat`: the value is of a float column.
   */
  numberSql(to: NumberTarget, fromFloat: boolean): string;
  /** A decimal column rounds a written value to its scale (SQLite keeps every digit it is given). */
  readonly roundsDecimals: boolean;
  /** A stored value the new column type cannot take (an ALTER's failure). */
  isConversionError(error: DriverError): boolean;
  /** A column default the column's type can't take (MariaDB's ER_INVALID_DEFAULT; the others say conversion). */
  isInvalidDefaultError(error: DriverError): boolean;
  /**
   * A column or row larger than the database takes: a string's length, a decimal's precision
   * or scale, or the table's row size (MariaDB; catalog/ddl/column-sizes.ts checks the column
   * sizes before, the row size only the database knows).
   */
  isColumnSizeError(error: DriverError): boolean;
  /** A key another table's foreign key needs (an ALTER or DROP's failure). */
  isDependencyError(error: DriverError): boolean;
  /** A unique key or index over a TEXT/BLOB column without a prefix length (MySQL). */
  isUnindexableKeyError(error: DriverError): boolean;
  /**
   * A statement named a table or column the database does not have: the schema changed under
   * this instance (another instance or the CLI without Redis, or by hand).
   */
  isMissingSchemaObject(error: DriverError): boolean;

  /** The database is a file opened in-process (no host, port or login). */
  readonly isEmbedded: boolean;
  /** The server's port when DB_PORT is unset. */
  readonly defaultPort: number;
  /** DB_CONNECTION_STRING names the host and port. */
  readonly takesConnectionString: boolean;
  /** The shell command that creates `db`'s database. */
  createCommand(db: DbConfig): string;
  /**
   * What the server must be, checked once at start: the statement that reads its version and,
   * for the server at `where` (host:port), one line saying why that version cannot serve and
   * what to change, or undefined when it can. Absent where any version the driver reaches will do.
   */
  readonly serverVersion?: {
    readonly sql: string;
    unsupported(version: string, where: string): string | undefined;
  };
}
