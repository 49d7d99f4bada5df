import { UUID_TEXT } from '../../../catalog/overview/value-forms.js';
import type { FieldType } from '../../../catalog/overview/types.js';
import { InvalidQueryError } from '../../errors.js';
import { asArray } from '../parse/parse-values.js';
import type { Literal } from '../ast/nodes.js';
import {
  OPERATORS_BY_TYPE,
  isFilterOperator,
  operatorSpec,
  type FilterOperator,
} from '../../../catalog/overview/filter-operators.js';
import { integerRangeOfType, isIntegerInRange } from './numbers.js';

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const TIME = /^\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const TEMPORAL = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** The operator must be one the field type offers. */
export function checkOperator(type: FieldType, op: string): FilterOperator {
  if (!isFilterOperator(op) || !OPERATORS_BY_TYPE[type].has(op)) {
    throw new InvalidQueryError(`"${type}" field type does not contain the "${op}" filter operator`);
  }
  return op;
}

/** The entries of a `list` or `pair` operator: a non-empty array or comma string (two for a pair). */
export function listValue(op: FilterOperator, raw: unknown): readonly unknown[] {
  const items = typeof raw === 'string' ? (raw === '' ? [] : raw.split(',')) : asArray(raw);
  if (items === undefined || items.length === 0) throw new InvalidQueryError(`"${op}" has to be an array of values`);
  if (operatorSpec(op).shape === 'pair' && items.length !== 2) {
    throw new InvalidQueryError(`"${op}" has to be an array of two values`);
  }
  return items;
}

/** `flag` operators (`_null`, `_empty`...) take a boolean (`"true"`/`"false"` from a query string). */
export function booleanValue(op: FilterOperator, raw: unknown): boolean {
  const value = toBoolean(raw);
  if (value === undefined) throw new InvalidQueryError(`"${op}" has to be a boolean`);
  return value;
}

/**
 * The scalar operand of any other operator. `"null"` (query strings) means null; objects,
 * arrays and empty strings are refused with the reasons Directus 10 gives.
 */
export function scalarValue(op: FilterOperator, raw: unknown): string | number | boolean | null {
  if (raw === null || raw === 'null') return null;
  if (typeof raw === 'string') {
    if (raw === '') {
      throw new InvalidQueryError(`You can't filter for an empty string in "${op}". Use "_empty" or "_nempty" instead`);
    }
    return raw;
  }
  if (typeof raw === 'number' || typeof raw === 'boolean') return raw;
  throw new InvalidQueryError(`The filter value for "${op}" has to be a string, number, or boolean`);
}

/**
 * Scalars arrive as strings from a query string; coerce them to the
 * field's type so the database never sees a value of the wrong type (which would surface as a
 * database error). `where` names the path for the reason.
 */
export function coerceLiteral(type: FieldType, raw: string | number | boolean | Date, where: string): Literal {
  const refuse = (expected: string): never => {
    throw new InvalidQueryError(`The filter value ${JSON.stringify(String(raw))} for ${where} has to be ${expected}`);
  };
  switch (type) {
    case 'integer':
    case 'bigInteger': {
      const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
      if (!INTEGER.test(text)) return refuse('an integer');
      const range = integerRangeOfType(type);
      if (!isIntegerInRange(text, range)) return refuse(`an integer from ${range[0]} to ${range[1]}`);
      const n = Number(text);
      return Number.isSafeInteger(n) ? n : text.replace(/^\+/, '');
    }
    case 'float': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && NUMBER.test(raw.trim()) ? Number(raw) : NaN;
      return Number.isFinite(n) ? n : refuse('a number');
    }
    case 'decimal': {
      const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
      return NUMBER.test(text) ? text : refuse('a number');
    }
    case 'boolean': {
      const value = toBoolean(raw);
      return value === undefined ? refuse('a boolean') : value;
    }
    case 'date':
    case 'dateTime':
    case 'timestamp': {
      if (raw instanceof Date) return raw;
      const date = typeof raw === 'string' ? parseTemporal(raw) : undefined;
      return date ?? refuse('a date');
    }
    case 'time':
      return typeof raw === 'string' && TIME.test(raw.trim()) ? raw.trim() : refuse('a time');
    case 'uuid':
      return typeof raw === 'string' && UUID_TEXT.test(raw.trim()) ? raw.trim().toLowerCase() : refuse('a UUID');
    case 'string':
    case 'text':
    case 'csv':
    case 'binary':
    case 'hash':
    case 'json':
    case 'geometry':
    case 'alias':
    case 'unknown':
      return raw instanceof Date ? raw.toISOString() : String(raw);
  }
}

/**
 * `2024-01-15`, `2024-01-15T10:00:00`, `2024-01-15 10:00:00.123+02:00`: an instant, read as
 * UTC when no offset is given (dateTime values carry none).
 */
function parseTemporal(text: string): Date | undefined {
  const match = TEMPORAL.exec(text.trim());
  if (match === null) return undefined;
  const [, day, time, zone] = match;
  let offset = zone ?? 'Z';
  if (/^[+-]\d{2}$/.test(offset)) offset += ':00';
  else if (/^[+-]\d{4}$/.test(offset)) offset = `${offset.slice(0, 3)}:${offset.slice(3)}`;
  const date = new Date(`${day}T${time ?? '00:00:00'}${offset.toUpperCase()}`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export function isUuid(text: string): boolean {
  return UUID_TEXT.test(text);
}

function toBoolean(raw: unknown): boolean | undefined {
  if (raw === true || raw === 'true' || raw === 1 || raw === '1') return true;
  if (raw === false || raw === 'false' || raw === 0 || raw === '0') return false;
  return undefined;
}
