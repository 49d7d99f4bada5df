import type { Knex } from 'knex';
import { dialectOf } from '../db/index.js';
import type { CompiledSql } from './compile/sql-writer.js';

export type Row = Readonly<Record<string, unknown>>;

/** Runs one compiled SELECT and returns its rows, whatever shape the driver answers in. */
export async function selectRows(db: Knex | Knex.Transaction, compiled: CompiledSql): Promise<Row[]> {
  const result: unknown = await db.raw(compiled.sql, [...compiled.values] as Knex.RawBinding[]);
  switch (dialectOf(db)) {
    case 'pg':
      return (result as { rows: Row[] }).rows;
    case 'mysql':
      return (result as [Row[], unknown])[0];
    case 'sqlite3':
      return result as Row[];
  }
}
