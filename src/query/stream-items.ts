import type { Knex } from 'knex';
import { databaseDialectOf } from '../db/dialects/index.js';
import { buildReadAst } from './ast/build-read-ast.js';
import { andConditions } from './ast/build-condition.js';
import type { Condition, Literal, ReadAst, SortNode } from './ast/nodes.js';
import { columnAlias, compileRead } from './compile/compile-read.js';
import type { ReadDialect } from '../db/dialects/read.js';
import { runRead, selectRows, type Row } from './execute.js';
import type { Query } from './query.js';
import type { ReadContext, Reader } from './read-context.js';
import { buildContext } from './read-items.js';
import { shapeRow, type Item } from './shape/shape-rows.js';

export interface StreamOptions {
  /** Rows fetched per round trip (EXPORT_BATCH_SIZE). */
  readonly batchSize: number;
}

/**
 * The items of a query one at a time, for `limit=-1` reads and exports: memory stays flat
 * however many rows match. PostgreSQL reads through a server-side cursor. MySQL/MariaDB (no
 * cursors outside stored programs) and SQLite (one connection, which must not stay held while
 * a slow client reads) read in batches, one statement each, walking the primary key when the
 * order allows it.
 */
export async function* streamItems(
  ctx: ReadContext,
  collection: string,
  query: Query,
  reader: Reader,
  options: StreamOptions,
): AsyncGenerator<Item> {
  const ast = buildReadAst(buildContext(ctx, reader), collection, query);
  const dialect = databaseDialectOf(ctx.db);
  const rows = dialect.hasCursors
    ? cursorRows(ctx.db, dialect, ast, options.batchSize)
    : batchedRows(ctx.db, ast, options.batchSize);
  for await (const row of rows) yield shapeRow(ast, row);
}

/** DECLARE ... CURSOR inside a read-only transaction, FETCH batch by batch. */
async function* cursorRows(
  db: Knex | Knex.Transaction,
  dialect: ReadDialect,
  ast: ReadAst,
  batchSize: number,
): AsyncGenerator<Row> {
  const compiled = compileRead(dialect, ast);
  const trx = await db.transaction(undefined, { readOnly: true });
  try {
    await runRead(trx, compiled, (values) =>
      trx.raw(`declare read_cursor no scroll cursor for ${compiled.sql}`, values),
    );
    // FETCH takes no parameters; the count is the configured batch size, never input.
    const fetch = { sql: `fetch forward ${Math.trunc(batchSize)} from read_cursor`, values: [] };
    for (;;) {
      const batch = await selectRows(trx, fetch);
      yield* batch;
      if (batch.length < batchSize) break;
    }
  } finally {
    await trx.rollback().catch(() => undefined);
  }
}

/**
 * Batches of `batchSize` rows. Ordered by the primary key alone (the default), each batch
 * starts after the last key read (an index range); any other order pages with OFFSET, the
 * primary key breaking ties so no row is read twice or skipped.
 */
async function* batchedRows(db: Knex | Knex.Transaction, ast: ReadAst, batchSize: number): AsyncGenerator<Row> {
  const dialect = databaseDialectOf(db);
  const { primary, primaryType } = ast.collection;
  const isPrimary = (s: SortNode) => s.operand.kind === 'column' && s.operand.column === primary;
  const byKey = ast.level.sort.length === 0 || (ast.level.sort.length === 1 && ast.level.sort.every(isPrimary));
  const descending = ast.level.sort[0]?.descending ?? false;
  const tieBreak: SortNode = {
    operand: { kind: 'column', column: primary, type: primaryType },
    descending,
    canBeNull: false,
  };
  const sort = ast.level.sort.some(isPrimary) ? ast.level.sort : [...ast.level.sort, tieBreak];
  const keyColumn = columnAlias(ast.children.length);
  const keyed: ReadAst = {
    ...ast,
    children: [
      ...ast.children,
      { kind: 'field', key: keyColumn, column: primary, type: primaryType, masked: false, scale: null },
    ],
  };
  const total = ast.level.limit;
  let read = 0;
  let lastKey: unknown;
  for (;;) {
    const limit = total === null ? batchSize : Math.min(batchSize, total - read);
    if (limit <= 0) return;
    const after: Condition | null =
      byKey && lastKey !== undefined
        ? {
            kind: 'compare',
            operand: tieBreak.operand,
            op: descending ? '<' : '>',
            value: { kind: 'literal', value: lastKey as Literal, type: primaryType },
          }
        : null;
    const level = byKey
      ? {
          ...ast.level,
          sort,
          limit,
          offset: read === 0 ? ast.level.offset : 0,
          filter: andConditions(ast.level.filter, after),
        }
      : { ...ast.level, sort, limit, offset: ast.level.offset + read };
    const rows = await selectRows(db, compileRead(dialect, { ...keyed, level }));
    yield* rows;
    read += rows.length;
    lastKey = rows[rows.length - 1]?.[keyColumn];
    if (rows.length < limit) return;
  }
}
