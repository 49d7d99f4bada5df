import type { Knex } from 'knex';
import { queryAll } from '../../index.js';
import {
  ColumnKeyIndex,
  groupBy,
  type ColumnKeys,
  type IndexRole,
  type RawColumn,
  type RawForeignKey,
  type RawSchema,
  type RawTable,
} from '../introspection.js';

/** pg_constraint action codes → SQL words. */
const FK_ACTIONS: Readonly<Record<string, string>> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};

// The catalogue tables directly (information_schema is several times slower on PostgreSQL
// with hundreds of tables). Lengths and precisions are decoded from atttypmod the way
// information_schema does it; the OIDs are the built-in types int2, int4, int8, float4,
// float8, numeric, bpchar and varchar. Comments are joined from pg_description: calling
// obj_description/col_description per row made this query three times slower (bench/).
const COLUMNS_SQL = `
SELECT rel.relname AS table_name,
       tdesc.description AS table_comment,
       att.attname AS column_name,
       format_type(CASE WHEN typ.typtype = 'd' THEN typ.typbasetype ELSE att.atttypid END, NULL) AS data_type,
       typ.typtype AS type_kind,
       pg_get_expr(def.adbin, def.adrelid) AS default_raw,
       NOT att.attnotnull AS is_nullable,
       CASE WHEN att.atttypid IN (1042, 1043) AND att.atttypmod > 4 THEN att.atttypmod - 4 END AS max_length,
       CASE att.atttypid WHEN 21 THEN 16 WHEN 23 THEN 32 WHEN 20 THEN 64 WHEN 700 THEN 24 WHEN 701 THEN 53
         WHEN 1700 THEN CASE WHEN att.atttypmod > 4 THEN ((att.atttypmod - 4) >> 16) & 65535 END
       END AS numeric_precision,
       CASE WHEN att.atttypid IN (20, 21, 23) THEN 0
         WHEN att.atttypid = 1700 AND att.atttypmod > 4 THEN (att.atttypmod - 4) & 65535
       END AS numeric_scale,
       att.attidentity AS identity,
       att.attgenerated AS generated,
       cdesc.description AS column_comment
FROM pg_class rel
JOIN pg_namespace ns ON ns.oid = rel.relnamespace
JOIN pg_attribute att ON att.attrelid = rel.oid AND att.attnum > 0 AND NOT att.attisdropped
JOIN pg_type typ ON typ.oid = att.atttypid
LEFT JOIN pg_attrdef def ON def.adrelid = rel.oid AND def.adnum = att.attnum
LEFT JOIN pg_description tdesc
  ON tdesc.objoid = rel.oid AND tdesc.classoid = 'pg_class'::regclass AND tdesc.objsubid = 0
LEFT JOIN pg_description cdesc
  ON cdesc.objoid = rel.oid AND cdesc.classoid = 'pg_class'::regclass AND cdesc.objsubid = att.attnum
WHERE ns.nspname = current_schema() AND rel.relkind IN ('r', 'p') AND NOT rel.relispartition
ORDER BY rel.relname, att.attnum`;

// Unique indexes cover both UNIQUE constraints and CREATE UNIQUE INDEX; partial ones don't count.
const INDEX_SQL = `
SELECT rel.relname AS table_name, idx.indexrelid::text AS index_id, irel.relname AS index_name,
       idx.indisprimary AS is_primary, idx.indisunique AS is_unique, idx.indnkeyatts AS column_count,
       att.attname AS column_name,
       EXISTS (SELECT 1 FROM pg_constraint con
               WHERE con.conindid = idx.indexrelid AND con.conrelid = idx.indrelid AND con.contype = 'u'
       ) AS is_constraint
FROM pg_index idx
JOIN pg_class rel ON rel.oid = idx.indrelid
JOIN pg_class irel ON irel.oid = idx.indexrelid
JOIN pg_namespace ns ON ns.oid = rel.relnamespace
CROSS JOIN LATERAL unnest(idx.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
JOIN pg_attribute att ON att.attrelid = rel.oid AND att.attnum = k.attnum
WHERE ns.nspname = current_schema() AND idx.indpred IS NULL
  AND k.ord <= idx.indnkeyatts
ORDER BY rel.relname, idx.indexrelid, k.ord`;

const FOREIGN_KEYS_SQL = `
SELECT con.conname AS constraint_name, rel.relname AS table_name, att.attname AS column_name,
       frel.relname AS foreign_table, fatt.attname AS foreign_column,
       con.confupdtype AS on_update, con.confdeltype AS on_delete
FROM pg_constraint con
JOIN pg_class rel ON rel.oid = con.conrelid
JOIN pg_namespace ns ON ns.oid = rel.relnamespace
JOIN pg_class frel ON frel.oid = con.confrelid
JOIN pg_attribute att ON att.attrelid = con.conrelid AND att.attnum = con.conkey[1]
JOIN pg_attribute fatt ON fatt.attrelid = con.confrelid AND fatt.attnum = con.confkey[1]
WHERE con.contype = 'f' AND ns.nspname = current_schema() AND cardinality(con.conkey) = 1
ORDER BY rel.relname, con.conname`;

interface ColumnRow {
  table_name: string;
  table_comment: string | null;
  column_name: string;
  data_type: string;
  type_kind: string;
  default_raw: string | null;
  is_nullable: boolean;
  max_length: number | null;
  numeric_precision: number | null;
  numeric_scale: number | null;
  identity: string;
  generated: string;
  column_comment: string | null;
}

interface IndexRow {
  table_name: string;
  index_id: string;
  index_name: string;
  is_primary: boolean;
  is_unique: boolean;
  /** A UNIQUE constraint's index: dropped with the constraint, never by DROP INDEX. */
  is_constraint: boolean;
  column_count: number;
  column_name: string;
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

/** Tables, columns, keys and foreign keys of the current schema: three queries in all. */
export async function introspectPostgres(db: Knex): Promise<RawSchema> {
  const [columns, indexRows, foreignKeys] = await queryAll<
    [{ rows: ColumnRow[] }, { rows: IndexRow[] }, { rows: ForeignKeyRow[] }]
  >(db, [() => db.raw(COLUMNS_SQL), () => db.raw(INDEX_SQL), () => db.raw(FOREIGN_KEYS_SQL)]);

  const indexes = groupBy(indexRows.rows, (r) => r.index_id);
  const primaryKeys = new Map<string, string[]>();
  const columnKeys = new ColumnKeyIndex();
  for (const rows of indexes.values()) {
    const [first] = rows;
    if (first === undefined || rows.length !== first.column_count) continue;
    if (first.is_primary)
      primaryKeys.set(
        first.table_name,
        rows.map((r) => r.column_name),
      );
    if (rows.length !== 1) continue;
    columnKeys.add(first.table_name, first.column_name, first.index_name, postgresRole(first));
  }

  const tables: RawTable[] = [];
  for (const [name, rows] of groupBy(columns.rows, (r) => r.table_name)) {
    tables.push({
      name,
      comment: rows[0]?.table_comment ?? null,
      primaryKey: primaryKeys.get(name) ?? [],
      columns: rows.map((r) => toColumn(r, columnKeys.of(name, r.column_name))),
    });
  }

  return {
    tables,
    foreignKeys: foreignKeys.rows.map((r): RawForeignKey => ({
      table: r.table_name,
      column: r.column_name,
      foreignTable: r.foreign_table,
      foreignColumn: r.foreign_column,
      constraintName: r.constraint_name,
      onUpdate: FK_ACTIONS[r.on_update] ?? null,
      onDelete: FK_ACTIONS[r.on_delete] ?? null,
    })),
  };
}

function postgresRole(index: IndexRow): IndexRole {
  if (index.is_primary) return 'primary';
  if (!index.is_unique) return 'plain';
  return index.is_constraint ? 'constraint' : 'index';
}

function toColumn(row: ColumnRow, keys: ColumnKeys): RawColumn {
  const isGenerated = row.generated !== '';
  const defaultRaw = isGenerated ? null : row.default_raw;
  const isSerial = defaultRaw !== null && /^nextval\(/i.test(defaultRaw);
  // Enums and other user-defined scalar types are text on the wire.
  const dataType = row.type_kind === 'e' ? 'character varying' : row.data_type.toLowerCase();
  return {
    name: row.column_name,
    dataType,
    columnType: dataType,
    defaultRaw: isSerial ? null : stripCast(defaultRaw),
    isNullable: row.is_nullable,
    maxLength: row.max_length,
    numericPrecision: row.numeric_precision,
    numericScale: row.numeric_scale,
    ...keys,
    hasAutoIncrement: isSerial || row.identity !== '',
    isGenerated,
    generationExpression: isGenerated ? row.default_raw : null,
    hasJsonCheck: false,
    comment: row.column_comment,
  };
}

/**
 * `'draft'::character varying` → `'draft'`, `NULL::text` → `NULL`. Literals stay as written
 * (`'-1'::integer` → `'-1'`): the overview casts them by the field's type.
 */
function stripCast(raw: string | null): string | null {
  if (raw === null) return null;
  return /^(.*?)::[\w\s"[\].]+(\([\d,\s]*\))?$/s.exec(raw)?.[1] ?? raw;
}
