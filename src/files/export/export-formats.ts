import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { XMLBuilder } from 'fast-xml-parser';
import type { ExportFormat, Item } from '../../query/index.js';

/** Content type and file extension of each export format. */
export const EXPORT_TYPES: Readonly<
  Record<ExportFormat, { readonly contentType: string; readonly extension: string }>
> = {
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
  /** EXPORT_CSV_ESCAPE_FORMULAS: csv text cells that a spreadsheet would run get a leading `'`. */
  readonly csvEscapeFormulas: boolean;
  /** csv rows formatted at once (1000). */
  readonly csvBatchRows?: number;
  /**
   * csv straight through, no first pass: the header is the first batch's columns, and a column
   * that appears only later fails the output with {@link CsvColumnsGrew} (the caller starts
   * again without it). The same text as the first pass makes whenever it succeeds.
   */
  readonly csvDirect?: boolean;
}

/** A csv written straight through met a column its header does not have (`csvDirect`). */
export class CsvColumnsGrew extends Error {
  constructor(readonly column: string) {
    super(`csv column "${column}" appeared after the header was written`);
    this.name = 'CsvColumnsGrew';
  }
}

/** Text is handed on in pieces of about this many characters. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The items in an export format, as text pieces
 * produced while the items arrive: memory stays flat however many there are. csv needs
 * the union of every item's columns for its header, so it reads the items once into a
 * temporary file (one flattened item a line) and writes the csv from there, unless
 * `csvDirect` bets that the first batch has every column.
 */
export function formatItems(
  items: AsyncIterable<Item>,
  format: ExportFormat,
  options: FormatOptions,
): AsyncGenerator<string> {
  switch (format) {
    case 'json':
      return chunked(jsonPieces(items));
    case 'csv': {
      const batchRows = options.csvBatchRows ?? 1000;
      const csv = csvOptions(options.csvEscapeFormulas);
      return options.csvDirect === true
        ? csvDirectPieces(items, batchRows, csv)
        : csvPieces(items, options.tempDir, batchRows, csv);
    }
    case 'xml':
      return chunked(xmlPieces(items));
    case 'yaml':
      return chunked(yamlPieces(items));
  }
}

/** Items already read (an aggregate, a list of keys, a singleton) as the stream `formatItems` takes. */
// eslint-disable-next-line @typescript-eslint/require-await -- adapts a list: nothing to await
export async function* listedItems(items: readonly Item[]): AsyncGenerator<Item> {
  yield* items;
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

// fast-xml-parser's XMLBuilder re-exports fast-xml-builder's, deprecated in favour of depending
// on that package directly, which is not (yet) a dependency of ours.
// eslint-disable-next-line @typescript-eslint/no-deprecated -- same class, see above
const xmlBuilder = new XMLBuilder({
  // Ordered nodes: element names, text and attributes are all spelled out, none guessed from keys.
  preserveOrder: true,
  format: true,
  indentBy: '    ',
  ignoreAttributes: false,
  suppressEmptyNode: false,
  suppressBooleanAttributes: false,
  // A json field nests as deep as it likes; JSON.stringify has no limit either.
  maxNestedTags: Number.POSITIVE_INFINITY,
});

type XmlNode = Record<string, unknown>;

/**
 * `<data>` root, one `<data>` element per item, 4-space indent, null as the text `null`.
 * Well-formed whatever the data: a key that is not an XML name (an alias, a json field's
 * key, or `field`) becomes `<field name="…">`, text and attribute values are escaped by the
 * builder, and characters XML cannot carry (control characters, lone surrogates) become
 * U+FFFD. A carriage return is written as it is; XML readers take it for a line feed.
 */
async function* xmlPieces(items: AsyncIterable<Item>): AsyncGenerator<string> {
  yield "<?xml version='1.0'?>\n<data>";
  for await (const item of items) {
    // Built inside a root so the builder indents it one level; the root's own tags are dropped.
    const wrapped = xmlBuilder.build([{ data: [{ data: xmlContent(item) }] }]);
    yield wrapped.slice('\n<data>'.length, -'\n</data>'.length);
  }
  yield '\n</data>\n';
}

/** Elements named `key` for a value: one per entry of an array (an array in an array nests). */
function xmlElements(key: string, value: unknown): XmlNode[] {
  if (!Array.isArray(value)) return [xmlElement(key, xmlContent(value))];
  return value.flatMap((entry) =>
    Array.isArray(entry) ? [xmlElement(key, xmlElements(key, entry))] : xmlElements(key, entry),
  );
}

function xmlContent(value: unknown): XmlNode[] {
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, v]) => xmlElements(key, v));
  }
  if (
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'boolean' ||
    typeof value === 'bigint'
  ) {
    return [{ '#text': xmlText(String(value)) }];
  }
  // null and undefined (a row holds nothing else).
  return [{ '#text': 'null' }];
}

/** A key `field` is written as `<field name="field">` too: every `<field>` then has its name. */
function xmlElement(key: string, children: XmlNode[]): XmlNode {
  return key !== 'field' && XML_NAME.test(key)
    ? { [key]: children }
    : { field: children, ':@': { '@_name': xmlText(key) } };
}

// XML 1.0 Name without `:` (no namespace prefix to declare) and within the BMP.
const XML_NAME_START =
  'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD';
const XML_NAME = new RegExp(
  `^[${XML_NAME_START}][${XML_NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F\\u2040]*$`,
  'u',
);

/** Characters outside XML 1.0's Char production (lone surrogates included) → U+FFFD. */
function xmlText(text: string): string {
  return text.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD');
}

/** A YAML sequence of mappings; keys and values written as JSON, which YAML reads as such. */
async function* yamlPieces(items: AsyncIterable<Item>): AsyncGenerator<string> {
  let empty = true;
  for await (const item of items) {
    empty = false;
    const entries = Object.entries(item).map(([key, value]) => `${yamlJson(key)}: ${yamlJson(value ?? null)}`);
    yield entries.length === 0 ? '- {}\n' : `- ${entries.join('\n  ')}\n`;
  }
  if (empty) yield '[]\n';
}

/**
 * JSON text YAML reads as the same value: the characters YAML does not allow in a stream
 * (DEL, C1 controls, U+FFFE, U+FFFF) or reads as line breaks (U+0085, U+2028, U+2029), and
 * U+FEFF, which
 * JSON writes as they are, escaped.
 */
function yamlJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007F-\u009F\u2028\u2029\uFEFF\uFFFE\uFFFF]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
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
async function* csvPieces(
  items: AsyncIterable<Item>,
  tempDir: string,
  batchRows: number,
  options: CsvOptions,
): AsyncGenerator<string> {
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
        const text = stringify(
          batch.map((flat) => header.map((column) => flat[column])),
          options,
        );
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
    yield stringify([[...columns.keys()]], options);
    const body = createReadStream(spool, { encoding: 'utf8' });
    if (runs.every((run) => run.width === width)) yield* body as AsyncIterable<string>;
    else yield* padRows(body as AsyncIterable<string>, runs, width);
  } finally {
    await rm(spool, { force: true });
  }
}

/**
 * csv without a first pass (`csvDirect`): the first batch decides the header, every batch is
 * written as it comes; nothing but a batch is held, nothing goes to disk.
 */
async function* csvDirectPieces(
  items: AsyncIterable<Item>,
  batchRows: number,
  options: CsvOptions,
): AsyncGenerator<string> {
  let header: string[] | undefined;
  let batch: Record<string, unknown>[] = [];
  const columns = new Set<string>();
  const flush = (): string => {
    let text = '';
    if (header === undefined) {
      header = [...columns];
      if (header.length > 0) text = stringify([header], options);
    }
    const row = header;
    // No column at all (only empty items so far): no csv, as with the first pass.
    if (row.length > 0)
      text += stringify(
        batch.map((flat) => row.map((column) => flat[column])),
        options,
      );
    batch = [];
    return text;
  };
  for await (const item of items) {
    const flat = flatten(item);
    for (const key of Object.keys(flat)) {
      if (columns.has(key)) continue;
      if (header !== undefined) throw new CsvColumnsGrew(key);
      columns.add(key);
    }
    batch.push(flat);
    if (batch.length >= batchRows) {
      const text = flush();
      if (text !== '') yield text;
    }
  }
  if (batch.length > 0 || header === undefined) {
    const text = flush();
    if (text !== '') yield text;
  }
}

type CsvOptions = ReturnType<typeof csvOptions>;

function csvOptions(escapeFormulas: boolean) {
  return {
    quoted_string: true,
    record_delimiter: '\n',
    cast: { boolean: (value: boolean) => String(value), ...(escapeFormulas ? { string: escapeFormula } : {}) },
  } as const;
}

/**
 * OWASP, CSV injection: a text cell starting with `=`, `+`, `-`, `@`, tab or carriage return
 * gets a leading `'`, so a spreadsheet shows it as text instead of running it. Header cells
 * too. Numbers are not text cells; neither is text that is just a number (a decimal
 * field's `-5.50`), which a spreadsheet reads as that number.
 */
export function escapeFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) && !/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(text) ? `'${text}` : text;
}

/** Adds empty cells to rows written before the last columns appeared (a newline inside quotes is data). */
async function* padRows(
  body: AsyncIterable<string>,
  runs: readonly { rows: number; width: number }[],
  width: number,
): AsyncGenerator<string> {
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
