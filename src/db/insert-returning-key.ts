import type { Knex } from 'knex';
import { dialectOf } from './index.js';

/**
 * Inserts one row and returns its primary key: the given one, or the one the database
 * generated (RETURNING on PostgreSQL, the insert id on MySQL/MariaDB and SQLite).
 */
export async function insertReturningKey(
  db: Knex | Knex.Transaction,
  table: string,
  row: Readonly<Record<string, unknown>>,
  primaryKey: string,
): Promise<string | number> {
  const given = row[primaryKey];
  if (dialectOf(db) === 'pg') {
    const [inserted] = await db(table).insert(row).returning<Record<string, string | number>[]>(primaryKey);
    const key = inserted?.[primaryKey];
    if (key === undefined) throw new Error(`Invariant failed: no key returned by the insert into ${table}`);
    return key;
  }
  const [insertId] = await db(table).insert(row);
  if (given !== undefined && given !== null) return given as string | number;
  if (insertId === undefined) throw new Error(`Invariant failed: no insert id for ${table}`);
  return insertId;
}
