import type { FieldType } from '../../../catalog/overview/types.js';

/** What a masked (hash, conceal) value reads as. */
export const MASK = '**********';

const TEMPORAL = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

export interface ValueOptions {
  readonly masked?: boolean;
  readonly scale?: number | null;
}

/**
 * A value as the API returns it, identical on every dialect:
 * integers as numbers, bigInteger and decimal as strings, booleans as booleans, date
 * `YYYY-MM-DD`, time `HH:MM:SS`, dateTime `YYYY-MM-DDTHH:MM:SS`, timestamp ISO 8601 in UTC,
 * json parsed, csv as arrays, masked fields as `**********`.
 */
export function shapeValue(type: FieldType, raw: unknown, options: ValueOptions = {}): unknown {
  if (raw === null || raw === undefined) return null;
  if (options.masked === true) return MASK;
  switch (type) {
    case 'integer':
      return toNumber(raw);
    case 'float':
      return toNumber(raw);
    case 'bigInteger':
      return scalarText(raw);
    case 'decimal':
      return toDecimal(raw, options.scale ?? null);
    case 'boolean':
      return toBoolean(raw);
    case 'date':
      return toDate(raw);
    case 'time':
      return raw instanceof Date ? raw.toISOString().slice(11, 19) : scalarText(raw);
    case 'dateTime':
      return toDateTime(raw);
    case 'timestamp':
      return toTimestamp(raw);
    case 'json':
      return toJson(raw);
    case 'csv':
      return toCsv(raw);
    case 'hash':
      return MASK;
    case 'string':
    case 'text':
    case 'uuid':
      return scalarText(raw);
    case 'binary':
    case 'geometry':
    case 'alias':
    case 'unknown':
      return raw;
  }
}

/** Counts and date parts: PostgreSQL hands bigint counts over as strings. */
export function toNumber(raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'bigint') return Number(raw);
  if (typeof raw === 'string' && raw.trim() !== '' && Number.isFinite(Number(raw))) return Number(raw);
  if (typeof raw === 'boolean') return raw ? 1 : 0;
  return raw;
}

function toBoolean(raw: unknown): unknown {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'number' || typeof raw === 'bigint') return raw !== 0 && raw !== 0n;
  if (typeof raw === 'string') return ['1', 'true', 't', 'yes', 'y', 'on'].includes(raw.toLowerCase());
  return Boolean(raw);
}

/** Decimals print with the column's scale everywhere (SQLite keeps `12.5` for 12.50). */
function toDecimal(raw: unknown, scale: number | null): string {
  const text = scalarText(raw);
  if (scale === null || scale <= 0 || !/^-?\d+(\.\d*)?$/.test(text)) return text;
  const [whole, fraction = ''] = text.split('.');
  if (fraction.length >= scale) return text;
  return `${whole ?? ''}.${fraction.padEnd(scale, '0')}`;
}

/**
 * The common text of a UTC instant (PostgreSQL's `+00`, SQLite's and MySQL's zoneless text):
 * date, time, fraction. Read without building a Date, it is most of what reads shape.
 */
const UTC_TEXT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|\+00(?::?00)?)?$/;

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * `YYYY-MM-DDTHH:MM:SS.sss` (UTC, no zone letter) of UTC text naming a real moment, as
 * toISOString() would write it; undefined for anything else (the Date path decides those).
 */
function utcIsoText(raw: string): string | undefined {
  const match = UTC_TEXT.exec(raw);
  if (match === null) return undefined;
  const [, year = '', month = '', day = '', hours = '', minutes = '', seconds = '', fraction = ''] = match;
  const m = Number(month);
  const d = Number(day);
  if (
    m < 1 ||
    m > 12 ||
    d < 1 ||
    d > (DAYS_IN_MONTH[m - 1] ?? 0) ||
    Number(hours) > 23 ||
    Number(minutes) > 59 ||
    Number(seconds) > 59
  ) {
    return undefined;
  }
  if (m === 2 && d === 29 && !isLeapYear(Number(year))) return undefined;
  return `${year}-${month}-${day}T${hours}:${minutes}:${seconds}.${fraction.slice(0, 3).padEnd(3, '0')}`;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** An instant from a driver value: text as stored (UTC when no offset), Date, or epoch ms. */
function toInstant(raw: unknown): Date | undefined {
  if (raw instanceof Date) return raw;
  if (typeof raw === 'number') return new Date(raw);
  if (typeof raw !== 'string') return undefined;
  const match = TEMPORAL.exec(raw.trim());
  if (match === null) return undefined;
  const [, day, time = '00:00:00', fraction = '', zone = 'Z'] = match;
  const seconds = time.length === 5 ? `${time}:00` : time;
  const ms = fraction.slice(0, 3).padEnd(3, '0');
  let offset = zone.toUpperCase();
  if (/^[+-]\d{2}$/.test(offset)) offset += ':00';
  else if (/^[+-]\d{4}$/.test(offset)) offset = `${offset.slice(0, 3)}:${offset.slice(3)}`;
  const date = new Date(`${day}T${seconds}.${ms}${offset}`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function toDate(raw: unknown): unknown {
  if (typeof raw === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(raw)) return raw;
  const instant = toInstant(raw);
  return instant === undefined ? raw : instant.toISOString().slice(0, 10);
}

/** dateTime carries no zone: `YYYY-MM-DDTHH:MM:SS`, milliseconds only when there are some. */
function toDateTime(raw: unknown): unknown {
  const text = typeof raw === 'string' ? utcIsoText(raw) : undefined;
  if (text !== undefined) return text.endsWith('.000') ? text.slice(0, 19) : text;
  const instant = toInstant(raw);
  if (instant === undefined) return raw;
  const iso = instant.toISOString();
  return instant.getUTCMilliseconds() === 0 ? iso.slice(0, 19) : iso.slice(0, 23);
}

function toTimestamp(raw: unknown): unknown {
  const iso = typeof raw === 'string' ? utcIsoText(raw) : undefined;
  if (iso !== undefined) return `${iso}Z`;
  const instant = toInstant(raw);
  return instant === undefined ? raw : instant.toISOString();
}

function toJson(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function toCsv(raw: unknown): unknown {
  if (Array.isArray(raw)) return raw;
  if (typeof raw !== 'string') return raw;
  return raw === '' ? [] : raw.split(',');
}

/** A driver's value of a scalar column (text, a number, a bigint) as text. */
export function scalarText(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}
