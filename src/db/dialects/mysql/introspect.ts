import type { Knex } from 'knex';
import { queryAll } from '../../index.js';
import {
  ColumnKeyIndex,
  groupBy,
  singleColumnKeys,
  type ColumnKeys,
  type RawColumn,
  type RawForeignKey,
  type RawSchema,
  type RawTable,
} from '../introspection.js';

const COLUMNS_SQL = `
SELECT c.TABLE_NAME AS table_name, t.TABLE_COMMENT AS table_comment, c.COLUMN_NAME AS column_name,
       c.DATA_TYPE AS data_type, c.COLUMN_TYPE AS column_type, c.COLUMN_DEFAULT AS default_raw,
       c.IS_NULLABLE AS is_nullable, c.CHARACTER_MAXIMUM_LENGTH AS max_length,
       c.NUMERIC_PRECISION AS numeric_precision, c.NUMERIC_SCALE AS numeric_scale,
       c.EXTRA AS extra, c.GENERATION_EXPRESSION AS generation_expression,
       c.COLUMN_COMMENT AS column_comment
FROM information_schema.COLUMNS c
JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
WHERE c.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE'
ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION`;

const INDEX_SQL = `
SELECT TABLE_NAME AS table_name, INDEX_NAME AS index_name, COLUMN_NAME AS column_name, NON_UNIQUE AS non_unique
FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = DATABASE()
ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`;

const FOREIGN_KEYS_SQL = `
SELECT k.CONSTRAINT_NAME AS constraint_name, k.TABLE_NAME AS table_name, k.COLUMN_NAME AS column_name,
       k.REFERENCED_TABLE_NAME AS foreign_table, k.REFERENCED_COLUMN_NAME AS foreign_column,
       r.UPDATE_RULE AS on_update, r.DELETE_RULE AS on_delete
FROM information_schema.KEY_COLUMN_USAGE k
JOIN information_schema.REFERENTIAL_CONSTRAINTS r
  ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.TABLE_NAME = k.TABLE_NAME
 AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME
WHERE k.TABLE_SCHEMA = DATABASE() AND k.REFERENCED_TABLE_NAME IS NOT NULL
ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`;

// MariaDB only: its JSON type is longtext plus CHECK (json_valid(`col`)). MySQL 8 has a
// real json type and its CHECK_CONSTRAINTS view has no TABLE_NAME column.
const JSON_CHECKS_SQL = `
SELECT TABLE_NAME AS table_name, CHECK_CLAUSE AS check_clause
FROM information_schema.CHECK_CONSTRAINTS
WHERE CONSTRAINT_SCHEMA = DATABASE() AND CHECK_CLAUSE LIKE 'json_valid(%'`;

interface ColumnRow {
  table_name: string;
  table_comment: string | null;
  column_name: string;
  data_type: string;
  column_type: string;
  default_raw: string | null;
  is_nullable: string;
  // bigint unsigned in information_schema: strings with bigNumberStrings.
  max_length: string | number | null;
  numeric_precision: string | number | null;
  numeric_scale: string | number | null;
  extra: string;
  generation_expression: string | null;
  column_comment: string | null;
}

interface IndexRow {
  table_name: string;
  index_name: string;
  column_name: string | null;
  non_unique: string | number;
}

interface ForeignKeyRow {
  constraint_name: string;
  table_name: string;
  column_name: string;
  foreign_table: string;
  foreign_column: string;
  on_update: string;
  on_delete: string;
}

/** Tables, columns, keys and foreign keys of the connected database (MySQL 8, MariaDB 10.11). */
export async function introspectMysql(db: Knex): Promise<RawSchema> {
  const [versionRows, columns, indexRows, foreignKeys] = await queryAll<
    [{ version: string }[], ColumnRow[], IndexRow[], ForeignKeyRow[]]
  >(db, [
    () => selectRows(db, 'SELECT VERSION() AS version'),
    () => selectRows(db, COLUMNS_SQL),
    () => selectRows(db, INDEX_SQL),
    () => selectRows(db, FOREIGN_KEYS_SQL),
  ]);
  const isMariaDb = /mariadb/i.test(versionRows[0]?.version ?? '');
  const jsonColumns = isMariaDb ? await readJsonChecks(db) : new Set<string>();

  const primaryKeys = new Map<string, string[]>();
  const columnKeys = new ColumnKeyIndex();
  for (const rows of groupBy(indexRows, (r) => `${r.table_name}\u0000${r.index_name}`).values()) {
    const [first] = rows;
    // Functional index parts have no column name: such an index is not a column's key.
    if (first === undefined || rows.some((r) => r.column_name === null)) continue;
    const names = rows.map((r) => r.column_name as string);
    if (first.index_name === 'PRIMARY') primaryKeys.set(first.table_name, names);
    const [column] = names;
    if (names.length !== 1 || column === undefined) continue;
    // UNIQUE constraints are indexes here: DROP INDEX drops them.
    const role = first.index_name === 'PRIMARY' ? 'primary' : Number(first.non_unique) === 0 ? 'index' : 'plain';
    columnKeys.add(first.table_name, column, first.index_name, role);
  }

  const tables: RawTable[] = [];
  for (const [name, rows] of groupBy(columns, (r) => r.table_name)) {
    tables.push({
      name,
      comment: emptyToNull(rows[0]?.table_comment ?? null),
      primaryKey: primaryKeys.get(name) ?? [],
      columns: rows.map((r) =>
        toColumn(r, isMariaDb, columnKeys.of(name, r.column_name), jsonColumns.has(`${name}.${r.column_name}`)),
      ),
    });
  }

  const single = singleColumnKeys(foreignKeys, (r) => `${r.table_name}\u0000${r.constraint_name}`);
  return {
    tables,
    foreignKeys: single.map((r): RawForeignKey => ({
      table: r.table_name,
      column: r.column_name,
      foreignTable: r.foreign_table,
      foreignColumn: r.foreign_column,
      constraintName: r.constraint_name,
      onUpdate: r.on_update,
      onDelete: r.on_delete,
    })),
  };
}

async function readJsonChecks(db: Knex): Promise<Set<string>> {
  const rows = await selectRows<{ table_name: string; check_clause: string }>(db, JSON_CHECKS_SQL);
  const columns = new Set<string>();
  for (const row of rows) {
    const column = /^json_valid\(`((?:[^`]|``)+)`\)$/i.exec(row.check_clause.trim())?.[1];
    if (column !== undefined) columns.add(`${row.table_name}.${column.replaceAll('``', '`')}`);
  }
  return columns;
}

function toColumn(row: ColumnRow, isMariaDb: boolean, keys: ColumnKeys, hasJsonCheck: boolean): RawColumn {
  const extra = row.extra.toLowerCase();
  const isGenerated = /\b(virtual|stored|persistent) generated\b|^(virtual|persistent|stored)$/.test(extra);
  const dataType = row.data_type.toLowerCase();
  const columnType = row.column_type.toLowerCase();
  return {
    name: row.column_name,
    dataType,
    // tinyint(1) is how MySQL spells boolean; the display width matters only there.
    columnType: columnType.startsWith('tinyint(1)') ? 'tinyint(1)' : dataType,
    defaultRaw: isGenerated ? null : normaliseDefault(row.default_raw, isMariaDb, extra),
    isNullable: row.is_nullable === 'YES',
    maxLength: toNumber(row.max_length),
    numericPrecision: toNumber(row.numeric_precision),
    numericScale: toNumber(row.numeric_scale),
    ...keys,
    hasAutoIncrement: extra.includes('auto_increment'),
    isGenerated,
    generationExpression: isGenerated ? emptyToNull(row.generation_expression) : null,
    hasJsonCheck,
    comment: emptyToNull(row.column_comment),
  };
}

/**
 * To plain SQL. MariaDB already prints SQL (`'draft'`, `NULL`, `current_timestamp()`);
 * MySQL 8 prints string literals bare (`draft`) and marks expressions DEFAULT_GENERATED.
 */
function normaliseDefault(raw: string | null, isMariaDb: boolean, extra: string): string | null {
  if (raw === null || isMariaDb) return raw;
  if (extra.includes('default_generated')) return raw;
  return `'${raw.replaceAll("'", "''")}'`;
}

/** mysql2 answers raw queries with [rows, fields]. */
async function selectRows<T>(db: Knex, sql: string): Promise<T[]> {
  const [rows] = (await db.raw(sql)) as [T[], unknown];
  return rows;
}

function toNumber(value: string | number | null): number | null {
  return value === null ? null : Number(value);
}

function emptyToNull(value: string | null): string | null {
  return value === null || value === '' ? null : value;
}
