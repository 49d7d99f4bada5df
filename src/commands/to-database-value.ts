import type { CollectionOverview, FieldOverview } from '../../catalog/overview/types.js';
import type { DbClient } from '../db-client.js';
import { databaseDialect } from '../db/dialects/index.js';
import type { InsertKeysOptions } from '../db/insert-returning-keys.js';
import type { SerialSequences } from '../db/serial-sequences.js';
import { toDatabaseTimestamp } from '../db/to-database-timestamp.js';
import { scalarText, setOwn } from '../query/index.js';
import type { Item } from './types.js';

export { toDatabaseTimestamp } from '../db/to-database-timestamp.js';

/**
 * Validated payload values as the database stores them. Timestamps: PostgreSQL and MySQL get
 * a Date (the MySQL connection talks UTC); SQLite, which has no date type, UTC text
 * `YYYY-MM-DD HH:MM:SS.SSS`, the form of CURRENT_TIMESTAMP that the read side's filters
 * compare against (src/query/README.md). dateTime is stored as written without a zone, json
 * as JSON text, csv arrays joined with commas, uuids lower-cased, decimals rounded to their
 * scale where the database doesn't (SQLite).
 */
export function toDatabaseRow(
  collection: CollectionOverview,
  values: Item,
  dialect: DbClient,
): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  // for-in, not Object.entries: an import encodes every row (a pair per value otherwise).
  for (const name in values) {
    const field = collection.fields[name];
    const value = values[name];
    if (field === undefined || field.isAlias || value === undefined) continue;
    setOwn(row, name, toDatabaseValue(field, value, dialect));
  }
  return row;
}

function toDatabaseValue(field: Pick<FieldOverview, 'type' | 'scale'>, value: unknown, dialect: DbClient): unknown {
  if (value === null) return null;
  switch (field.type) {
    case 'string':
    case 'text':
    case 'hash':
      return scalarText(value);
    case 'integer':
      return Number(value);
    case 'bigInteger':
      return typeof value === 'number' ? value : scalarText(value).trim();
    case 'float':
      return Number(value);
    case 'decimal': {
      const number = typeof value === 'number' ? value : scalarText(value).trim();
      // SQLite keeps 1.005 in a decimal(10, 2), where PostgreSQL and MariaDB store 1.01.
      if (databaseDialect(dialect).roundsDecimals || field.scale === null) return number;
      return roundDecimalText(String(number), field.scale);
    }
    case 'boolean':
      return value === true || value === 1 || value === 'true' || value === '1';
    case 'uuid':
      return scalarText(value).toLowerCase();
    case 'timestamp':
      return toDatabaseTimestamp(new Date(scalarText(value)), dialect);
    case 'dateTime':
      return toDateTimeText(scalarText(value));
    case 'date':
      return scalarText(value).slice(0, 10);
    case 'json':
      return JSON.stringify(value);
    case 'csv':
      return Array.isArray(value) ? value.join(',') : scalarText(value);
    case 'time':
    case 'binary':
    case 'geometry':
    case 'unknown':
    case 'alias':
      return value;
  }
}

/** Beyond this exponent the digits aren't spelled out: a range check refuses such a value, or it is 0. */
const MAX_EXPONENT = 400;

/**
 * A validated number's text rounded to `scale` digits after the point, half away from zero, as
 * PostgreSQL and MariaDB round a decimal: on the digits as written (1.005 → 1.01), not on the
 * nearest double (1.00499…).
 */
function roundDecimalText(text: string, scale: number): string {
  const match = /^([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/.exec(text);
  const exponent = Number(match?.[4] ?? 0);
  if (match === null || Math.abs(exponent) > MAX_EXPONENT) return text;
  const [, sign = '', whole = '', fraction = ''] = match;
  let digits = whole + fraction;
  // Where the point is in `digits`: before digits[point].
  let point = whole.length + exponent;
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  const keep = point + scale;
  if (digits.length <= keep) return text;
  const roundsUp = Number(digits.charAt(keep)) >= 5;
  const rounded = (BigInt(`0${digits.slice(0, keep)}`) + (roundsUp ? 1n : 0n)).toString().padStart(scale + 1, '0');
  const integer = rounded.slice(0, rounded.length - scale);
  const negative = sign === '-' && /[1-9]/.test(rounded);
  return `${negative ? '-' : ''}${integer}${scale > 0 ? `.${rounded.slice(rounded.length - scale)}` : ''}`;
}

/** `2024-05-01T10:20:30+02:00` → `2024-05-01 10:20:30`: a dateTime has no zone. */
function toDateTimeText(value: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?)?/.exec(value);
  if (match === null) return value;
  return `${match[1]} ${match[2] ?? '00:00'}${match[3] ?? ':00'}`;
}

/** How the rows of a collection are inserted together (db/insert-returning-keys.ts). */
export function insertOptionsOf(
  collection: CollectionOverview,
  sequences: SerialSequences | undefined,
): InsertKeysOptions {
  const fields = Object.values(collection.fields);
  const primary = collection.fields[collection.primary];
  return {
    hasIncreasingKeys: ['integer', 'bigInteger'].includes(primary?.type ?? ''),
    // to-database-value.ts writes json values as JSON text.
    jsonColumns: new Set(fields.filter((f) => f.dbType === 'json' || f.dbType === 'jsonb').map((f) => f.field)),
    ...(primary?.hasAutoIncrement === true && sequences !== undefined ? { sequences } : {}),
  };
}

/** The column values of a payload (alias fields left out), for revision data and delta. */
export function columnsOf(collection: CollectionOverview, values: Item): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  for (const name in values) if (collection.fields[name]?.isAlias === false) setOwn(columns, name, values[name]);
  return columns;
}
