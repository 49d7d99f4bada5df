import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { XMLBuilder } from 'fast-xml-parser';
import type { ExportFormat, Item } from '../../query/index.js';

/** Content type and file extension of each export format (reference/query.md, export). */
export const EXPORT_TYPES: Readonly<Record<ExportFormat, { readonly contentType: string; readonly extension: string }>> = {
  csv: { contentType: 'text/csv', extension: 'csv' },
  json: { contentType: 'application/json', extension: 'json' },
  xml: { contentType: 'text/xml', extension: 'xml' },
  yaml: { contentType: 'text/yaml', extension: 'yaml' },
};

/** The formats an export may ask for. */
export const EXPORT_QUERY_FORMATS = Object.keys(EXPORT_TYPES) as readonly ExportFormat[];

export interface FormatOptions {
  /** Where csv keeps its first pass (TEMP_PATH); the file is removed when done. */
  readonly tempDir: string;
  /** csv rows formatted at once (1000). */
  readonly csvBatchRows?: number;
}

/** Text is handed on in pieces of about this many characters. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The items in an export format (reference/audit-and-utils.md, "Formats"), as text pieces
 * produced while the items arrive: memory stays flat however many there are. csv needs
 * the union of every item's columns for its header, so it reads the items once into a
 * temporary file (one flattened item a line) and writes the csv from there.
 */
export function formatItems(items: AsyncIterable<Item>, format: ExportFormat, options: FormatOptions): AsyncGenerator<string> {
  switch (format) {
    case 'json':
      return chunked(jsonPieces(items));
    case 'csv':
      return csvPieces(items, options.tempDir, options.csvBatchRows ?? 1000);
    case 'xml':
      return chunked(xmlPieces(items));
    case 'yaml':
      return chunked(yamlPieces(items));
  }
}

/** `JSON.stringify(items, null, '\t')`, item by item. */
async function* jsonPieces(items: AsyncIterable<Item>): AsyncGenerator<string> {
  let separator = '[\n';
  for await (const item of items) {
    yield separator + indent(JSON.stringify(item, null, '\t'), '\t');
    separator = ',\n';
  }
  yield separator === '[\n' ? '[]' : '\n]';
}

const xmlBuilder = new XMLBuilder({
  format: true,
  indentBy: '    ',
  // Field names are element names; none of them may turn into text or attributes.
  textNodeName: '\u0000text',
  ignoreAttributes: true,
  suppressEmptyNode: false,
});

/** `<data>` root, one `<data>` element per item, 4-space indent, null as the text `null`. */
async function* xmlPieces(items: AsyncIterable<Item>): AsyncGenerator<string> {
  yield "<?xml version='1.0'?>\n<data>\n";
  for await (const item of items) {
    // Built inside a root so the builder indents it; the root's own lines are dropped.
    const wrapped = xmlBuilder.build({ data: { data: toXmlValue(item) } }) as string;
    yield wrapped.slice(wrapped.indexOf('\n') + 1, wrapped.trimEnd().lastIndexOf('\n') + 1);
  }
  yield '</data>\n';
}

function toXmlValue(value: unknown): unknown {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return value.map(toXmlValue);
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, toXmlValue(v)]));
  }
  return value;
}

/** A YAML sequence of mappings; keys and values written as JSON, which YAML reads as such. */
async function* yamlPieces(items: AsyncIterable<Item>): AsyncGenerator<string> {
  let empty = true;
  for await (const item of items) {
    empty = false;
    const entries = Object.entries(item).map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value ?? null)}`);
    yield entries.length === 0 ? '- {}\n' : `- ${entries.join('\n  ')}\n`;
  }
  if (empty) yield '[]\n';
}

/**
 * csv: header = union of flattened keys in first-seen order; nested objects flattened with
 * `.`, arrays as JSON text; strings quoted (inner `"` doubled), numbers and booleans not;
 * null or missing = empty cell; `\n` line ends.
 *
 * The header is known only at the end, so the rows go to a temporary file first, written as
 * csv with the columns known at the time (batch by batch). Columns are only ever added at
 * the end, so the file is already the body when no column appeared after the first batch,
 * and is copied as it is; otherwise the rows of the earlier batches get empty cells added.
 */
async function* csvPieces(items: AsyncIterable<Item>, tempDir: string, batchRows: number): AsyncGenerator<string> {
  await mkdir(tempDir, { recursive: true });
  const spool = join(tempDir, `.csv-${randomBytes(8).toString('hex')}.part`);
  try {
    const columns = new Map<string, number>();
    /** Consecutive rows written with the same number of columns. */
    const runs: { rows: number; width: number }[] = [];
    const out = createWriteStream(spool);
    try {
      let batch: Record<string, unknown>[] = [];
      const flush = async () => {
        const header = [...columns.keys()];
        const text = stringify(batch.map((flat) => header.map((column) => flat[column])), CSV_OPTIONS);
        const last = runs[runs.length - 1];
        if (last?.width === header.length) last.rows += batch.length;
        else runs.push({ rows: batch.length, width: header.length });
        batch = [];
        if (!out.write(text)) await once(out, 'drain');
      };
      for await (const item of items) {
        const flat = flatten(item);
        for (const key of Object.keys(flat)) if (!columns.has(key)) columns.set(key, columns.size);
        batch.push(flat);
        if (batch.length >= batchRows) await flush();
      }
      if (batch.length > 0) await flush();
    } finally {
      out.end();
      await once(out, 'close');
    }
    const width = columns.size;
    if (width === 0) return;
    yield stringify([[...columns.keys()]], CSV_OPTIONS);
    const body = createReadStream(spool, { encoding: 'utf8' });
    if (runs.every((run) => run.width === width)) yield* body as AsyncIterable<string>;
    else yield* padRows(body as AsyncIterable<string>, runs, width);
  } finally {
    await rm(spool, { force: true });
  }
}

const CSV_OPTIONS = {
  quoted_string: true,
  record_delimiter: '\n',
  cast: { boolean: (value: boolean) => String(value) },
} as const;

/** Adds empty cells to rows written before the last columns appeared (a newline inside quotes is data). */
async function* padRows(body: AsyncIterable<string>, runs: readonly { rows: number; width: number }[], width: number): AsyncGenerator<string> {
  let run = 0;
  let rowsLeft = runs[0]?.rows ?? 0;
  let inQuotes = false;
  for await (const chunk of body) {
    let out = '';
    let from = 0;
    for (let i = 0; i < chunk.length; i += 1) {
      const c = chunk.charCodeAt(i);
      if (c === 0x22) inQuotes = !inQuotes;
      else if (c === 0x0a && !inQuotes) {
        const rowWidth = runs[run]?.width ?? width;
        const missing = rowWidth === 0 ? width - 1 : width - rowWidth;
        out += chunk.slice(from, i) + ','.repeat(missing) + '\n';
        from = i + 1;
        rowsLeft -= 1;
        while (rowsLeft === 0 && run < runs.length - 1) rowsLeft = runs[++run]?.rows ?? 0;
      }
    }
    yield out + chunk.slice(from);
  }
}

/** Nested objects to dotted keys; arrays (and empty objects) as JSON text. */
export function flatten(item: Item, prefix = '', into: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [key, value] of Object.entries(item)) {
    const name = prefix === '' ? key : `${prefix}.${key}`;
    if (Array.isArray(value)) into[name] = JSON.stringify(value);
    else if (value !== null && typeof value === 'object') {
      if (Object.keys(value).length === 0) into[name] = '{}';
      else flatten(value as Item, name, into);
    } else into[name] = value;
  }
  return into;
}

function indent(text: string, by: string): string {
  return by + text.replaceAll('\n', `\n${by}`);
}

/** Joins small pieces into ones of about CHUNK_CHARS, so writers see few large writes. */
async function* chunked(pieces: AsyncIterable<string>): AsyncGenerator<string> {
  let buffer = '';
  for await (const piece of pieces) {
    buffer += piece;
    if (buffer.length >= CHUNK_CHARS) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer !== '') yield buffer;
}
