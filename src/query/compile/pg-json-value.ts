import type { FieldType, SchemaOverview } from '../../../catalog/overview/types.js';
import { assertNever } from '../../errors.js';
import type { ReadNode } from '../ast/nodes.js';
import { MASK } from '../shape/shape-value.js';
import type { Emit, SqlWriter } from '../../db/dialects/read.js';

/**
 * The PostgreSQL column types (as introspected: information_schema's data_type) each field type is written from as JSON. Other
 * columns (a `cast-*` special over another type, json, binary, geometry) are read as rows and
 * shaped in JavaScript: a `cast-json` text column may hold text that is not JSON, which the
 * shaper passes through and a cast would refuse.
 */
const TEXT = ['character varying', 'character', 'text', 'varchar', 'bpchar'];
const JSON_COLUMN_TYPES: Partial<Readonly<Record<FieldType, ReadonlySet<string>>>> = {
  integer: new Set(['smallint', 'integer', 'int2', 'int4']),
  bigInteger: new Set(['bigint', 'int8']),
  float: new Set(['real', 'double precision', 'float4', 'float8']),
  decimal: new Set(['numeric']),
  boolean: new Set(['boolean', 'bool']),
  string: new Set(TEXT),
  text: new Set(TEXT),
  uuid: new Set(['uuid', ...TEXT]),
  csv: new Set(['character varying', 'text', 'varchar']),
  date: new Set(['date']),
  time: new Set(['time without time zone', 'time with time zone', 'time', 'timetz']),
  dateTime: new Set(['timestamp without time zone', 'timestamp']),
  timestamp: new Set(['timestamp with time zone', 'timestamptz']),
};

/**
 * Object keys are the column names of derived tables (compileReadJson): only plain ones,
 * within PostgreSQL's 63-byte identifiers (longer ones would be cut); others keep the row path.
 */
const PLAIN_KEY = /^[A-Za-z0-9_$ -]{1,63}$/;

/**
 * Whether every value of the tree has a JSON form written by PostgreSQL identical to what
 * the shaper makes of its row (shape-value.ts stays the reference). Many-to-any items are
 * left to the shaper.
 */
export function hasJsonForm(overview: SchemaOverview, collection: string, children: readonly ReadNode[]): boolean {
  const fields = overview.collections[collection]?.fields;
  return children.every((node) => {
    if (!PLAIN_KEY.test(node.key)) return false;
    switch (node.kind) {
      case 'field': {
        const field = fields?.[node.column];
        if (node.masked || node.type === 'hash') return true;
        return (
          field !== undefined && field.dbType !== null && (JSON_COLUMN_TYPES[node.type]?.has(field.dbType) ?? false)
        );
      }
      case 'function':
      case 'constant':
        return true;
      case 'm2o':
        return hasJsonForm(overview, node.relation.target.collection, node.children);
      case 'o2m': {
        const { target } = node.relation;
        if (node.children !== null) return hasJsonForm(overview, target.collection, node.children);
        const key = overview.collections[target.collection]?.fields[target.primary];
        return key?.dbType != null && (JSON_COLUMN_TYPES[target.primaryType]?.has(key.dbType) ?? false);
      }
      case 'a2o':
        return false;
      default:
        return assertNever(node);
    }
  });
}

/**
 * Whose JSON the database writes: the REST answer's (`api`), or GraphQL's, which serialises
 * each value as its field's scalar does (field-scalars.ts): a primary key is an `ID` (text),
 * a decimal a `Float` (a number), and a number that is not finite has no form (graphql-js
 * answers an error for it): reading one fails the statement, and the caller lets graphql-js
 * execute the operation instead.
 */
export type JsonForm = 'api' | 'graphql';

/**
 * A column as the JSON value the API returns (shape-value.ts, which stays the reference):
 * big numbers and decimals as text, temporal values in the shaper's ISO forms (milliseconds
 * truncated as it does), csv as an array, masked values as the mask. In GraphQL's form
 * ({@link JsonForm}), `isKey` (the level's primary key) is text and decimals are numbers.
 */
export function pgJsonValue(
  w: SqlWriter,
  column: Emit,
  type: FieldType,
  masked: boolean,
  form: JsonForm = 'api',
  isKey = false,
): void {
  const wrap = (before: string, after: string) => {
    w.raw(before);
    column(w);
    w.raw(after);
  };
  if (masked || type === 'hash') {
    wrap('(case when ', ` is null then null else '${MASK}' end)`);
    return;
  }
  if (form === 'graphql') {
    if (isKey) {
      wrap('cast(', ' as text)');
      return;
    }
    if (type === 'float' || type === 'decimal') {
      // Not finite: the text ('NaN', 'Infinity') cast to an integer fails the statement. The
      // cast reads the column, so PostgreSQL cannot fold it into an error while planning.
      wrap('(case when cast(', " as double precision) in ('NaN', 'Infinity', '-Infinity') then cast(cast(");
      wrap('', ' as text) as integer) else cast(');
      wrap('', ' as double precision) end)');
      return;
    }
  }
  switch (type) {
    case 'bigInteger':
    case 'decimal':
    case 'date':
    case 'time':
      wrap('cast(', ' as text)');
      return;
    case 'float':
      // JSON has no NaN or infinities: the shaper's numbers serialize them as null.
      wrap('(case when cast(', " as double precision) in ('NaN', 'Infinity', '-Infinity') then null else ");
      wrap('', ' end)');
      return;
    case 'csv':
      wrap('(case when cast(', " as text) = '' then cast('[]' as json) else to_json(string_to_array(");
      wrap('', ", ',')) end)");
      return;
    case 'dateTime':
      // YYYY-MM-DDTHH:MM:SS, and .mmm only when there are milliseconds.
      wrap(`(to_char(`, ` , 'YYYY-MM-DD"T"HH24:MI:SS') || case when to_char(`);
      wrap('', ` , 'MS') = '000' then '' else '.' || to_char(`);
      wrap('', ` , 'MS') end)`);
      return;
    case 'timestamp':
      wrap(`to_char(`, ` at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);
      return;
    default:
      column(w);
  }
}
