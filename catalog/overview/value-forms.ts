/**
 * What a value of a field type must be to be stored alike on every database, where a form
 * check is not enough: days the calendar has, times of day that exist, numbers a 4-byte float
 * holds. An item's values (src/commands/validate-payload.ts) and a column's default
 * (catalog/ddl/default-values.ts) are checked by the same rules.
 */

/** A uuid as the API writes it (8-4-4-4-12 hexadecimal digits, either case). */
export const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The largest 4-byte float, and the smallest above zero (a denormal). */
export const FLOAT32_MAX = 3.4028234663852886e38;
export const FLOAT32_MIN = 1.401298464324817e-45;

/**
 * A day the calendar has (2024-02-30 and year 0 are not, though Date.parse rolls the first
 * over to March) at a time of day that exists, from a match whose groups are year, month, day
 * and optionally hours, minutes, seconds: what PostgreSQL stores, so every database refuses
 * the same values.
 */
export function isCalendarMoment(parts: RegExpExecArray | null): boolean {
  if (parts === null) return false;
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  // Day 0 of the next month is the last day of this one.
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return false;
  return parts[4] === undefined || isTimeOfDay(parts[4], parts[5], parts[6]);
}

/** Hours 0–23, minutes and seconds 0–59 (no 24:00 or leap second: not every database takes them). */
export function isTimeOfDay(hours?: string, minutes?: string, seconds?: string): boolean {
  return Number(hours) <= 23 && Number(minutes) <= 59 && Number(seconds ?? 0) <= 59;
}

/**
 * A number a 4-byte float holds (PostgreSQL's real, MariaDB's float refuse what rounds to
 * infinity or to zero); false for NaN and infinities.
 */
export function fitsFloat32(n: number): boolean {
  const size = Math.abs(n);
  return size === 0 || (size <= FLOAT32_MAX && size >= FLOAT32_MIN);
}
