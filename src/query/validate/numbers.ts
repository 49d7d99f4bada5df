import type { FieldOverview, FieldType } from '../../../catalog/overview/types.js';

/**
 * The one place numbers from requests are parsed and bounded: query windows (limit, offset,
 * page) and integer values per field (keys, filter values, payload values). A number outside
 * these bounds never reaches a database, where PostgreSQL would fail the whole statement on it
 * (22003 numeric value out of range) and SQLite would take `1e+40` as a limit of text.
 */

/** The largest limit, offset or page a query may name: exact in a double, below every dialect's LIMIT. */
export const MAX_QUERY_INTEGER = Number.MAX_SAFE_INTEGER;

const INTEGER_TEXT = /^[-+]?\d+$/;

/** An integer written as a JSON number or as text (`42`, ` -7 `, `+3`), exactly; undefined otherwise. */
export function toBigInteger(value: unknown): bigint | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : undefined;
  if (typeof value === 'bigint') return value;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  return INTEGER_TEXT.test(text) ? BigInt(text) : undefined;
}

export type IntegerRange = readonly [min: bigint, max: bigint];

const INT32: IntegerRange = [-(2n ** 31n), 2n ** 31n - 1n];
const INT64: IntegerRange = [-(2n ** 63n), 2n ** 63n - 1n];

/** Column types by their spellings in the three dialects' introspection (PostgreSQL, MariaDB, SQLite). */
const RANGES_BY_DB_TYPE: readonly (readonly [RegExp, IntegerRange])[] = [
  [/^tinyint/, [-128n, 127n]],
  [/^(smallint|int2|smallserial)/, [-32768n, 32767n]],
  [/^mediumint/, [-8388608n, 8388607n]],
  [/^(bigint|int8|bigserial)/, INT64],
];

/**
 * The values an integer column holds, by its database type (`smallint`, `int unsigned`, ...);
 * otherwise 32 bits for `integer` fields and 64 for `bigInteger` ones, on every dialect (an
 * `integer` key or value above 2^31 is refused everywhere, as PostgreSQL refuses it).
 */
export function integerRange(field: Pick<FieldOverview, 'type' | 'dbType'>): IntegerRange {
  let range = rangeOfField.get(field);
  if (range === undefined) rangeOfField.set(field, (range = rangeOf(field)));
  return range;
}

/** A field's range, worked out once per field (an import asks it for every value). */
const rangeOfField = new WeakMap<Pick<FieldOverview, 'type' | 'dbType'>, IntegerRange>();

function rangeOf(field: Pick<FieldOverview, 'type' | 'dbType'>): IntegerRange {
  const dbType = (field.dbType ?? '').toLowerCase();
  const found = RANGES_BY_DB_TYPE.find(([pattern]) => pattern.test(dbType))?.[1];
  const [min, max] = found ?? (field.type === 'bigInteger' ? INT64 : INT32);
  return dbType.includes('unsigned') ? [0n, max * 2n + 1n] : [min, max];
}

/** The range of values of an integer type when no column says more (functions, counts, keys). */
export function integerRangeOfType(type: FieldType): IntegerRange {
  let range = rangeOfType.get(type);
  if (range === undefined) rangeOfType.set(type, (range = rangeOf({ type, dbType: null })));
  return range;
}

/** Per type, as {@link rangeOfField} per field: a key coerced for every read by id asks it. */
const rangeOfType = new Map<FieldType, IntegerRange>();

/** Whether `value` is an integer inside `range`. */
export function isIntegerInRange(value: unknown, range: IntegerRange): boolean {
  const n = toBigInteger(value);
  return n !== undefined && n >= range[0] && n <= range[1];
}
