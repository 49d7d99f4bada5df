import type { Knex } from 'knex';
import { copyRows, copyText } from './copy-rows.js';
import { databaseDialectOf } from './dialects/index.js';
import { rowsPerStatement, runBound } from './insert-rows.js';

/** PostgreSQL: the temporary table a group of rows is copied into before the UPDATE. */
const STAGING = 'svc_update_rows';

/**
 * Imports (issue 13): existing rows of `table`, found by `key`, set to new values of the same
 * `columns`, set-based. Each row of `rows` is its key then one value per column, encoded as
 * for an INSERT (to-database-value.ts). PostgreSQL: COPY into a temporary table of the
 * columns (copy-rows.ts), then `UPDATE ... FROM` it; MariaDB: `UPDATE ... JOIN` a derived
 * table of the rows; SQLite: `UPDATE ... FROM (VALUES ...)`; MariaDB and SQLite bound as
 * insert-rows.ts binds. Returns the rows matched, or undefined when COPY text cannot carry
 * a value (the caller writes those rows another way). The keys must differ.
 */
export async function updateRows(
  trx: Knex.Transaction,
  table: string,
  key: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): Promise<number | undefined> {
  if (rows.length === 0) return 0;
  const { updatesRowsBy: by, quoteId } = databaseDialectOf(trx);
  if (by === 'copy') return updateByCopy(trx, quoteId, table, key, columns, rows);
  const perStatement = rowsPerStatement(columns.length + 1);
  let matched = 0;
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const values: unknown[] = [];
    for (const row of chunk) for (const value of row) values.push(value);
    const sql =
      by === 'join'
        ? joinStatement(quoteId, table, key, columns, chunk.length)
        : valuesStatement(quoteId, table, key, columns, chunk.length);
    matched += (await runBound(trx, sql, values)).changes;
  }
  return matched;
}

async function updateByCopy(
  trx: Knex.Transaction,
  q: Quote,
  table: string,
  key: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): Promise<number | undefined> {
  const lines: string[] = [];
  for (const row of rows) {
    const cells = row.map(copyText);
    if (cells.includes(undefined)) return undefined;
    lines.push(cells.join('\t'));
  }
  const all = [key, ...columns];
  const list = all.map(q).join(', ');
  // Of the table's column types (a CREATE ... AS carries no NOT NULL, default or key).
  await trx.raw(`create temporary table ${q(STAGING)} on commit drop as select ${list} from ${q(table)} with no data`);
  await copyRows(trx, STAGING, all, lines);
  const set = columns.map((c) => `${q(c)} = ${q('v')}.${q(c)}`).join(', ');
  const result = await trx.raw<{ rowCount: number }>(
    `update ${q(table)} set ${set} from ${q(STAGING)} as ${q('v')} ` +
      `where ${q(table)}.${q(key)} = ${q('v')}.${q(key)}`,
  );
  await trx.raw(`drop table ${q(STAGING)}`);
  return result.rowCount;
}

/** A dialect's identifier quoting (DatabaseDialect.quoteId). */
type Quote = (name: string) => string;

/** SQL text per shape, as insert-rows.ts keeps its INSERTs. */
const statements = new Map<string, string>();

function cached(shape: string, build: () => string): string {
  let sql = statements.get(shape);
  if (sql === undefined) {
    sql = build();
    if (statements.size > 200) statements.clear();
    statements.set(shape, sql);
  }
  return sql;
}

function joinStatement(q: Quote, table: string, key: string, columns: readonly string[], count: number): string {
  return cached(`join\u0000${table}\u0000${key}\u0000${columns.join('\u0000')}\u0000${count}`, () => {
    const first = `select ${[key, ...columns].map((c) => `? as ${q(c)}`).join(', ')}`;
    const next = `select ${[key, ...columns].map(() => '?').join(', ')}`;
    const derived = [first, ...Array.from({ length: count - 1 }, () => next)].join(' union all ');
    const t = q(table);
    const set = columns.map((c) => `${t}.${q(c)} = ${q('v')}.${q(c)}`).join(', ');
    return `update ${t} join (${derived}) as ${q('v')} on ${t}.${q(key)} = ${q('v')}.${q(key)} set ${set}`;
  });
}

function valuesStatement(q: Quote, table: string, key: string, columns: readonly string[], count: number): string {
  return cached(`values\u0000${table}\u0000${key}\u0000${columns.join('\u0000')}\u0000${count}`, () => {
    const tuple = `(${[key, ...columns].map(() => '?').join(', ')})`;
    const values = Array.from({ length: count }, () => tuple).join(', ');
    const t = q(table);
    // VALUES names its columns column1, column2, ...: the key first.
    const set = columns.map((c, i) => `${q(c)} = ${q('v')}.${q(`column${i + 2}`)}`).join(', ');
    return `update ${t} set ${set} from (values ${values}) as ${q('v')} where ${t}.${q(key)} = ${q('v')}.${q('column1')}`;
  });
}
