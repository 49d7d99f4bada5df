import { likePattern, type DateFunction, type ReadDialect } from '../read.js';

const DATE_PART: Readonly<Record<DateFunction, string>> = {
  year: 'year(',
  month: 'month(',
  // ISO weeks, as PostgreSQL's extract(week) and SQLite's %V.
  week: 'week(',
  day: 'dayofmonth(',
  // 0 = Sunday, as PostgreSQL's dow and SQLite's %w.
  weekday: '(dayofweek(',
  hour: 'hour(',
  minute: 'minute(',
  second: 'second(',
};
const DATE_PART_END: Readonly<Record<DateFunction, string>> = {
  year: ')',
  month: ')',
  week: ', 3)',
  day: ')',
  weekday: ') - 1)',
  hour: ')',
  minute: ')',
  second: ')',
};

/**
 * How MariaDB's reads differ from standard.ts: correlated JSON_ARRAYAGG subqueries (no LATERAL
 * in MariaDB), NULLs sorted by hand, text read as `char`; mysql2 writes bound values into the
 * statement's text, so their number has no limit.
 */
export const mysqlRead = {
  sortsNullablePathsInDerivedRoot: true,
  textType: 'char',
  jsonHasKey: (column, key) => [`json_contains_path(${column}, 'one', ?)`, [`$."${key}"`]],
  listAggregation: 'inline',
  jsonListFunction: 'json_arrayagg',
  singleFloat(w, value) {
    w.cast(value, 'float');
  },
  datePart(w, fn, column) {
    w.raw(DATE_PART[fn]);
    column(w);
    w.raw(DATE_PART_END[fn]);
  },
  match(w, operand, mode, caseInsensitive, text) {
    if (caseInsensitive) {
      w.raw('lower(');
      operand(w);
      w.raw(') like lower(').value(likePattern(mode, text)).raw(") escape '!'");
      return;
    }
    operand(w);
    // The default collations compare case-insensitively; binary makes the match exact.
    w.raw(' like binary ').value(likePattern(mode, text)).raw(" escape '!'");
  },
  concat(w, parts) {
    w.raw('concat(')
      .join(parts, ', ', (part) => {
        part(w);
      })
      .raw(')');
  },
  sortTerm(w, value, descending, canBeNull) {
    // MariaDB sorts NULLs as smallest and has no NULLS FIRST/LAST: order on `is null` first.
    if (canBeNull) {
      value(w);
      w.raw(descending ? ' is null desc, ' : ' is null, ');
    }
    value(w);
    if (descending) w.raw(' desc');
  },
  noLimit: '18446744073709551615',
  jsonLength(w, column) {
    // json_length counts an object's keys; only arrays have elements, as on the other dialects.
    w.raw('(case when json_type(');
    column(w);
    w.raw(") = 'ARRAY' then json_length(");
    column(w);
    w.raw(') else 0 end)');
  },
  asDouble(w, value) {
    w.cast(value, 'double');
  },
  geoIntersects(w, operand, mode, geojson) {
    w.raw(mode === 'bbox' ? 'mbrintersects(' : 'st_intersects(');
    operand(w);
    w.raw(', st_geomfromgeojson(').value(geojson).raw('))');
  },
} satisfies Partial<ReadDialect>;
