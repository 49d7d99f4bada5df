import { InvalidPayloadError } from '../../src/errors.js';
import { decimalSizeOf } from './columns.js';

/**
 * The sizes a column may be given, the same on every database: the smallest of what each
 * holds. A string (varchar) holds at most 16,383 characters (MariaDB's varchar in utf8mb4;
 * PostgreSQL takes 10,485,760, SQLite any), a decimal at most 65 digits (MariaDB; PostgreSQL
 * 1000) of which at most 30 after the point (MySQL; MariaDB 38), and never more after the
 * point than in all. MariaDB answered larger sizes with a 500 (ER_TOO_BIG_FIELDLENGTH,
 * ER_TOO_BIG_PRECISION, ...); checked as the body is read, before any DDL.
 */
const MAX_STRING_LENGTH = 16_383;
const MAX_DECIMAL_PRECISION = 65;
const MAX_DECIMAL_SCALE = 30;

/** The sizes asked for (undefined or null: the type's default). */
export interface ColumnSize {
  readonly maxLength?: number | null | undefined;
  readonly precision?: number | null | undefined;
  readonly scale?: number | null | undefined;
}

/**
 * INVALID_PAYLOAD naming the field and the key when a size of a column of `type` is beyond
 * what every database holds. Sizes of types that take none (an integer's precision, a text's
 * length) are ignored, as the column definition ignores them.
 */
export function assertColumnSize(collection: string, field: string, type: string, size: ColumnSize): void {
  const where = `of field "${field}" of collection "${collection}"`;
  if ((type === 'string' || type === 'hash') && size.maxLength != null && size.maxLength > MAX_STRING_LENGTH) {
    throw new InvalidPayloadError(
      `"schema.max_length" ${where} is ${String(size.maxLength)}: a ${type} holds at most ${String(MAX_STRING_LENGTH)} characters on every database (type "text" holds more)`,
    );
  }
  if (type !== 'decimal') return;
  const [precision, scale] = decimalSizeOf({ precision: size.precision ?? null, scale: size.scale ?? null });
  if (precision > MAX_DECIMAL_PRECISION) {
    throw new InvalidPayloadError(
      `"schema.numeric_precision" ${where} is ${String(precision)}: a decimal holds at most ${String(MAX_DECIMAL_PRECISION)} digits on every database`,
    );
  }
  if (scale > MAX_DECIMAL_SCALE) {
    throw new InvalidPayloadError(
      `"schema.numeric_scale" ${where} is ${String(scale)}: a decimal holds at most ${String(MAX_DECIMAL_SCALE)} digits after the point on every database`,
    );
  }
  if (scale > precision) {
    throw new InvalidPayloadError(
      `"schema.numeric_scale" ${where} is ${String(scale)}: more digits after the point than the precision (${String(precision)}) has in all`,
    );
  }
}
