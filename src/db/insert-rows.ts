import type { Knex } from 'knex';
import type BetterSqlite3 from 'better-sqlite3';

/** Bound values per statement: under SQLite's 32,766 (MariaDB's prepared statements: 65,535). */
const MAX_BOUND_VALUES = 30_000;

interface MysqlConnection {
  execute(sql: string, values: unknown[], done: (error: Error | null, result: unknown) => void): void;
}

/** SQL text per shape (table, columns, row count, returning): built once, not per batch. */
const statements = new Map<string, string>();
/** SQLite: a connection's prepared statements per SQL text (better-sqlite3 prepares on each call otherwise). */
const prepared = new WeakMap<object, Map<string, BetterSqlite3.Statement>>();

/**
 * MariaDB and SQLite imports (issue 13): rows of the same columns inserted by multi-row
 * INSERTs straight on the transaction's connection, values bound as they are (no knex
 * builder, no client-side formatting of thousands of bindings). MariaDB runs them as
 * prepared statements, SQLite's statements are prepared once per connection and shape.
 * With `returning`, the column's values of the inserted rows, sorted (generated integer
 * keys increase in the order the rows were inserted, as in insert-returning-keys.ts).
 */
export async function insertRows(
  trx: Knex.Transaction,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  returning?: string,
): Promise<unknown[]> {
  const perStatement = rowsPerStatement(columns.length);
  const returned: unknown[] = [];
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const sql = statementOf(table, columns, chunk.length, returning);
    const values: unknown[] = [];
    for (const row of chunk) for (const value of row) values.push(value);
    const answer = await runBound(trx, sql, values, returning !== undefined);
    if (returning !== undefined) for (const row of answer.rows) returned.push(row[returning]);
  }
  return returned.sort(compareIntegers);
}

/**
 * One statement with bound values on the transaction's own connection (mysql2's execute:
 * a prepared statement; better-sqlite3: prepared once per connection and SQL text). The rows
 * it answers (`answersRows`), and the rows it changed (MariaDB: matched, mysql2's FOUND_ROWS).
 */
export async function runBound(
  trx: Knex.Transaction,
  sql: string,
  values: readonly unknown[],
  answersRows = false,
): Promise<{ readonly rows: Record<string, unknown>[]; readonly changes: number }> {
  const connection = (await (trx.client as Knex.Client).acquireConnection()) as object;
  const isMysql = 'execute' in connection;
  const bound = values.map((value) => bindable(value, isMysql));
  if (isMysql) {
    const result = await new Promise<unknown>((resolve, reject) => {
      (connection as MysqlConnection).execute(sql, bound, (error, answer) => {
        if (error === null) resolve(answer);
        else reject(error);
      });
    });
    if (answersRows) return { rows: result as Record<string, unknown>[], changes: 0 };
    return { rows: [], changes: (result as { affectedRows?: number }).affectedRows ?? 0 };
  }
  const statement = preparedOf(connection as BetterSqlite3.Database, sql);
  if (answersRows) return { rows: statement.all(bound) as Record<string, unknown>[], changes: 0 };
  return { rows: [], changes: statement.run(bound).changes };
}

/** Bound values one statement of `columns` values per row may carry, in rows. */
export function rowsPerStatement(columns: number): number {
  return Math.max(1, Math.floor(MAX_BOUND_VALUES / Math.max(1, columns)));
}

function statementOf(table: string, columns: readonly string[], count: number, returning?: string): string {
  const shape = `${table}\u0000${columns.join('\u0000')}\u0000${count}\u0000${returning ?? ''}`;
  let sql = statements.get(shape);
  if (sql === undefined) {
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    const list = columns.map(quoteIdentifier).join(', ');
    const tail = returning === undefined ? '' : ` returning ${quoteIdentifier(returning)}`;
    sql = `insert into ${quoteIdentifier(table)} (${list}) values ${Array.from({ length: count }, () => tuple).join(', ')}${tail}`;
    if (statements.size > 200) statements.clear();
    statements.set(shape, sql);
  }
  return sql;
}

function preparedOf(db: BetterSqlite3.Database, sql: string): BetterSqlite3.Statement {
  let cache = prepared.get(db);
  if (cache === undefined) {
    cache = new Map();
    prepared.set(db, cache);
  }
  let statement = cache.get(sql);
  if (statement === undefined) {
    statement = db.prepare(sql);
    if (cache.size > 50) cache.clear();
    cache.set(sql, statement);
  }
  return statement;
}

/** A value as the drivers bind it: booleans as 1/0, MariaDB's timestamps as UTC text (the session talks UTC). */
function bindable(value: unknown, isMysql: boolean): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date && isMysql) return value.toISOString().replace('T', ' ').replace('Z', '');
  return value;
}

/** Backquotes: MariaDB's quotes without ANSI_QUOTES, which SQLite also takes. */
export function quoteIdentifier(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

function compareIntegers(a: unknown, b: unknown): number {
  const [x, y] = [BigInt(a as string | number), BigInt(b as string | number)];
  return x < y ? -1 : x > y ? 1 : 0;
}
