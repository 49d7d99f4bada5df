import { databaseDialectOf } from '../db/dialects/index.js';
import type { CompiledSql, ReadDialect } from '../db/dialects/read.js';
import { ForbiddenError } from '../errors.js';
import type { BuildContext } from './ast/build-context.js';
import { buildAggregateAst, buildCountAst } from './ast/build-aggregate-ast.js';
import { andConditions } from './ast/build-condition.js';
import { buildKeysCondition, buildReadAst } from './ast/build-read-ast.js';
import type { ReadAst, ReadNode } from './ast/nodes.js';
import { compileAggregate, compileCount } from './compile/compile-aggregate.js';
import { compileRead, compileReadJson } from './compile/compile-read.js';
import { hasJsonForm, type JsonForm } from './compile/pg-json-value.js';
import { selectPreparedRows, selectRows } from './execute.js';
import { rememberedJsonRead } from './remembered-reads.js';
import type { Query } from './query.js';
import { checkRelationalDepth } from './validate/relational-depth.js';
import type { ReadContext, Reader } from './read-context.js';
import { shapeAggregateRows, shapeCounts, shapeRows, type Item } from './shape/shape-rows.js';
import { shapeValue } from './shape/shape-value.js';

export type { Item } from './shape/shape-rows.js';
export type Meta = Partial<Record<'total_count' | 'filter_count', number>>;

/** True when the query asks for aggregate rows rather than items. */
export function isAggregateQuery(query: Query): boolean {
  return (query.aggregate !== undefined && Object.keys(query.aggregate).length > 0) || (query.groupBy?.length ?? 0) > 0;
}

export function buildContext(ctx: ReadContext, reader: Reader): BuildContext {
  return {
    overview: ctx.overview,
    access: reader.access,
    accountability: reader.accountability,
    limits: ctx.limits,
    now: new Date(),
  };
}

function dialectOfContext(ctx: ReadContext): ReadDialect {
  return databaseDialectOf(ctx.db);
}

/** Whether the database writes a read's JSON answer itself (compileReadJson: PostgreSQL). */
function writesJson(ctx: ReadContext): boolean {
  return dialectOfContext(ctx).writesJsonOutput;
}

/**
 * The items (or aggregate rows) a query selects, in one statement however deep the nesting.
 * Unknown collection or nothing readable: FORBIDDEN.
 */
export async function readItems(ctx: ReadContext, collection: string, query: Query, reader: Reader): Promise<Item[]> {
  const build = buildContext(ctx, reader);
  const dialect = dialectOfContext(ctx);
  if (isAggregateQuery(query)) {
    const ast = buildAggregateAst(build, collection, query);
    return shapeAggregateRows(ast, await selectRows(ctx.db, compileAggregate(dialect, ast)));
  }
  const ast = buildReadAst(build, collection, query);
  return shapeRows(ast, await selectRows(ctx.db, compileRead(dialect, ast)));
}

/**
 * The items of a (non-aggregate) query as their JSON array text, written by PostgreSQL
 * (compileReadJson): what `JSON.stringify(await readItems(...))` would give, without the
 * rows passing through JavaScript (in GraphQL's `form`, what graphql-js would serialise).
 * Null where that form is not available (other dialects, aggregates, fields the shaper must
 * type), and the caller reads items instead.
 */
export async function readItemsJson(
  ctx: ReadContext,
  collection: string,
  query: Query,
  reader: Reader,
  form: JsonForm = 'api',
): Promise<string | null> {
  if (!writesJson(ctx) || isAggregateQuery(query)) return null;
  const statement = jsonStatement(ctx, reader, collection, query, { form }, () =>
    buildReadAst(buildContext(ctx, reader), collection, query),
  );
  return runJson(ctx, statement);
}

/** readItemByKey's item as JSON text (readItemsJson); FORBIDDEN when missing, null when not available. */
export async function readItemJsonByKey(
  ctx: ReadContext,
  collection: string,
  key: string | number,
  query: Query,
  reader: Reader,
  form: JsonForm = 'api',
): Promise<string | null> {
  if (!writesJson(ctx)) return null;
  const statement = jsonStatement(ctx, reader, collection, query, { form, key }, (keys) =>
    keysAst(ctx, reader, collection, keys, singleItemQuery(ctx, query)),
  );
  const list = await runJson(ctx, statement);
  if (list === null) return null;
  // One key selects one row at most: `[{...}]`, or `[]` when missing or not readable.
  if (list === '[]') throw new ForbiddenError();
  return list.slice(1, -1);
}

/**
 * PostgreSQL: the statement {@link readItemsByKeys} runs for one key (one row, one text column
 * `json`: `[{...}]`, or `[]` when the item is missing or not readable), compiled but not run,
 * for a write that reads the item inside its own statement (items/one-statement.ts); the row
 * is read from `source` (the write's CTE of the rows it wrote) instead of the collection's
 * table. Null where the read has no such form.
 */
export function itemJsonStatement(
  ctx: ReadContext,
  collection: string,
  key: string | number,
  query: Query,
  reader: Reader,
  source: string,
): CompiledSql | null {
  if (!writesJson(ctx)) return null;
  return jsonStatement(ctx, reader, collection, query, { form: 'api', source, key }, (keys) =>
    keysAst(ctx, reader, collection, keys, query),
  );
}

/** The query's read of exactly these keys (their filter ANDed in, no window). */
function keysAst(
  ctx: ReadContext,
  reader: Reader,
  collection: string,
  keys: readonly (string | number)[],
  query: Query,
): ReadAst {
  const build = buildContext(ctx, reader);
  const base = buildReadAst(build, collection, query);
  const filter = andConditions(base.level.filter, buildKeysCondition(build, collection, keys));
  return { ...base, level: { ...base.level, filter, limit: null, offset: 0 } };
}

/**
 * The statement of a read's JSON (null: it has none), remembered where it can be
 * (remembered-reads.ts); `ast` builds the read of the keys it is given (those of a keyed read).
 */
function jsonStatement(
  ctx: ReadContext,
  reader: Reader,
  collection: string,
  query: Query,
  read: { readonly form: JsonForm; readonly source?: string; readonly key?: string | number },
  ast: (keys: readonly (string | number)[]) => ReadAst,
): CompiledSql | null {
  return rememberedJsonRead(ctx, reader, collection, query, read, (key) =>
    jsonOf(ctx, ast(key === undefined ? [] : [key]), read.form, read.source),
  );
}

function jsonOf(ctx: ReadContext, ast: ReadAst, form: JsonForm, source?: string): CompiledSql | null {
  if (!hasJsonForm(ctx.overview, ast.collection.collection, ast.children)) return null;
  return compileReadJson(dialectOfContext(ctx), ast, source, form);
}

/** Runs a JSON read's statement: its array text, or null for none. */
async function runJson(ctx: ReadContext, statement: CompiledSql | null): Promise<string | null> {
  if (statement === null) return null;
  const [row] = await selectPreparedRows(ctx.db, statement);
  const json = row?.['json'];
  return typeof json === 'string' ? json : JSON.stringify(json ?? []);
}

/** meta.total_count / meta.filter_count, in one statement. */
export async function readMeta(ctx: ReadContext, collection: string, query: Query, reader: Reader): Promise<Meta> {
  if ((query.meta?.length ?? 0) === 0) return {};
  const ast = buildCountAst(buildContext(ctx, reader), collection, query);
  const [row] = await selectRows(ctx.db, compileCount(dialectOfContext(ctx), ast));
  return shapeCounts(ast, row);
}

/**
 * The items with these primary keys, in the order of `keys`; keys that do not exist or are
 * not readable are left out. `query` shapes them (fields, deep, alias); its filter applies too.
 */
export async function readItemsByKeys(
  ctx: ReadContext,
  collection: string,
  keys: readonly (string | number)[],
  query: Query,
  reader: Reader,
): Promise<Item[]> {
  const ast = keysAst(ctx, reader, collection, keys, query);
  if (keys.length === 1 && writesJson(ctx)) {
    // One key needs no reordering: PostgreSQL's JSON of the item (a prepared statement, no
    // shaping) parses to the same item. Writes read their revisions and answers this way.
    const json = await runJson(ctx, jsonOf(ctx, ast, 'api'));
    if (json !== null) return JSON.parse(json) as Item[];
  }
  const primary = ast.collection.primary;
  const withKey = includesPrimary(ast) ? ast : { ...ast, children: [...ast.children, primaryNode(ast)] };
  const items = shapeRows(withKey, await selectRows(ctx.db, compileRead(dialectOfContext(ctx), withKey)));
  // uuid keys compare case-insensitively (the filter lower-cases them too).
  const normalize = (key: unknown): string =>
    ast.collection.primaryType === 'uuid' ? String(key).toLowerCase() : String(key);
  const byKey = new Map(items.map((item) => [normalize(item[KEY_PROBE] ?? item[primary]), item]));
  const ordered = keys.flatMap((key) => {
    const item = byKey.get(normalize(key));
    return item === undefined ? [] : [item];
  });
  if (withKey !== ast) for (const item of ordered) Reflect.deleteProperty(item, KEY_PROBE);
  return ordered;
}

/** Spec, Errors, rule 1: an item that does not exist or cannot be read is FORBIDDEN. */
export async function readItemByKey(
  ctx: ReadContext,
  collection: string,
  key: string | number,
  query: Query,
  reader: Reader,
): Promise<Item> {
  const [item] = await readItemsByKeys(ctx, collection, [key], singleItemQuery(ctx, query), reader);
  if (item === undefined) throw new ForbiddenError();
  return item;
}

/**
 * A singleton's item: its row, or when none exists an object with every
 * requested field at its default value (primary key null).
 */
export async function readSingleton(ctx: ReadContext, collection: string, query: Query, reader: Reader): Promise<Item> {
  const build = buildContext(ctx, reader);
  const ast = buildReadAst(build, collection, { ...singleItemQuery(ctx, query), limit: 1 });
  const [item] = shapeRows(ast, await selectRows(ctx.db, compileRead(dialectOfContext(ctx), ast)));
  return item ?? defaultItem(ctx, ast);
}

/**
 * Single-item reads take fields, deep and alias only; the filter, sort and deep the request
 * gave are still held to MAX_RELATIONAL_DEPTH first, as the list read holds them (Directus 10
 * validates every query so, whatever the route).
 */
function singleItemQuery(ctx: ReadContext, query: Query): Query {
  checkRelationalDepth(query, ctx.limits.maxRelationalDepth);
  const single: { -readonly [K in keyof Query]: Query[K] } = {};
  if (query.fields !== undefined) single.fields = query.fields;
  if (query.deep !== undefined) single.deep = query.deep;
  if (query.alias !== undefined) single.alias = query.alias;
  if (query.constants !== undefined) single.constants = query.constants;
  single.sort = [];
  return single;
}

function defaultItem(ctx: ReadContext, ast: ReadAst): Item {
  const fields = ctx.overview.collections[ast.collection.collection]?.fields ?? {};
  const item: Item = {};
  for (const node of ast.children) item[node.key] = defaultValue(node, fields, ast.collection.primary);
  return item;
}

function defaultValue(
  node: ReadNode,
  fields: Readonly<Record<string, { defaultValue: unknown }>>,
  primary: string,
): unknown {
  switch (node.kind) {
    case 'field': {
      if (node.column === primary) return null;
      const value = fields[node.column]?.defaultValue ?? null;
      // Database functions (now(), uuid generation) have no value before a row exists.
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return null;
      return shapeValue(node.type, value, node);
    }
    case 'o2m':
      return [];
    default:
      return null;
  }
}

/** A key no output can use: the primary key read only to order by-key results. */
const KEY_PROBE = '\u0000key';

function includesPrimary(ast: ReadAst): boolean {
  return ast.children.some(
    (c) => c.kind === 'field' && c.key === ast.collection.primary && c.column === ast.collection.primary,
  );
}

function primaryNode(ast: ReadAst): ReadNode {
  const { primary, primaryType } = ast.collection;
  return { kind: 'field', key: KEY_PROBE, column: primary, type: primaryType, masked: false, scale: null };
}
