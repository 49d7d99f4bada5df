import type { Knex } from 'knex';
import {
  ColumnKeyIndex,
  groupBy,
  singleColumnKeys,
  type ColumnKeys,
  type IndexRole,
  type RawColumn,
  type RawForeignKey,
  type RawSchema,
  type RawTable,
} from '../introspection.js';

// The pragma table functions joined to sqlite_master: one statement per kind, whatever the
// number of tables.
const COLUMNS_SQL = `
SELECT m.name AS table_name, p.cid, p.name AS column_name, p.type, p."notnull" AS not_null,
       p.dflt_value AS default_raw, p.pk, p.hidden
FROM sqlite_master m
JOIN pragma_table_xinfo(m.name) p
WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
ORDER BY m.name, p.cid`;

const INDEX_SQL = `
SELECT m.name AS table_name, il.name AS index_name, ii.name AS column_name, il."unique" AS is_unique,
       il.origin,
       (SELECT count(*) FROM pragma_index_info(il.name)) AS column_count
FROM sqlite_master m
JOIN pragma_index_list(m.name) il
JOIN pragma_index_info(il.name) ii
WHERE m.type = 'table' AND il.partial = 0`;

const FOREIGN_KEYS_SQL = `
SELECT m.name AS table_name, fk.id, fk."table" AS foreign_table, fk."from" AS column_name,
       fk."to" AS foreign_column, fk.on_update, fk.on_delete
FROM sqlite_master m
JOIN pragma_foreign_key_list(m.name) fk
WHERE m.type = 'table'
ORDER BY m.name, fk.id, fk.seq`;

interface ColumnRow {
  table_name: string;
  cid: number;
  column_name: string;
  type: string;
  not_null: number;
  default_raw: string | null;
  pk: number;
  hidden: number;
}

interface IndexRow {
  table_name: string;
  index_name: string;
  column_name: string | null;
  is_unique: number;
  /** pragma_index_list: `c` CREATE INDEX, `u` a UNIQUE of CREATE TABLE, `pk` the primary key. */
  origin: string;
  column_count: number;
}

interface ForeignKeyRow {
  table_name: string;
  id: number;
  foreign_table: string;
  column_name: string;
  foreign_column: string | null;
  on_update: string;
  on_delete: string;
}

/** Tables, columns, keys and foreign keys of the SQLite database (declared types as written). */
export async function introspectSqlite(db: Knex): Promise<RawSchema> {
  const columns = await db.raw<ColumnRow[]>(COLUMNS_SQL);
  const indexRows = await db.raw<IndexRow[]>(INDEX_SQL);
  const foreignKeys = await db.raw<ForeignKeyRow[]>(FOREIGN_KEYS_SQL);

  const columnKeys = new ColumnKeyIndex();
  for (const r of indexRows) {
    if (r.column_count !== 1 || r.column_name === null) continue;
    columnKeys.add(r.table_name, r.column_name, r.index_name, sqliteRole(r));
  }

  const tables: RawTable[] = [];
  for (const [name, rows] of groupBy(columns, (r) => r.table_name)) {
    const primaryKey = rows
      .filter((r) => r.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((r) => r.column_name);
    tables.push({
      name,
      comment: null,
      primaryKey,
      columns: rows.map((r) => toColumn(r, primaryKey, columnKeys.of(name, r.column_name))),
    });
  }

  const primaryKeyOf = new Map(tables.map((t) => [t.name, t.primaryKey]));
  const single = singleColumnKeys(foreignKeys, (r) => `${r.table_name}\u0000${r.id}`);
  return {
    tables,
    foreignKeys: single.map((r): RawForeignKey => ({
      table: r.table_name,
      column: r.column_name,
      foreignTable: r.foreign_table,
      // `REFERENCES t` without a column means t's primary key.
      foreignColumn: r.foreign_column ?? primaryKeyOf.get(r.foreign_table)?.[0] ?? null,
      constraintName: null,
      onUpdate: r.on_update,
      onDelete: r.on_delete,
    })),
  };
}

function sqliteRole(index: IndexRow): IndexRole {
  if (index.origin === 'pk') return 'primary';
  if (index.is_unique !== 1) return 'plain';
  // A UNIQUE of CREATE TABLE is an index SQLite refuses to drop on its own.
  return index.origin === 'u' ? 'table' : 'index';
}

function toColumn(row: ColumnRow, primaryKey: readonly string[], keys: ColumnKeys): RawColumn {
  const declared = row.type.trim().toLowerCase();
  const dataType = declared.replace(/\s*\(.*$/s, '');
  const [first, second] =
    /\(([^)]*)\)/
      .exec(declared)?.[1]
      ?.split(',')
      .map((s) => Number(s.trim())) ?? [];
  const isPrimary = primaryKey.length === 1 && primaryKey[0] === row.column_name;
  const isNumeric = /^(decimal|numeric|float|double|real)/.test(dataType);
  return {
    name: row.column_name,
    dataType,
    columnType: dataType,
    defaultRaw: row.default_raw,
    // A primary key column may hold null in SQLite unless declared otherwise; callers can't store one.
    isNullable: row.not_null === 0 && !isPrimary,
    maxLength: !isNumeric && first !== undefined && Number.isFinite(first) ? first : null,
    numericPrecision: isNumeric && first !== undefined && Number.isFinite(first) ? first : null,
    numericScale: isNumeric && second !== undefined && Number.isFinite(second) ? second : null,
    isUnique: keys.isUnique || isPrimary,
    // The rowid key has no index of its own: the table is ordered by it.
    isIndexed: keys.isIndexed || isPrimary,
    indexNames: keys.indexNames,
    uniqueKeys: keys.uniqueKeys,
    // INTEGER PRIMARY KEY is the rowid: SQLite assigns it when the insert leaves it out.
    hasAutoIncrement: isPrimary && dataType === 'integer',
    // pragma_table_xinfo: hidden 2 = virtual generated, 3 = stored generated.
    isGenerated: row.hidden === 2 || row.hidden === 3,
    generationExpression: null,
    hasJsonCheck: false,
    comment: null,
  };
}
