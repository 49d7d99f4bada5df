import type { Knex } from 'knex';
import { dialectOf, queryPrepared } from '../db/index.js';
import { databaseDialect, databaseDialectOf } from '../db/dialects/index.js';
import { findUnstorableText } from '../db/storable-text.js';
import { translateBadInput } from '../db/translate-error.js';
import { InvalidQueryError } from '../errors.js';
import type { CompiledSql } from '../db/dialects/read.js';

export type Row = Readonly<Record<string, unknown>>;

/** Runs one compiled SELECT and returns its rows, whatever shape the driver answers in. */
export async function selectRows(db: Knex | Knex.Transaction, compiled: CompiledSql): Promise<Row[]> {
  const result: unknown = await runRead(db, compiled, (values) => db.raw(compiled.sql, values));
  return databaseDialectOf(db).rawRows(result);
}

/**
 * PostgreSQL: runs a JSON read as a named prepared statement (db/index.ts
 * preparedStatement: each connection parses and plans it once).
 */
export async function selectPreparedRows(db: Knex | Knex.Transaction, compiled: CompiledSql): Promise<Row[]> {
  const result = await runRead(db, compiled, (values) => queryPrepared(db, compiled.sql, values));
  return result.rows;
}

/**
 * Every read's statement runs through here: text values (filters, search, keys) a database
 * cannot hold are INVALID_QUERY before they are sent, and the database's refusal of a value
 * (db/translate-error.ts, e.g. PostgreSQL 22003 for a smallint compared with 40000) is
 * INVALID_QUERY too, never a 500.
 */
export async function runRead<T>(
  db: Knex | Knex.Transaction,
  compiled: CompiledSql,
  run: (values: Knex.RawBinding[]) => PromiseLike<T>,
): Promise<T> {
  const dialect = dialectOf(db);
  const { maxBoundValues } = databaseDialect(dialect);
  if (compiled.values.length > maxBoundValues) {
    // PostgreSQL would break the protocol (08P01, taken for a lost connection), SQLite throw.
    throw new InvalidQueryError(
      `The query has ${compiled.values.length} values: at most ${maxBoundValues} fit one statement on this database (long _in lists count as one)`,
    );
  }
  for (const value of compiled.values) {
    // Arrays: a long list bound as one value (Dialect.inLongList).
    const reason = findUnstorableText(dialect, value);
    if (reason !== undefined) throw new InvalidQueryError(reason);
  }
  try {
    return await run([...compiled.values] as Knex.RawBinding[]);
  } catch (error) {
    throw translateBadInput(error, dialect, 'read');
  }
}
