import type { RawColumn } from '../introspection/index.js';
import type { ColumnDefault } from '../introspection/defaults.js';
import type { FieldType } from './types.js';

/** Base column types → API field types, all dialects together (types are lower case). */
const TYPE_BY_DATA_TYPE: Readonly<Record<string, FieldType>> = {
  boolean: 'boolean',
  bool: 'boolean',
  smallint: 'integer',
  integer: 'integer',
  int: 'integer',
  int2: 'integer',
  int4: 'integer',
  mediumint: 'integer',
  tinyint: 'integer',
  serial: 'integer',
  smallserial: 'integer',
  bigint: 'bigInteger',
  int8: 'bigInteger',
  bigserial: 'bigInteger',
  real: 'float',
  float: 'float',
  double: 'float',
  'double precision': 'float',
  float4: 'float',
  float8: 'float',
  numeric: 'decimal',
  decimal: 'decimal',
  char: 'string',
  character: 'string',
  nchar: 'string',
  bpchar: 'string',
  varchar: 'string',
  'character varying': 'string',
  nvarchar: 'string',
  'varying character': 'string',
  'native character': 'string',
  citext: 'string',
  enum: 'string',
  set: 'string',
  text: 'text',
  tinytext: 'text',
  mediumtext: 'text',
  longtext: 'text',
  clob: 'text',
  uuid: 'uuid',
  uniqueidentifier: 'uuid',
  date: 'date',
  time: 'time',
  'time without time zone': 'time',
  'time with time zone': 'time',
  datetime: 'dateTime',
  'timestamp without time zone': 'dateTime',
  timestamp: 'timestamp',
  'timestamp with time zone': 'timestamp',
  timestamptz: 'timestamp',
  json: 'json',
  jsonb: 'json',
  bytea: 'binary',
  blob: 'binary',
  binary: 'binary',
  varbinary: 'binary',
  tinyblob: 'binary',
  mediumblob: 'binary',
  longblob: 'binary',
  geometry: 'geometry',
  point: 'geometry',
  linestring: 'geometry',
  polygon: 'geometry',
  multipoint: 'geometry',
  multilinestring: 'geometry',
  multipolygon: 'geometry',
  geometrycollection: 'geometry',
};

/** Specials that fix the API type whatever the column. */
const TYPE_BY_SPECIAL: readonly (readonly [string, FieldType])[] = [
  ['cast-json', 'json'],
  ['hash', 'hash'],
  ['cast-csv', 'csv'],
  ['uuid', 'uuid'],
  ['cast-timestamp', 'timestamp'],
  ['cast-datetime', 'dateTime'],
];

/** The type a special fixes (`hash` → hash), or undefined for one that fixes none. */
export function typeFixedBy(flag: string): FieldType | undefined {
  return TYPE_BY_SPECIAL.find(([special]) => special === flag)?.[1];
}

/**
 * The API type of a column. The dialects spell the same thing differently: MySQL's boolean
 * is tinyint(1), MariaDB's JSON is longtext with a json_valid check, and a uuid is char(36)
 * wherever there is no uuid type (SQLite, MySQL).
 */
export function fieldTypeOf(column: RawColumn, special: readonly string[]): FieldType {
  for (const [flag, type] of TYPE_BY_SPECIAL) if (special.includes(flag)) return type;
  if (column.columnType === 'tinyint(1)') return 'boolean';
  if (column.hasJsonCheck) return 'json';
  const type = TYPE_BY_DATA_TYPE[column.dataType];
  if (type === 'string' && column.maxLength === 36 && /^(char|character|nchar|bpchar)$/.test(column.dataType)) {
    return 'uuid';
  }
  if (type !== undefined) return type;
  if (column.dataType.endsWith('[]')) return 'unknown';
  // SQLite accepts any declared type and applies its affinity rules (datatype3.html, 3.1).
  if (/^(var)?char|^nvarchar|^character/.test(column.dataType)) return 'string';
  if (/int/.test(column.dataType)) return 'integer';
  if (/text|clob/.test(column.dataType)) return 'text';
  return 'unknown';
}

/** A parsed default as the field's type holds it (bigInteger and decimal stay strings). */
export function castDefault(value: ColumnDefault, type: FieldType): unknown {
  if (value === null || typeof value === 'object') return value;
  switch (type) {
    case 'integer':
    case 'float': {
      const n = Number(value);
      return Number.isFinite(n) ? n : value;
    }
    case 'bigInteger':
    case 'decimal':
      return String(value);
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (/^(1|true|t)$/i.test(String(value))) return true;
      if (/^(0|false|f)$/i.test(String(value))) return false;
      return value;
    case 'json':
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return value;
      }
    default:
      return typeof value === 'string' ? value : String(value);
  }
}
