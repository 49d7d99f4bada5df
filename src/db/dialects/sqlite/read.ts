import { InvalidQueryError } from '../../../errors.js';
import type { FieldType } from '../../../field-types.js';
import {
  bindTemporal,
  likePattern,
  utcDate,
  utcTime,
  type DateFunction,
  type MatchMode,
  type ReadDialect,
} from '../read.js';

const DATE_FORMAT: Readonly<Record<DateFunction, string>> = {
  year: '%Y',
  month: '%m',
  week: '%V',
  day: '%d',
  weekday: '%w',
  hour: '%H',
  minute: '%M',
  second: '%S',
};

/** The one text form filters compare temporal columns in (`compareColumn`, `bind`). */
const TEMPORAL_FORMAT: Readonly<Partial<Record<FieldType, string>>> = {
  date: '%Y-%m-%d',
  time: '%H:%M:%f',
  dateTime: '%Y-%m-%d %H:%M:%f',
  timestamp: '%Y-%m-%d %H:%M:%f',
};

/** `YYYY-MM-DD HH:MM:SS.SSS`, what strftime's `%Y-%m-%d %H:%M:%f` writes. */
function dateTimeText(date: Date): string {
  return `${utcDate(date)} ${utcTime(date)}.${String(date.getUTCMilliseconds()).padStart(3, '0')}`;
}

/** A filter's `HH:MM[:SS[.fff]]` as `HH:MM:SS.SSS`, what strftime's `%H:%M:%f` writes. */
function timeText(text: string): string {
  const match = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?$/.exec(text);
  if (match === null) return text;
  const [, hours, minutes, seconds = '00', fraction = ''] = match;
  return `${hours ?? ''}:${minutes ?? ''}:${seconds}.${fraction.slice(0, 3).padEnd(3, '0')}`;
}

/** GLOB is SQLite's case-sensitive LIKE; its wildcards are escaped by bracketing them. */
function globPattern(mode: MatchMode, text: string): string {
  const escaped = text.replace(/[*?[]/g, (c) => `[${c}]`);
  switch (mode) {
    case 'contains':
      return `*${escaped}*`;
    case 'starts':
      return `${escaped}*`;
    case 'ends':
      return `*${escaped}`;
  }
}

/**
 * How SQLite's reads differ from standard.ts: temporal values kept as text (compared in one
 * form), GLOB for case-sensitive matches, long lists through json_each.
 */
export const sqliteRead = {
  maxBoundValues: 32_766,
  // Integers beyond 2^53 and decimals as text, so no digit is lost on the way to JavaScript;
  // temporal values and JSON are text already.
  readsAsText: new Set<FieldType>(['bigInteger', 'decimal']),
  jsonHasKey: (column, key) => [`json_type(${column}, ?) is not null`, [`$."${key}"`]],
  jsonListFunction: 'json_group_array',
  listElement(w, column, isTuple) {
    if (!isTuple) {
      column(w);
      return;
    }
    w.raw('json(');
    column(w);
    w.raw(')');
  },
  bind(value, type) {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (type === 'time' && typeof value === 'string') return timeText(value);
    return bindTemporal(value, type, dateTimeText);
  },
  inLongList(w, operand, values, negated) {
    // json_each yields numbers as numbers and strings as text: the operand's affinity
    // applies to them as to bound values.
    operand(w);
    w.raw(negated ? ' not in (' : ' in (')
      .raw('select value from json_each(')
      .value(JSON.stringify(values))
      .raw('))');
  },
  compareColumn(w, column, type) {
    const format = TEMPORAL_FORMAT[type];
    if (format === undefined) {
      column(w);
      return;
    }
    // Temporal text is stored as written (with or without milliseconds, `T`, `Z`), and
    // rows written elsewhere may hold epoch milliseconds: both sides in one form compare.
    w.raw('(case when typeof(');
    column(w);
    w.raw(`) in ('integer', 'real') then strftime('${format}', `);
    column(w);
    w.raw(` / 1000.0, 'unixepoch') else strftime('${format}', `);
    column(w);
    w.raw(') end)');
  },
  datePart(w, fn, column) {
    w.raw(`cast(strftime('${DATE_FORMAT[fn]}', `);
    column(w);
    w.raw(') as integer)');
  },
  match(w, operand, mode, caseInsensitive, text) {
    if (caseInsensitive) {
      w.raw('lower(');
      operand(w);
      w.raw(') like lower(').value(likePattern(mode, text)).raw(") escape '!'");
      return;
    }
    operand(w);
    w.raw(' glob ').value(globPattern(mode, text));
  },
  noLimit: '-1',
  jsonLength(w, column) {
    w.raw('json_array_length(');
    column(w);
    w.raw(')');
  },
  asDouble(w, value) {
    w.cast(value, 'real');
  },
  geoIntersects() {
    throw new InvalidQueryError('Geometry filters are not supported on SQLite');
  },
} satisfies Partial<ReadDialect>;
