import { InvalidPayloadError } from '../../src/errors.js';
import { fitsFloat32, isCalendarMoment, isTimeOfDay, UUID_TEXT } from '../overview/value-forms.js';
import { decimalSizeOf, isNowDefault } from './columns.js';

/**
 * A column default checked against its field's type before any DDL runs, the same on every
 * database: MariaDB refused `{"x":1}` on an integer (ER_INVALID_DEFAULT), PostgreSQL called it
 * a value that can't be converted, SQLite stored it and new items read a string in an integer
 * field; knex writes any other string than `'false'` as true for a boolean. What a default may
 * be is what an item's value of that type may be (src/commands/validate-payload.ts), and for
 * the date and time types also the current time (`CURRENT_TIMESTAMP`, `now()`, `{fn:"now"}`).
 */

const INTEGER_TEXT = /^[-+]?\d+$/;
const NUMBER_TEXT = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;
const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;
/** A date and a time of day (`T` or a space between), optional fractions and zone. */
const DATE_TIME_TEXT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[-+]\d{2}(?::?\d{2})?)?)?$/i;
const TIME_TEXT = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;
const BOOLEAN_VALUES: readonly unknown[] = [true, false, 1, 0, 'true', 'false', '1', '0'];

/** What the service stores for `integer` and `bigInteger` on every database (src/query/validate/numbers.ts). */
const INTEGER_RANGES: Readonly<Record<string, readonly [bigint, bigint]>> = {
  integer: [-(2n ** 31n), 2n ** 31n - 1n],
  bigInteger: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** The size of the column a default is for: a decimal's precision and scale (null: the defaults). */
export interface DefaultColumn {
  readonly precision?: number | null | undefined;
  readonly scale?: number | null | undefined;
}

/**
 * INVALID_PAYLOAD naming the field when `value`, the `default_value` asked for, is not a value
 * of `type` (for a decimal, one its precision and scale hold). No default (undefined, null)
 * always fits; json, binary and types the service does not alter take any value.
 */
export function assertDefaultFits(
  collection: string,
  field: string,
  type: string,
  value: unknown,
  column: DefaultColumn = {},
): void {
  if (value === undefined || value === null || fitsType(type, value, column)) return;
  // The current time as the API writes it (a default kept under a new type is `{fn:"now"}`).
  const shown = typeof value === 'object' && isNowDefault(value) ? 'CURRENT_TIMESTAMP' : JSON.stringify(value);
  throw new InvalidPayloadError(
    `The default value ${shown} of field "${field}" of collection "${collection}" is not ${expected(type, column)}`,
  );
}

/** How a refusal names what the default should have been. */
function expected(type: string, column: DefaultColumn): string {
  switch (type) {
    case 'string':
    case 'text':
      return 'a text or a number';
    case 'hash':
    case 'csv':
      return 'a text';
    case 'integer':
    case 'bigInteger':
      return `an integer (of a ${type === 'integer' ? '4' : '8'}-byte column)`;
    case 'float':
      return 'a number (of a 4-byte float column)';
    case 'decimal': {
      const [precision, scale] = decimalSizeOf({ precision: column.precision ?? null, scale: column.scale ?? null });
      return `a number of at most ${String(precision - scale)} digits before the point (decimal(${String(precision)}, ${String(scale)}))`;
    }
    case 'boolean':
      return 'a boolean (true or false)';
    case 'date':
      return 'a date (YYYY-MM-DD) or CURRENT_TIMESTAMP';
    case 'time':
      return 'a time (HH:MM or HH:MM:SS) or CURRENT_TIMESTAMP';
    case 'dateTime':
    case 'timestamp':
      return 'a date and time (YYYY-MM-DD HH:MM:SS) or CURRENT_TIMESTAMP';
    case 'uuid':
      return 'a uuid';
    default:
      return `a value of type "${type}"`;
  }
}

function fitsType(type: string, value: unknown, column: DefaultColumn): boolean {
  switch (type) {
    case 'string':
    case 'text':
      return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
    case 'hash':
    case 'csv':
      return typeof value === 'string';
    case 'integer':
    case 'bigInteger':
      return isIntegerIn(value, INTEGER_RANGES[type]);
    case 'float':
      // A `float` field is a 4-byte float on every database.
      return fitsFloat32(toNumber(value));
    case 'decimal': {
      const [precision, scale] = decimalSizeOf({ precision: column.precision ?? null, scale: column.scale ?? null });
      // Rounded to the scale as the column stores it; NaN (not a number) fails the comparison.
      return Math.abs(Number(toNumber(value).toFixed(scale))) < 10 ** (precision - scale);
    }
    case 'boolean':
      return BOOLEAN_VALUES.includes(value);
    case 'uuid':
      return typeof value === 'string' && UUID_TEXT.test(value);
    case 'date':
      return isNowDefault(value) || (typeof value === 'string' && isCalendarMoment(DATE_TEXT.exec(value)));
    case 'dateTime':
    case 'timestamp':
      return isNowDefault(value) || (typeof value === 'string' && isCalendarMoment(DATE_TIME_TEXT.exec(value)));
    case 'time': {
      if (isNowDefault(value)) return true;
      const time = typeof value === 'string' ? TIME_TEXT.exec(value) : null;
      return time !== null && isTimeOfDay(time[1], time[2], time[3]);
    }
    default:
      return true;
  }
}

/** A number given as a JSON number or as numeric text; NaN for anything else. */
function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && NUMBER_TEXT.test(value) ? Number(value) : NaN;
}

function isIntegerIn(value: unknown, range: readonly [bigint, bigint] | undefined): boolean {
  let n: bigint;
  if (typeof value === 'number' && Number.isInteger(value)) n = BigInt(value);
  else if (typeof value === 'string' && INTEGER_TEXT.test(value)) n = BigInt(value);
  else return false;
  return range === undefined || (n >= range[0] && n <= range[1]);
}
