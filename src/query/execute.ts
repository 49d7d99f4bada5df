import { createHash } from 'node:crypto';
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

/** Distinct statements prepared by name at most, per process (each connection keeps its own). */
const MAX_PREPARED = 500;
const preparedNames = new Map<string, string>();

/**
 * PostgreSQL: runs a statement as a named prepared statement, so each connection parses it
 * once and PostgreSQL may keep its plan (a cheap read spends a fifth of its time there:
 * bench/README.md). Only for statements whose result columns never change with the schema
 * (PostgreSQL refuses a cached plan whose result type changed): the JSON reads' one text
 * column. The first MAX_PREPARED distinct texts get names; later ones run unnamed, so what
 * connections keep stays bounded whatever queries clients invent.
 */
export async function selectPreparedRows(db: Knex | Knex.Transaction, compiled: CompiledSql): Promise<Row[]> {
  let name = preparedNames.get(compiled.sql);
  if (name === undefined && preparedNames.size < MAX_PREPARED) {
    name = `q${createHash('sha1').update(compiled.sql).digest('hex')}`;
    preparedNames.set(compiled.sql, name);
  }
  const raw = db.raw(compiled.sql, [...compiled.values] as Knex.RawBinding[]);
  const result = (await (name === undefined ? raw : raw.options({ name }))) as { rows: Row[] };
  return result.rows;
}
