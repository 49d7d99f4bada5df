import type { Knex } from 'knex';
import { databaseDialectOf } from '../../src/db/dialects/index.js';
import { NO_KEYS, type ColumnKeys, type RawSchema } from '../../src/db/dialects/introspection.js';

export type {
  ColumnKeys,
  RawColumn,
  RawForeignKey,
  RawSchema,
  RawTable,
  RawUniqueKey,
} from '../../src/db/dialects/introspection.js';
export { parseSqlDefault } from './defaults.js';

/**
 * The connected database's tables, columns, primary keys, single-column unique keys and
 * single-column foreign keys, read by its dialect (src/db/dialects/<database>/introspect.ts)
 * with a fixed set of queries (never one per table). Nothing of the catalogue's metadata is
 * applied here.
 */
export function introspect(db: Knex): Promise<RawSchema> {
  return databaseDialectOf(db).introspect(db);
}

/**
 * The keys of `table.column` as the database has them now, read the same way as for the
 * overview: its plain indexes' names and its unique keys (by name and kind), whoever made
 * them. A schema change reads them after its own adds: MariaDB silently drops the index it
 * made for a foreign key once another index serves the key.
 */
export async function readColumnKeys(db: Knex, table: string, column: string): Promise<ColumnKeys> {
  const { tables } = await introspect(db);
  const found = tables.find((t) => t.name === table)?.columns.find((c) => c.name === column);
  return found ?? NO_KEYS;
}
