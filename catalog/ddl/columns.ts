import type { Knex } from 'knex';
import type { DbClient } from '../../src/db-client.js';
import { databaseDialect, type DatabaseDialect, type TableBuilder } from '../../src/db/dialects/index.js';
import { invariant } from '../../src/errors.js';
import type { FieldType } from '../overview/types.js';

/** Everything needed to write one column's definition. */
export interface ColumnDefinition {
  readonly name: string;
  readonly type: FieldType;
  readonly isPrimaryKey: boolean;
  readonly hasAutoIncrement: boolean;
  readonly isNullable: boolean;
  /** undefined or null: no default. `CURRENT_TIMESTAMP`, `now()` or `{fn:"now"}`: the current time. */
  readonly defaultValue: unknown;
  readonly maxLength: number | null;
  readonly precision: number | null;
  readonly scale: number | null;
  readonly comment: string | null;
}

const DEFAULT_STRING_LENGTH = 255;
const DEFAULT_PRECISION = 10;
const DEFAULT_SCALE = 5;

/** A decimal column's precision and scale (the defaults when none is given). */
export function decimalSizeOf(
  column: Pick<ColumnDefinition, 'precision' | 'scale'>,
): [precision: number, scale: number] {
  return [column.precision ?? DEFAULT_PRECISION, column.scale ?? DEFAULT_SCALE];
}

/**
 * Adds the column to a create/alter table builder, spelled so that introspection reads the
 * same API type back on every dialect: SQLite gets declared types it would otherwise lose
 * (timestamp, decimal), MySQL gets a plain `float` (knex writes float(8,2)) and signed
 * auto-increment keys (knex writes int unsigned, which no signed integer FK can reference).
 */
export function defineColumn(
  table: Knex.CreateTableBuilder | Knex.AlterTableBuilder,
  db: Knex,
  dialect: DbClient,
  column: ColumnDefinition,
): Knex.ColumnBuilder {
  const database = databaseDialect(dialect);
  const isAutoKey = column.isPrimaryKey && column.hasAutoIncrement;
  if (isAutoKey) return autoIncrementKey(table, database, column);

  const builder = typedColumn(table, database, column);
  if (column.isPrimaryKey) builder.primary();
  if (column.isPrimaryKey || !column.isNullable) builder.notNullable();
  else builder.nullable();
  const defaultValue = toDefault(db, column);
  if (defaultValue !== undefined) builder.defaultTo(defaultValue);
  if (column.comment !== null && database.columnComments) builder.comment(column.comment);
  return builder;
}

function autoIncrementKey(
  table: TableBuilder,
  database: DatabaseDialect,
  column: ColumnDefinition,
): Knex.ColumnBuilder {
  const isBig = column.type === 'bigInteger';
  invariant(isBig || column.type === 'integer', `auto-increment key of type ${column.type}`);
  return database.autoIncrementKey(table, column.name, isBig);
}

function typedColumn(table: TableBuilder, database: DatabaseDialect, column: ColumnDefinition): Knex.ColumnBuilder {
  const { name } = column;
  switch (column.type) {
    case 'string':
    case 'hash':
      return table.string(name, column.maxLength ?? DEFAULT_STRING_LENGTH);
    case 'text':
    case 'csv':
      return table.text(name);
    case 'integer':
      return table.integer(name);
    case 'bigInteger':
      return table.bigInteger(name);
    case 'float':
      return database.floatColumn(table, name);
    case 'decimal': {
      const [precision, scale] = decimalSizeOf(column);
      return database.decimalColumn(table, name, precision, scale);
    }
    case 'boolean':
      return table.boolean(name);
    case 'date':
      return table.date(name);
    case 'time':
      return table.time(name);
    case 'dateTime':
      return database.dateTimeColumn(table, name);
    case 'timestamp':
      return database.timestampColumn(table, name);
    case 'json':
      return table.json(name);
    case 'uuid':
      return table.uuid(name);
    case 'binary':
      return table.binary(name);
    case 'alias':
    case 'geometry':
    case 'unknown':
      throw new Error(`Invariant failed: no column for type ${column.type}`);
  }
}

/** The declared length of a string column (knex's default when none is given); null for other types. */
export function stringLengthOf(column: ColumnDefinition): number | null {
  return column.type === 'string' || column.type === 'hash' ? (column.maxLength ?? DEFAULT_STRING_LENGTH) : null;
}

const NOW_DEFAULTS = /^(current_timestamp(\(\))?|now\(\))$/i;

/** `CURRENT_TIMESTAMP`, `now()` or `{fn:"now"}`: the current time (of the date and time types). */
export function isNowDefault(value: unknown): boolean {
  return (
    (typeof value === 'string' && NOW_DEFAULTS.test(value)) ||
    (typeof value === 'object' && value !== null && (value as { fn?: unknown }).fn === 'now')
  );
}

/** A boolean default as the column takes it: knex writes every value but `'false'` as true. */
function booleanDefault(value: unknown): boolean {
  return value === true || value === 1 || value === 'true' || value === '1';
}

/** The column's default is the current time (written as the database's function, not as text). */
export function defaultsToNow(column: ColumnDefinition): boolean {
  return isNowDefault(column.defaultValue) && ['date', 'time', 'dateTime', 'timestamp'].includes(column.type);
}

function toDefault(db: Knex, column: ColumnDefinition): Knex.Value | undefined {
  const value = column.defaultValue;
  if (value === undefined || value === null) return undefined;
  if (defaultsToNow(column)) return db.fn.now();
  // knex writes every value but 'false' as true ('0' too): checked by default-values.ts first.
  if (column.type === 'boolean') return booleanDefault(value);
  if (column.type === 'json' || typeof value === 'object') return JSON.stringify(value);
  return value as Knex.Value;
}
