import type { FieldType } from '../../../../catalog/overview/types.js';
import { InvalidQueryError } from '../../../errors.js';
import type { DateFunction, MatchMode } from '../../ast/nodes.js';
import { bindTemporal, likePattern, plainPick, utcDateTime, type Dialect } from '../dialect.js';

/** Integers beyond 2^53 and decimals as text, so no digit is lost on the way to JavaScript. */
const TEXT_TYPES: ReadonlySet<FieldType> = new Set(['bigInteger', 'decimal']);

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

export const sqliteDialect: Dialect = {
  name: 'sqlite3',
  quoteId: (name) => `"${name.replace(/"/g, '""')}"`,
  bind(value, type) {
    if (typeof value === 'boolean') return value ? 1 : 0;
    return bindTemporal(value, type, utcDateTime);
  },
  readColumn(w, column, type) {
    if (!TEXT_TYPES.has(type)) return column(w);
    w.raw('cast(');
    column(w);
    w.raw(' as text)');
  },
  jsonArray(w, items) {
    w.raw('json_array(').join(items, ', ', (item) => item(w)).raw(')');
  },
  emptyJsonArray: 'json_array()',
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
  concat(w, parts) {
    w.raw('(').join(parts, ' || ', (part) => part(w)).raw(')');
  },
  sortTerm(w, value, descending, canBeNull) {
    // SQLite sorts NULLs as smallest; NULLS FIRST/LAST since 3.30.
    value(w);
    if (descending) w.raw(canBeNull ? ' desc nulls first' : ' desc');
    else if (canBeNull) w.raw(' nulls last');
  },
  pick: plainPick,
  limitOffset(w, limit, offset) {
    if (limit !== null) w.raw(' limit ').value(limit);
    else if (offset > 0) w.raw(' limit -1');
    if (offset > 0) w.raw(' offset ').value(offset);
  },
  jsonLength(w, column) {
    w.raw('json_array_length(');
    column(w);
    w.raw(')');
  },
  asDouble(w, value) {
    w.raw('cast(');
    value(w);
    w.raw(' as real)');
  },
  asText(w, value) {
    w.raw('cast(');
    value(w);
    w.raw(' as text)');
  },
  keyAs(w, key) {
    key(w);
  },
  geoIntersects() {
    throw new InvalidQueryError('Geometry filters are not supported on SQLite');
  },
};
