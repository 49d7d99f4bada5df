import type { Knex } from 'knex';
import { invariant } from '../errors.js';
import { databaseDialectOf } from './dialects/index.js';
import type { SerialSequences } from './serial-sequences.js';

type Row = Readonly<Record<string, unknown>>;
type Key = string | number;

/** Bound values per statement: under PostgreSQL's 65,535 and SQLite's 32,766. */
const MAX_BOUND_VALUES = 30_000;

export interface InsertKeysOptions {
  /**
   * The database generates increasing integer keys (a sequence, AUTO_INCREMENT, SQLite's
   * rowid): rows without a key can share a statement, their keys matched by order. Other
   * generated keys (a uuid default) take a statement per row.
   */
  readonly hasIncreasingKeys: boolean;
  /** json/jsonb columns, whose values are JSON text: PostgreSQL takes them as they are. */
  readonly jsonColumns?: ReadonlySet<string>;
  /** PostgreSQL, an auto-increment key: its sequence is kept ahead of the given keys. */
  readonly sequences?: SerialSequences;
}

/**
 * Inserts `rows` in order and returns their primary keys in the same order: as few statements
 * as the database takes (consecutive rows with the same columns together, within the bound
 * value limits), instead of one per row.
 *
 * Keys: the given one, or the one the database generated. A statement's generated keys come
 * back through RETURNING (PostgreSQL, SQLite, MariaDB) in no promised order; generated integer
 * keys increase in the order the rows were inserted, so sorted they line up with the rows
 * (the sentinel-free way SQLAlchemy's insertmanyvalues matches them). MySQL/MariaDB and
 * SQLite answer a given key as given, PostgreSQL as stored (typed by the column).
 */
export async function insertReturningKeys(
  db: Knex | Knex.Transaction,
  table: string,
  rows: readonly Row[],
  primaryKey: string,
  options: InsertKeysOptions,
): Promise<Key[]> {
  const keys: Key[] = [];
  const { sequences } = options;
  for (const chunk of statementsOf(db, rows, primaryKey, options)) {
    if (sequences !== undefined && chunk.some((row) => !hasKey(row, primaryKey)))
      await sequences.moveBeforeGenerating(db, table);
    keys.push(...(await insertChunk(db, table, chunk, primaryKey, options.jsonColumns ?? NO_COLUMNS)));
    if (sequences !== undefined && chunk.some((row) => hasKey(row, primaryKey)))
      sequences.noteGivenKeys(table, primaryKey);
  }
  return keys;
}

/**
 * Consecutive rows within the limits of one statement. SQLite takes rows of the same columns
 * only; PostgreSQL and MySQL take rows of different columns together, a column a row leaves
 * out written as DEFAULT (knex does so for them), as a file's empty cells leave fields out;
 * rows with a given key and rows without one never share a statement.
 */
function statementsOf(
  db: Knex | Knex.Transaction,
  rows: readonly Row[],
  primaryKey: string,
  options: InsertKeysOptions,
): Row[][] {
  const dialect = databaseDialectOf(db);
  const maxRows = dialect.maxInsertRows;
  const sameColumnsOnly = !dialect.insertsMixedColumns;
  const chunks: Row[][] = [];
  let current: Row[] = [];
  let signature = '';
  let columnsOfChunk = new Set<string>();
  let generated = 0;
  for (const row of rows) {
    const columns = Object.keys(row);
    // A given key and a generated one never share a statement (sequences, keys matched by order).
    const rowSignature = sameColumnsOnly ? columns.sort().join('\u0000') : String(hasKey(row, primaryKey));
    const added = columns.filter((c) => !columnsOfChunk.has(c)).length;
    const isGenerated = !hasKey(row, primaryKey);
    const full =
      current.length >= maxRows ||
      (current.length + 1) * (columnsOfChunk.size + added) > MAX_BOUND_VALUES ||
      (isGenerated && generated > 0 && !options.hasIncreasingKeys);
    // `insert ... default values` takes one row per statement.
    if (
      current.length > 0 &&
      (rowSignature !== signature || full || columns.length === 0 || columnsOfChunk.size === 0)
    ) {
      chunks.push(current);
      current = [];
      columnsOfChunk = new Set();
      generated = 0;
    }
    current.push(row);
    for (const column of columns) columnsOfChunk.add(column);
    signature = rowSignature;
    if (isGenerated) generated += 1;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

const NO_COLUMNS: ReadonlySet<string> = new Set();

async function insertChunk(
  db: Knex | Knex.Transaction,
  table: string,
  rows: readonly Row[],
  primaryKey: string,
  jsonColumns: ReadonlySet<string>,
): Promise<Key[]> {
  const dialect = databaseDialectOf(db);
  const recordset =
    dialect.insertsRecordset && rows.length > 1 ? recordsetInsert(db, table, rows, primaryKey, jsonColumns) : undefined;
  if (recordset !== undefined) {
    const { rows: returned } = (await recordset) as unknown as { rows: Row[] };
    return matchKeys(rows, returned, primaryKey, dialect.returnsStoredKeys);
  }
  const generatedCount = rows.filter((row) => !hasKey(row, primaryKey)).length;
  const insert = db(table).insert(rows.length === 1 ? rows[0] : [...rows]);
  if (dialect.insertKeys === 'insert-id') {
    if (generatedCount === 0) {
      await insert;
      return rows.map((row) => row[primaryKey] as Key);
    }
    if (generatedCount === 1) {
      // The statement's one generated key is its insert id, on MySQL as on MariaDB.
      const [insertId] = (await insert) as unknown as [Key | undefined];
      invariant(insertId !== undefined, `an insert id for ${table}`);
      return rows.map((row) => (hasKey(row, primaryKey) ? (row[primaryKey] as Key) : insertId));
    }
    // knex's MySQL client has no RETURNING; MariaDB (10.5+) has.
    const { sql, bindings } = insert.toSQL();
    const [returned] = (await db.raw(`${sql} returning ??`, [...bindings, primaryKey])) as unknown as [Row[]];
    return matchKeys(rows, returned, primaryKey, false);
  }
  const returned = await insert.returning<Row[]>(primaryKey);
  return matchKeys(rows, returned, primaryKey, dialect.returnsStoredKeys);
}

/**
 * PostgreSQL: the rows as ONE bound JSON array, turned into rows of the table's own type by
 * json_populate_recordset (each value converted as its column's input), inserted in array
 * order. Parsing a statement of thousands of placeholders costs both sides more than the
 * JSON does. Undefined when a value has no exact JSON form: the rows then go as VALUES.
 */
function recordsetInsert(
  db: Knex | Knex.Transaction,
  table: string,
  rows: readonly Row[],
  primaryKey: string,
  jsonColumns: ReadonlySet<string>,
): Knex.Raw | undefined {
  const [first] = rows;
  const columns = first === undefined ? [] : Object.keys(first);
  if (columns.length === 0) return undefined;
  // A column missing from a row would be null here, not its default: such rows go as VALUES.
  if (rows.some((row) => !sameColumns(row, columns))) return undefined;
  const names = columns.map((c) => `${JSON.stringify(c)}:`);
  const items: string[] = [];
  for (const row of rows) {
    const values: string[] = [];
    for (const [i, column] of columns.entries()) {
      const value = jsonValue(row[column], jsonColumns.has(column));
      if (value === undefined) return undefined;
      values.push(`${names[i] ?? ''}${value}`);
    }
    items.push(`{${values.join(',')}}`);
  }
  const list = columns.map(() => '??').join(', ');
  return db.raw(`insert into ?? (${list}) select ${list} from json_populate_recordset(null::??, ?) returning ??`, [
    table,
    ...columns,
    ...columns,
    table,
    `[${items.join(',')}]`,
    primaryKey,
  ]);
}

/** A value as JSON, or undefined when JSON cannot carry it exactly (NaN, binary, ...). */
function jsonValue(value: unknown, isJsonText: boolean): string | undefined {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return isJsonText ? value : JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : undefined;
    case 'boolean':
      return String(value);
    default:
      return value instanceof Date && !Number.isNaN(value.getTime()) ? `"${pgDateText(value)}"` : undefined;
  }
}

/** A Date as node-postgres sends it as a parameter: local time with its offset (also COPY's text, copy-rows.ts). */
export function pgDateText(date: Date): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const year = date.getFullYear();
  const day = `${pad(Math.abs(year < 1 ? year - 1 : year), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
  const offset = -date.getTimezoneOffset();
  const zone = `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${day}T${time}${zone}${year < 1 ? ' BC' : ''}`;
}

/** Each row's key: its given one (as stored when `storedGiven`), else the next generated one. */
function matchKeys(rows: readonly Row[], returned: readonly Row[], primaryKey: string, storedGiven: boolean): Key[] {
  invariant(
    returned.length === rows.length,
    `one returned key per inserted row (${returned.length} for ${rows.length})`,
  );
  const returnedKeys = returned.map((r) => r[primaryKey] as Key);
  const given = new Map<string, Key | undefined>();
  for (const row of rows) if (hasKey(row, primaryKey)) given.set(normalize(row[primaryKey]), undefined);
  const generated: Key[] = [];
  for (const key of returnedKeys) {
    const id = normalize(key);
    if (given.has(id) && given.get(id) === undefined) given.set(id, key);
    else generated.push(key);
  }
  if (generated.length > 1) generated.sort(compareIntegers);
  let next = 0;
  return rows.map((row) => {
    if (hasKey(row, primaryKey)) {
      const value = row[primaryKey] as Key;
      return storedGiven ? (given.get(normalize(value)) ?? value) : value;
    }
    const key = generated[next++];
    invariant(key !== undefined, 'a generated key per row without one');
    return key;
  });
}

function hasKey(row: Row, primaryKey: string): boolean {
  const value = row[primaryKey];
  return value !== undefined && value !== null;
}

/** A uuid in any form PostgreSQL reads (capitals, braces, fewer hyphens): its 8-4-4-4-12 groups. */
const UUID_GROUPS = /^\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i;

/**
 * A key as text to match a given key with the stored one: a uuid in PostgreSQL's canonical
 * form (the form it answers), any other key exactly, so text keys differing in case stay apart.
 */
function normalize(key: unknown): string {
  const text = String(key);
  const uuid = UUID_GROUPS.exec(text);
  return uuid === null ? text : uuid.slice(1).join('-').toLowerCase();
}

function compareIntegers(a: Key, b: Key): number {
  const [x, y] = [BigInt(a), BigInt(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

function sameColumns(row: Row, columns: readonly string[]): boolean {
  const keys = Object.keys(row);
  return keys.length === columns.length && columns.every((c) => c in row);
}
