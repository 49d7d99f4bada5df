import type { Knex } from 'knex';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { finished } from 'node:stream/promises';
import { postgres } from './dialects/postgres/index.js';
import { pgDateText } from './insert-returning-keys.js';

const { quoteId } = postgres;

/** Characters per write: a text past ~128 KB lives in V8's large-object space until a full GC. */
const CHUNK_CHARS = 32_000;

/**
 * PostgreSQL's COPY ... FROM STDIN (text format) inside a knex transaction: rows written as
 * tab-separated lines, no bound parameters, no statement to parse per row. The lines go in
 * chunks of a few KB, not one text per batch: a batch's text (hundreds of KB) would go to the
 * large-object space and stay there as garbage until a full GC (issue 13, flat memory).
 * Callers encode each value with {@link copyText} first; a value it cannot carry exactly
 * (undefined answer) means the rows go another way: `lines` may be a generator that throws,
 * which fails the COPY. `pace`, if given, is called between chunks and a promise it returns
 * awaited (a long write giving way to requests in flight, commands/give-way.ts).
 */
export async function copyRows(
  trx: Knex.Transaction,
  table: string,
  columns: readonly string[],
  lines: Iterable<string>,
  pace?: () => Promise<void> | undefined,
): Promise<void> {
  // A transaction's client hands out the transaction's own connection (knex, makeTxClient).
  const connection = (await (trx.client as Knex.Client).acquireConnection()) as pg.PoolClient;
  const list = columns.map(quoteId).join(', ');
  const stream = connection.query(copyFrom(`copy ${quoteId(table)} (${list}) from stdin`));
  let chunk = '';
  try {
    for (const line of lines) {
      chunk += `${line}\n`;
      if (chunk.length >= CHUNK_CHARS) {
        stream.write(chunk);
        chunk = '';
        // PostgreSQL works on a chunk as it arrives: waiting here spreads its work too.
        const waiting = pace?.();
        if (waiting !== undefined) await waiting;
      }
    }
  } catch (error) {
    // A line that could not be made: the COPY is failed (CopyFail), nothing of it is kept.
    stream.destroy(error instanceof Error ? error : new Error(String(error)));
    await finished(stream).catch(() => undefined);
    throw error;
  }
  stream.end(chunk);
  await finished(stream);
}

/**
 * One value in COPY's text format: `\N` for null, backslash escapes for the characters that
 * separate values and rows. Undefined for a value COPY text cannot carry as a parameter would
 * (not a finite number, binary, an object).
 */
export function copyText(value: unknown): string | undefined {
  if (value === null || value === undefined) return '\\N';
  switch (typeof value) {
    case 'string':
      return ESCAPED.test(value) ? value.replace(ESCAPES, escapeOne) : value;
    case 'number':
      return Number.isFinite(value) ? String(value) : undefined;
    case 'bigint':
      return String(value);
    case 'boolean':
      return value ? 't' : 'f';
    default:
      return value instanceof Date && !Number.isNaN(value.getTime()) ? pgDateText(value) : undefined;
  }
}

/** Next values of a sequence, in order: keys given to rows before they are copied. */
export async function nextValues(trx: Knex.Transaction, sequence: string, count: number): Promise<number[]> {
  const result = await trx.raw<{ rows: { id: string | number }[] }>(
    'select nextval(?::regclass) as "id" from generate_series(1, ?)',
    [sequence, count],
  );
  return result.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/** The sequence behind an auto-increment column (serial or identity), or undefined. */
export async function serialSequence(
  trx: Knex.Transaction,
  table: string,
  column: string,
): Promise<string | undefined> {
  const result = await trx.raw<{ rows: { name: string | null }[] }>('select pg_get_serial_sequence(?, ?) as "name"', [
    quoteId(table),
    column,
  ]);
  return result.rows[0]?.name ?? undefined;
}

const ESCAPED = /[\\\n\r\t]/;
const ESCAPES = /[\\\n\r\t]/g;
const ESCAPE_OF: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOne(c: string): string {
  return ESCAPE_OF[c] ?? c;
}
