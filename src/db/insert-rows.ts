import type { Knex } from 'knex';
import type BetterSqlite3 from 'better-sqlite3';
import { invariant } from '../errors.js';
import { databaseDialectOf, type DatabaseDialect } from './dialects/index.js';

/** Bound values per statement: under SQLite's 32,766 (MariaDB's prepared statements: 65,535). */
const MAX_BOUND_VALUES = 30_000;

interface MysqlConnection {
  execute(sql: string, values: unknown[], done: (error: Error | null, result: unknown) => void): void;
}

/** SQL text per shape (table, columns, shared and copied ones, row count, returning): built once, not per batch. */
const statements = new Map<string, string>();

/** What {@link insertRows} writes beside the rows' own values, and what it answers. */
export interface InsertRowsOptions {
  /**
   * Columns with the same value on every row (the user, time and collection of an import's
   * journal): bound once per statement by name (runBound), not once per row.
   */
  readonly shared?: Readonly<Record<string, unknown>>;
  /**
   * Columns whose value is that of another column of the same row (a created item's revision:
   * delta = data): MariaDB's VALUES reads the other column, so the value is sent and checked
   * once; SQLite binds it again. They follow the shared columns.
   */
  readonly copies?: Readonly<Record<string, string>>;
  /** A column whose values of the inserted rows are answered, sorted. */
  readonly returning?: string;
}

/**
 * MariaDB and SQLite imports (issue 13): rows of the same columns inserted by multi-row
 * INSERTs straight on the transaction's connection, values bound as they are (no knex
 * builder, no client-side formatting of thousands of bindings). MariaDB runs them as
 * prepared statements, SQLite's stay compiled per connection ({@link compiledStatement}).
 * Each row of `rows` holds one value per column of `columns`; `shared` columns follow them.
 * With `returning`, the column's values of the inserted rows, sorted (generated integer
 * keys increase in the order the rows were inserted, as in insert-returning-keys.ts).
 */
export async function insertRows(
  trx: Knex.Transaction,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  options: InsertRowsOptions = {},
): Promise<unknown[]> {
  const { returning } = options;
  const sharedColumns = Object.keys(options.shared ?? {});
  const copies = Object.entries(options.copies ?? {});
  invariant(
    copies.every(([, from]) => columns.includes(from)),
    'a copied column copies one of the row values',
  );
  const dialect = databaseDialectOf(trx);
  // SQLite binds a copy as a value of its own, at the end of each row.
  const readsColumns = dialect.valuesReadEarlierColumns;
  const copied = readsColumns ? [] : copies.map(([, from]) => columns.indexOf(from));
  const perRow = columns.length + copied.length;
  const named =
    sharedColumns.length === 0
      ? undefined
      : Object.fromEntries(Object.values(options.shared ?? {}).map((value, i) => [`s${i}`, value]));
  const perStatement = rowsPerStatement(perRow);
  const returned: unknown[] = [];
  for (let start = 0; start < rows.length; start += perStatement) {
    const end = Math.min(rows.length, start + perStatement);
    const sql = statementOf(dialect, table, columns, sharedColumns, copies, end - start, returning);
    // Sized once: an import binds some 30,000 values a statement.
    const values = new Array<unknown>((end - start) * perRow);
    let at = 0;
    for (let r = start; r < end; r += 1) {
      const row = rows[r] ?? [];
      for (let c = 0; c < columns.length; c += 1) values[at++] = row[c];
      for (const index of copied) values[at++] = row[index];
    }
    const answer = await runBound(trx, sql, values, returning !== undefined, named);
    if (returning !== undefined) for (const row of answer.rows) returned.push(row[returning]);
  }
  return returned.sort(compareIntegers);
}

/**
 * Rows from which {@link insertObjects} binds what they share once: below, the values cost less
 * than MariaDB's round trip that sets them.
 */
const SHARED_FROM_ROWS = 16;

/**
 * {@link insertRows} of rows given as objects of the same columns (a journal's activity rows
 * and revisions): from {@link SHARED_FROM_ROWS} rows, the columns whose value is the same in
 * every row go as `shared`.
 */
export async function insertObjects(
  trx: Knex.Transaction,
  table: string,
  rows: readonly Readonly<Record<string, unknown>>[],
  returning?: string,
): Promise<unknown[]> {
  const [first] = rows;
  if (first === undefined) return [];
  const columns = Object.keys(first);
  invariant(
    rows.every((row) => Object.keys(row).length === columns.length && columns.every((column) => column in row)),
    `rows of ${table} with the same columns`,
  );
  const isShared = (column: string) =>
    rows.length >= SHARED_FROM_ROWS && rows.every((row) => row[column] === first[column]);
  const shared = Object.fromEntries(columns.filter(isShared).map((column) => [column, first[column]]));
  const own = columns.filter((column) => !(column in shared));
  const values = rows.map((row) => own.map((column) => row[column]));
  return insertRows(trx, table, own, values, { shared, ...(returning === undefined ? {} : { returning }) });
}

/**
 * One statement with bound values on the transaction's own connection (mysql2's execute:
 * a prepared statement; better-sqlite3: {@link compiledStatement}). The
 * `named` values are those the SQL names `@name`, however often: SQLite binds them as named
 * parameters, MariaDB (whose prepared statements take a `?` per use) sets them as the
 * session's user variables first. The rows the statement answers (`answersRows`), and the
 * rows it changed (MariaDB: matched, mysql2's FOUND_ROWS).
 */
export async function runBound(
  trx: Knex.Transaction,
  sql: string,
  values: readonly unknown[],
  answersRows = false,
  named?: Readonly<Record<string, unknown>>,
): Promise<{ readonly rows: Record<string, unknown>[]; readonly changes: number }> {
  const connection = (await (trx.client as Knex.Client).acquireConnection()) as object;
  const isMysql = 'execute' in connection;
  // Told as knex tells its own statements, to whoever watches the database's `query` events.
  const tell = (text: string, bindings: readonly unknown[], namedBindings?: Readonly<Record<string, unknown>>) => {
    const { __knexUid, __knexTxId } = connection as { __knexUid?: string; __knexTxId?: string };
    const query = { __knexUid, __knexTxId, method: 'raw', sql: text, bindings, namedBindings };
    (trx.client as Knex.Client).emit('query', query);
  };
  const bound = values.map((value) => bindable(value, isMysql));
  if (isMysql) {
    const execute = (text: string, parameters: unknown[]) => {
      tell(text, parameters);
      return new Promise<unknown>((resolve, reject) => {
        (connection as MysqlConnection).execute(text, parameters, (error, answer) => {
          if (error === null) resolve(answer);
          else reject(error);
        });
      });
    };
    const variables = Object.entries(named ?? {});
    if (variables.length > 0) {
      await execute(
        `set ${variables.map(([name]) => `@${name} = ?`).join(', ')}`,
        variables.map(([, value]) => bindable(value, true)),
      );
    }
    const result = await execute(sql, bound);
    if (answersRows) return { rows: result as Record<string, unknown>[], changes: 0 };
    return { rows: [], changes: (result as { affectedRows?: number }).affectedRows ?? 0 };
  }
  tell(sql, bound, named);
  const statement = compiledStatement(connection as BetterSqlite3.Database, sql);
  const args: unknown[] = named === undefined ? [bound] : [bound, bindableByName(named)];
  if (answersRows) return { rows: statement.all(...args) as Record<string, unknown>[], changes: 0 };
  return { rows: [], changes: statement.run(...args).changes };
}

/** Bound values one statement of `columns` values per row may carry, in rows. */
export function rowsPerStatement(columns: number): number {
  return Math.max(1, Math.floor(MAX_BOUND_VALUES / Math.max(1, columns)));
}

/**
 * The INSERT of `count` rows: a `?` per column of `columns`, the shared columns named `@s0`,
 * `@s1`, ... (runBound), each copy naming its column (`readsColumns`) or a `?` of its own.
 */
function statementOf(
  dialect: DatabaseDialect,
  table: string,
  columns: readonly string[],
  sharedColumns: readonly string[],
  copies: readonly (readonly [string, string])[],
  count: number,
  returning?: string,
): string {
  const { quoteId, valuesReadEarlierColumns: readsColumns } = dialect;
  const shape = [
    dialect.client,
    table,
    ...columns,
    '',
    ...sharedColumns,
    '',
    ...copies.flat(),
    readsColumns,
    count,
    returning ?? '',
  ].join('\u0000');
  let sql = statements.get(shape);
  if (sql === undefined) {
    const cells = [
      ...columns.map(() => '?'),
      ...sharedColumns.map((_, i) => `@s${i}`),
      ...copies.map(([, from]) => (readsColumns ? quoteId(from) : '?')),
    ];
    const tuple = `(${cells.join(', ')})`;
    const all = [...columns, ...sharedColumns, ...copies.map(([column]) => column)];
    const list = all.map(quoteId).join(', ');
    const tail = returning === undefined ? '' : ` returning ${quoteId(returning)}`;
    sql = `insert into ${quoteId(table)} (${list}) values ${Array.from({ length: count }, () => tuple).join(', ')}${tail}`;
    if (statements.size > 200) statements.clear();
    statements.set(shape, sql);
  }
  return sql;
}

/**
 * The values (`?` and `@name`) of the statements a SQLite connection keeps compiled for
 * runBound. A statement compiled takes some 50-90 bytes per value it names (a 2,000-row
 * INSERT of 8 columns, 16,000 values: 1.5 MB), so this keeps a connection's to some 9 MB,
 * enough for the statements of an import's batches of creates and of updates.
 */
export const COMPILED_VALUES_PER_CONNECTION = 100_000;

/** Per SQLite connection, its compiled statements by SQL text, the most recently used last. */
const compiled = new WeakMap<
  BetterSqlite3.Database,
  { statements: Map<string, { statement: BetterSqlite3.Statement; values: number }>; values: number }
>();

/**
 * `sql` compiled on `db`, kept for the same text again within
 * {@link COMPILED_VALUES_PER_CONNECTION} (the least recently used forgotten first): compiling
 * an import's 2,000-row statement takes 0.3-1.7 ms, as long as running a small one. SQLite
 * compiles a kept statement again when a schema change made it stale.
 */
export function compiledStatement(db: BetterSqlite3.Database, sql: string): BetterSqlite3.Statement {
  let kept = compiled.get(db);
  if (kept === undefined) compiled.set(db, (kept = { statements: new Map(), values: 0 }));
  const { statements } = kept;
  const known = statements.get(sql);
  if (known !== undefined) {
    statements.delete(sql);
    statements.set(sql, known);
    return known.statement;
  }
  const statement = db.prepare(sql);
  const values = valuesNamed(sql);
  if (values > COMPILED_VALUES_PER_CONNECTION) return statement;
  for (const [oldest, { values: freed }] of statements) {
    if (kept.values + values <= COMPILED_VALUES_PER_CONNECTION) break;
    statements.delete(oldest);
    kept.values -= freed;
  }
  statements.set(sql, { statement, values });
  kept.values += values;
  return statement;
}

/** The `?` and `@name` of `sql` (runBound's statements quote no text), one at least. */
function valuesNamed(sql: string): number {
  let count = 1;
  for (let i = 0; i < sql.length; i += 1) {
    const code = sql.charCodeAt(i);
    if (code === 63 || code === 64) count += 1;
  }
  return count;
}

/** Named values as better-sqlite3 binds them (the names without their `@`). */
function bindableByName(named: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(named).map(([name, value]) => [name, bindable(value, false)]));
}

/** A value as the drivers bind it: booleans as 1/0, MariaDB's timestamps as UTC text (the session talks UTC). */
function bindable(value: unknown, isMysql: boolean): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date && isMysql) return value.toISOString().replace('T', ' ').replace('Z', '');
  return value;
}

function compareIntegers(a: unknown, b: unknown): number {
  // Keys the drivers answer as numbers are exact integers: only bigint text needs BigInt.
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = BigInt(a as string | number);
  const y = BigInt(b as string | number);
  return x < y ? -1 : x > y ? 1 : 0;
}
