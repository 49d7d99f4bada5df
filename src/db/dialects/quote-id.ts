/**
 * Identifier quoting, one function per quoting style (issue 37): each DatabaseDialect names
 * its own as `quoteId`, and every hand-written statement (db/, commands/) and the query
 * compiler's SqlWriter quote through it. A quote inside a name is doubled, so any name is safe.
 */

/** SQL's own quotes: PostgreSQL and SQLite (`"name"`). */
export function quoteStandardId(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** MariaDB's and MySQL's backquotes (their double quotes are strings without ANSI_QUOTES). */
export function quoteMysqlId(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}
