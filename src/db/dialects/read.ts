import type { DbClient } from '../../db-client.js';
import { invariant } from '../../errors.js';
import type { FieldType } from '../../field-types.js';

/** The functions a date, time or timestamp field can be read through (`year(published)`). */
export const DATE_FUNCTIONS = ['year', 'month', 'week', 'day', 'weekday', 'hour', 'minute', 'second'] as const;
export type DateFunction = (typeof DATE_FUNCTIONS)[number];

/** How a sort through a to-many hop reduces the related values to one. */
export type SortPick = 'min' | 'max';

/** A value a filter compares with, before the dialect binds it (`bind`). */
export type Literal = string | number | boolean | Date | null;

/** Where a `_contains`, `_starts_with` or `_ends_with` filter looks for its text. */
export type MatchMode = 'contains' | 'starts' | 'ends';

/**
 * What the query compiler (query/compile) asks a database: one expression's SQL, and the few
 * shapes of a whole statement the shared compiler (compile-read.ts) takes per database. The
 * compiler asks these questions; it never branches on `client`. Each database's dialect
 * (dialects/<database>/) answers them, with `standardRead` (below) for what standard SQL does.
 */
export interface ReadDialect {
  readonly client: DbClient;
  /** o2m lists as `LEFT JOIN LATERAL` (PostgreSQL); correlated subqueries otherwise. */
  readonly hasLateralLists: boolean;
  /**
   * A nullable sort value through a many-to-one is read in a derived root table (MariaDB would
   * write its correlated subquery twice: `v is null, v`).
   */
  readonly sortsNullablePathsInDerivedRoot: boolean;
  /** The one-row JSON answer of compileReadJson (PostgreSQL). */
  readonly writesJsonOutput: boolean;
  /**
   * One statement can insert a row and, from its RETURNING, a row that refers to it (a
   * data-modifying WITH, PostgreSQL): the journal writes a single change's activity and revision so.
   */
  readonly insertsThroughWith: boolean;
  /**
   * A read-only transaction reads a statement's rows batch by batch through a server-side
   * cursor (DECLARE ... CURSOR, PostgreSQL); otherwise unlimited reads go statement by statement.
   */
  readonly hasCursors: boolean;
  /**
   * The most values one statement may bind (PostgreSQL's protocol counts them in 16 bits,
   * SQLite's SQLITE_MAX_VARIABLE_NUMBER; mysql2 writes a read's values into its text).
   */
  readonly maxBoundValues: number;
  /**
   * A WHERE condition true when the JSON object in `column` (quoted) has the key bound as its
   * one `?` (even with a null value), and that binding for `key`.
   */
  jsonHasKey(column: string, key: string): [sql: string, bindings: string[]];
  /**
   * How an o2m list aggregates: `inline` = the aggregate orders and limits itself
   * (JSON_ARRAYAGG(... ORDER BY ... LIMIT), MySQL/MariaDB, whose derived tables cannot see the
   * parent row); `derived` = over a derived table that applies the window first.
   */
  readonly listAggregation: 'inline' | 'derived';
  /** The JSON array aggregate function (json_agg, json_group_array, json_arrayagg). */
  readonly jsonListFunction: string;
  /** An element of a `derived` list aggregate: the derived column (SQLite reads tuples' text as JSON). */
  listElement(w: SqlWriter, column: Emit, isTuple: boolean): void;
  readonly quoteId: (name: string) => string;
  /** A filter value as the driver should bind it for a column of `type`. */
  bind(value: Literal, type: FieldType): unknown;
  /**
   * `operand [not] in (...)` over a list of more than LONG_LIST values (each as `bind` gave
   * it), bound as ONE value where a statement's bound values are limited (PostgreSQL 65,535:
   * `= any(?)` with an array; SQLite 32,766: `in (select value from json_each(?))` with a JSON
   * array); MySQL/MariaDB bind each, as mysql2 writes them into the statement's text.
   */
  inLongList(w: SqlWriter, operand: Emit, values: readonly unknown[], negated: boolean): void;
  /**
   * A column as read into a row or a JSON tuple, so every dialect yields the same text:
   * big numbers and decimals as text (JSON numbers would lose digits), temporal values as text.
   */
  readColumn(w: SqlWriter, column: Emit, type: FieldType): void;
  /** The field types `readColumn` reads as text. */
  readonly readsAsText: ReadonlySet<FieldType>;
  /** The type a value is cast to as text (MariaDB's CAST knows `char`, not `text`). */
  readonly textType: string;
  /**
   * A column as a filter compares it with values bound by `bind` (`=`, `in`, `between`, `<`...):
   * the column itself where the database has typed columns; SQLite's temporal text in one form.
   */
  compareColumn(w: SqlWriter, column: Emit, type: FieldType): void;
  /**
   * A value a filter compares with a 4-byte float column (Operand `singleFloat`), rounded to
   * that precision: MariaDB compares such a column as a double with the value, so 57.399
   * (stored as 57.39899826...) equalled nothing and was below 57.399. Undefined where the
   * database rounds the value itself (PostgreSQL types a bound value as the `real` column it
   * meets) or has no such column (SQLite stores every float in 8 bytes).
   */
  readonly singleFloat?: (w: SqlWriter, value: Emit) => void;
  /** A JSON array of the items (one tuple per row). */
  jsonArray(w: SqlWriter, items: readonly Emit[]): void;
  /** The empty JSON array, for lists without rows. */
  readonly emptyJsonArray: string;
  datePart(w: SqlWriter, fn: DateFunction, column: Emit): void;
  /** A case-(in)sensitive substring, prefix or suffix test; `text` is bound. */
  match(w: SqlWriter, operand: Emit, mode: MatchMode, caseInsensitive: boolean, text: string): void;
  concat(w: SqlWriter, parts: readonly Emit[]): void;
  /**
   * One ORDER BY term in which NULLs sort as the largest value, PostgreSQL's own order (last
   * ascending, first descending), so every dialect returns the same order. `canBeNull`
   * false (counts): the plain term.
   */
  sortTerm(w: SqlWriter, value: Emit, descending: boolean, canBeNull: boolean): void;
  /**
   * A value of `type` as ORDER BY, GROUP BY and count(distinct) compare it: the value itself,
   * except PostgreSQL's json, which has no ordering or equality operator and compares as its
   * text, as the json of SQLite and MariaDB (text columns) does.
   */
  comparable(w: SqlWriter, value: Emit, type: FieldType): void;
  /**
   * min()/max() of a to-many sort path's values (`pick`), for a value of `type` given as
   * `comparable` writes it, comparing as the same value would in an ORDER BY.
   */
  pick(w: SqlWriter, pick: SortPick, value: Emit, type: FieldType): void;
  /** LIMIT/OFFSET clause with its leading space; nothing when there is neither. */
  limitOffset(w: SqlWriter, limit: number | null, offset: number): void;
  /**
   * The LIMIT that means none, for an OFFSET without a limit where OFFSET needs a LIMIT before
   * it (MariaDB, SQLite); undefined where OFFSET stands alone (PostgreSQL).
   */
  readonly noLimit?: string;
  /** The JSON object `value` without the top-level `keys` (a null value stays null). */
  withoutJsonKeys(w: SqlWriter, value: Emit, keys: readonly string[]): void;
  /** Number of elements of a JSON array column. */
  jsonLength(w: SqlWriter, column: Emit): void;
  /** avg() input, as double precision so every dialect averages the same way. */
  asDouble(w: SqlWriter, value: Emit): void;
  /** A value as text, so keys of any type compare with keys stored as text (svc_revisions.item). */
  asText(w: SqlWriter, value: Emit): void;
  /** A many-to-any item key (stored as text) as the target's primary key type. */
  keyAs(w: SqlWriter, key: Emit, type: FieldType): void;
  geoIntersects(w: SqlWriter, operand: Emit, mode: 'intersects' | 'bbox', geojson: string): void;
}

/**
 * Lists of up to this many values are written `in (?, ...)`, each value bound, as they always
 * were; longer ones go to Dialect.inLongList.
 */
export const LONG_LIST = 1000;

/** `min(value)` / `max(value)`: the plain aggregate, for dialects that order every type with it. */
export function plainPick(w: SqlWriter, pick: SortPick, value: Emit): void {
  w.raw(`${pick}(`);
  value(w);
  w.raw(')');
}

/**
 * A LIKE pattern matching `text` as `mode` says, its wildcards escaped with `escape`: `!` by
 * default, named by the statement's `escape '!'` (not `\`, which MySQL strings also use);
 * PostgreSQL's default `\` needs no ESCAPE clause (postgres/read.ts).
 */
export function likePattern(mode: MatchMode, text: string, escape: '!' | '\\' = '!'): string {
  const escaped = text.replace(escape === '!' ? /[!%_]/g : /[\\%_]/g, (c) => `${escape}${c}`);
  switch (mode) {
    case 'contains':
      return `%${escaped}%`;
    case 'starts':
      return `${escaped}%`;
    case 'ends':
      return `%${escaped}`;
  }
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `YYYY-MM-DD` of the instant in UTC. */
export function utcDate(date: Date): string {
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

/** `HH:MM:SS` of the instant in UTC. */
export function utcTime(date: Date): string {
  return `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}

/** `YYYY-MM-DD HH:MM:SS[.mmm]` in UTC: the text form MySQL and SQLite compare against. */
export function utcDateTime(date: Date): string {
  const ms = date.getUTCMilliseconds();
  return `${utcDate(date)} ${utcTime(date)}${ms === 0 ? '' : `.${pad(ms, 3)}`}`;
}

/** Dates for `date`/`time` columns as their text; booleans and others unchanged. */
export function bindTemporal(value: Literal, type: FieldType, dateTime: (d: Date) => string): Literal {
  if (!(value instanceof Date)) return value;
  if (type === 'date') return utcDate(value);
  if (type === 'time') return utcTime(value);
  return dateTime(value);
}

/** SQL text with `?` placeholders (knex numbers them for PostgreSQL) and the values in order. */
export interface CompiledSql {
  readonly sql: string;
  readonly values: readonly unknown[];
}

/**
 * Appends SQL text; identifiers go through the dialect's quoting and values are always bound
 * (`?`), never spliced, so nothing from a request reaches the SQL text. Given a text already
 * written by the same steps (`known`), it collects the values only and finishes with that text.
 */
export class SqlWriter {
  #text = '';
  readonly #values: unknown[] = [];
  readonly #known: string | undefined;

  constructor(
    readonly dialect: ReadDialect,
    known?: string,
  ) {
    this.#known = known;
  }

  raw(text: string): this {
    if (this.#known === undefined) this.#text += text;
    return this;
  }

  id(name: string): this {
    if (this.#known !== undefined) return this;
    // knex and mysql2 read every `?` as a placeholder, even inside quoted identifiers.
    invariant(!name.includes('?'), `identifier without "?": ${name}`);
    this.#text += this.dialect.quoteId(name);
    return this;
  }

  /** `"alias"."column"` */
  column(alias: string, column: string): this {
    return this.id(alias).raw('.').id(column);
  }

  value(value: unknown): this {
    invariant(value !== undefined, 'bound values are defined');
    this.#values.push(value);
    return this.raw('?');
  }

  /** `cast(value as type)`: `type` is the dialect's own spelling, never a request's. */
  cast(value: Emit, type: string): this {
    this.raw('cast(');
    value(this);
    return this.raw(` as ${type})`);
  }

  /** Appends SQL compiled elsewhere (a read of this compiler, knex's `toSQL()`), its values in order. */
  append(compiled: { readonly sql: string; readonly values: readonly unknown[] }): this {
    this.raw(compiled.sql);
    this.#values.push(...compiled.values);
    return this;
  }

  /** Writes each item with `each`, separated by `separator`. */
  join<T>(items: readonly T[], separator: string, each: (item: T, index: number) => void): this {
    items.forEach((item, index) => {
      if (index > 0) this.raw(separator);
      each(item, index);
    });
    return this;
  }

  finish(): CompiledSql {
    return Object.freeze({ sql: this.#known ?? this.#text, values: Object.freeze([...this.#values]) });
  }
}

/** Writes part of an expression. */
export type Emit = (w: SqlWriter) => void;
