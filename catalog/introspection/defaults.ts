/**
 * Column defaults as the overview keeps them (catalog/overview/types.ts, `defaultValue`):
 * literals as JSON values, the current time as `{ fn: "now" }`, any other expression as
 * `{ fn: "expression", sql }`. Each dialect first strips its own decoration.
 */
export type ColumnDefault =
  string | number | boolean | null | { readonly fn: 'now' } | { readonly fn: 'expression'; readonly sql: string };

const NOW_EXPRESSIONS =
  /^(now\(\)|current_timestamp(\(\d*\))?|localtimestamp(\(\d*\))?|current_date|current_time(\(\d*\))?|datetime\('now'\)|\(datetime\('now'\)\))$/i;
const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$/i;

function isNowExpression(sql: string): boolean {
  return NOW_EXPRESSIONS.test(sql.trim());
}

/** `'it''s'` → `it's`; undefined when `sql` is not exactly one quoted string literal. */
function unquoteSqlString(sql: string): string | undefined {
  const match = /^'((?:[^']|'')*)'$/s.exec(sql);
  return match?.[1]?.replaceAll("''", "'");
}

/** A default written as plain SQL (SQLite, MariaDB, PostgreSQL after its casts are removed). */
export function parseSqlDefault(raw: string | null): ColumnDefault {
  if (raw === null) return null;
  let sql = raw.trim();
  while (/^\(.*\)$/s.test(sql) && !isNowExpression(sql)) sql = sql.slice(1, -1).trim();
  if (sql === '' || /^null$/i.test(sql)) return null;
  const text = unquoteSqlString(sql);
  if (text !== undefined) return text;
  if (NUMBER.test(sql)) return Number(sql);
  if (/^true$/i.test(sql)) return true;
  if (/^false$/i.test(sql)) return false;
  if (isNowExpression(sql)) return { fn: 'now' };
  return { fn: 'expression', sql };
}
