import { parse } from 'csv-parse';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { findField, getFieldRelation } from '../../../catalog/overview/lookup.js';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../../../catalog/overview/types.js';
import { InvalidPayloadError } from '../../errors.js';
import { ROWS_PER_STEP } from '../give-way.js';
import { MAX_DOCUMENT_DEPTH, nestsDeeperThan, tooDeepMessage } from '../../query/index.js';
import type { Item } from '../types.js';
import { unknownColumn } from './file-rows.js';
import { isPlainObject } from '../../is-plain-object.js';

/**
 * The items of a CSV import file as they are parsed, ROWS_PER_STEP at a time (the import gives
 * way between two pieces, and a piece costs one step of the async iteration, not one per row;
 * the last may be shorter): the first line names the fields; an empty cell leaves the field out;
 * a cell is read per its field's type: text as written, numbers as the text the type casts,
 * `true`/`false` for booleans, JSON for json, csv, alias and relational values (nested
 * objects, arrays of keys), `null` as null outside text fields. A column `author.email`
 * (how an export flattens a related item) nests into `author` when `author` is relational, and
 * `data.a` into the object of the json field `data` (its cell read as JSON, else as text).
 * A header that is neither a field nor such a path to one is INVALID_PAYLOAD naming it.
 * Malformed CSV is INVALID_PAYLOAD naming the row.
 */
export async function* readCsvItems(
  source: Readable,
  overview: SchemaOverview,
  collection: CollectionOverview,
): AsyncGenerator<Item[]> {
  // Records as arrays, the first the header: csv-parse's own column objects cost a third more.
  const parser = parse({ bom: true, skip_empty_lines: true });
  // Errors of either side surface in the loop below, through the parser.
  pipeline(source, slices, parser).catch(() => undefined);
  let columns: readonly Column[] | undefined;
  let row = 0;
  let piece: Item[] = [];
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (columns === undefined) {
        columns = record.map((header) => requireField(toColumn(overview, collection, header.trim()), collection));
        continue;
      }
      row += 1;
      const item: Record<string, unknown> = {};
      // Indexed: an entries() iterator makes a pair per cell of every row.
      for (let index = 0; index < columns.length; index += 1) {
        const text = record[index];
        if (text === undefined || text === '') continue;
        const column = columns[index] as Column;
        put(item, column.path, readCell(column, text));
      }
      if (piece.push(item) === ROWS_PER_STEP) {
        yield piece;
        piece = [];
      }
    }
    if (piece.length > 0) yield piece;
  } catch (error) {
    if (error instanceof InvalidPayloadError) throw error;
    // csv-parse counts the records before the bad one, the header included; the loop may not
    // have seen them yet.
    const { records } = error as { records?: unknown };
    const bad = typeof records === 'number' ? Math.max(1, records) : row + 1;
    throw new InvalidPayloadError(`Invalid CSV in row ${bad}: ${(error as Error).message.replace(/\.$/, '')}`);
  }
}

/**
 * Bytes csv-parse takes at a time. It parses a chunk in one go, and a socket read (64 KB, some
 * 600 rows) would hold the event loop for milliseconds: the import gives way between smaller
 * ones (handle-import.ts). csv-parse works on bytes, so a cut inside a character is harmless.
 */
const PARSE_BYTES = 16 * 1024;

async function* slices(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer | string> {
  for await (const chunk of chunks) {
    if (typeof chunk === 'string' || chunk.length <= PARSE_BYTES) yield chunk;
    else for (let at = 0; at < chunk.length; at += PARSE_BYTES) yield chunk.subarray(at, at + PARSE_BYTES);
  }
}

interface Column {
  readonly header: string;
  /** Where the value goes: `[field]`, or `[m2o field, ..., field]` for a dotted header. */
  readonly path: readonly string[];
  readonly field: FieldOverview | undefined;
  /** The field holds a relation: a JSON object or array cell is a nested payload. */
  readonly isRelational: boolean;
  /** The column is a key inside a json field (`data.a`): its cell is JSON, or else text. */
  readonly inJson: boolean;
}

function toColumn(overview: SchemaOverview, collection: CollectionOverview, header: string): Column {
  const direct = findField(overview, collection.collection, header);
  const segments = header.split('.');
  if (direct !== undefined || segments.length === 1) return column(overview, collection.collection, header, [header]);
  let current = collection.collection;
  for (const segment of segments.slice(0, -1)) {
    // `data.a.b` (how an export flattens a json field's object): a key inside that field.
    const field = findField(overview, current, segment);
    if (field?.type === 'json') return { header, path: segments, field, isRelational: false, inJson: true };
    const relation = getFieldRelation(overview, current, segment);
    if (relation?.kind !== 'm2o') return column(overview, collection.collection, header, [header]);
    current = relation.related;
  }
  return column(overview, current, header, segments);
}

function column(overview: SchemaOverview, collection: string, header: string, path: readonly string[]): Column {
  const name = path[path.length - 1] ?? header;
  return {
    header,
    path,
    field: findField(overview, collection, name),
    isRelational: getFieldRelation(overview, collection, name) !== undefined,
    inJson: false,
  };
}

/** Issue 13, bad input: a column that names no field is refused, not dropped. */
function requireField(column: Column, collection: CollectionOverview): Column {
  if (column.field === undefined) throw new InvalidPayloadError(unknownColumn(collection, column.header));
  return column;
}

const TEXT_TYPES: ReadonlySet<string> = new Set(['string', 'text', 'hash']);
const JSON_TYPES: ReadonlySet<string> = new Set(['json', 'csv', 'alias', 'geometry', 'unknown']);

function readCell({ field, isRelational, inJson }: Column, text: string): unknown {
  if (field === undefined) return text;
  if (inJson) return parseJsonOr(text);
  if (isRelational && /^\s*[[{]/.test(text)) return parseJsonOr(text);
  if (TEXT_TYPES.has(field.type)) return text;
  if (text === 'null') return null;
  if (JSON_TYPES.has(field.type)) return field.type === 'csv' && !/^\s*\[/.test(text) ? text : parseJsonOr(text);
  if (field.type === 'boolean') {
    if (text === 'true' || text === '1') return true;
    if (text === 'false' || text === '0') return false;
  }
  return text;
}

function parseJsonOr(text: string): unknown {
  if (nestsDeeperThan(text, MAX_DOCUMENT_DEPTH, 'json')) throw new InvalidPayloadError(tooDeepMessage('A cell'));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Sets a value at a path; a nested object wins over a plain value at the same place. */
function put(item: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let target = item;
  for (let depth = 0; depth < path.length - 1; depth++) {
    const segment = path[depth] ?? '';
    const next = target[segment];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) target[segment] = {};
    target = target[segment] as Record<string, unknown>;
  }
  const last = path[path.length - 1] ?? '';
  const current = target[last];
  if (isPlainObject(current) && path.length === 1) return;
  target[last] = value;
}
