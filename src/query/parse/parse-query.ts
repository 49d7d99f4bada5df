import { LRUCache } from 'lru-cache';
import qs from 'qs';
import { isLogicalOperator } from '../../../catalog/overview/filter-operators.js';
import { InvalidQueryError } from '../../errors.js';
import {
  AGGREGATE_FUNCTIONS,
  EXPORT_FORMATS,
  META_KINDS,
  type Aggregate,
  type AggregateFunction,
  type Deep,
  type ExportFormat,
  type Filter,
  type MetaKind,
  type NestedQuery,
  type Query,
} from '../query.js';
import { asArray, parseInteger, parseJsonObject, parseList, parseString, setOwn } from './parse-values.js';
import { tooDeepMessage } from './nesting-depth.js';
import { isPlainObject } from '../../is-plain-object.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type RawParams = Readonly<Record<string, unknown>>;

/**
 * qs options for the query string: deeper and longer than Express's defaults, so filters
 * nested up to MAX_RELATIONAL_DEPTH and long `_in` lists keep their structure.
 */
const QS_DEPTH = 64;
const QS_OPTIONS: qs.IParseOptions = { depth: QS_DEPTH, strictDepth: true, arrayLimit: 1000, parameterLimit: 10_000 };

/**
 * The raw parameters of a query string (`?a=1&b[c]=2`, with or without the `?`). Brackets
 * deeper than 64 levels are refused (INVALID_QUERY) rather than kept as one literal key.
 */
export function parseQueryString(search: string): RawParams {
  try {
    return qs.parse(search.startsWith('?') ? search.slice(1) : search, QS_OPTIONS);
  } catch (error) {
    if (error instanceof RangeError) throw new InvalidQueryError(tooDeepMessage('The query string', QS_DEPTH));
    throw error;
  }
}

/** Query strings longer than this are parsed every time (clients repeat short ones). */
const MAX_REMEMBERED_SEARCH = 2048;
const recentQueries = new LRUCache<string, Query>({ max: 1000 });

/**
 * The query of a query string (`parseQuery(parseQueryString(search))`), remembered for the
 * last thousand strings: a client repeats its query strings, and parsing them is a tenth of
 * a cheap read's CPU. The query is frozen, so that no request changes another's.
 */
export function queryOfSearch(search: string): Query {
  const remembered = recentQueries.get(search);
  if (remembered !== undefined) return remembered;
  const query = deepFreeze(parseQuery(parseQueryString(search)));
  if (search.length <= MAX_REMEMBERED_SEARCH) recentQueries.set(search, query);
  return query;
}

/** `value` frozen throughout: a query shared by many requests, which none may change. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/**
 * Turns raw global query parameters (bracket form, JSON strings, comma
 * lists, or a SEARCH body's `query` object) into a `Query`. Syntax only: names and values are
 * checked against the schema later. Unknown parameters are ignored.
 */
export function parseQuery(raw: RawParams): Query {
  const query: Mutable<Query> = { ...parseNested(raw, '') };
  if (raw['fields'] !== undefined) query.fields = parseList(raw['fields'], 'fields');
  if (raw['meta'] !== undefined) query.meta = parseMeta(raw['meta']);
  if (raw['aggregate'] !== undefined) query.aggregate = parseAggregate(raw['aggregate']);
  if (raw['groupBy'] !== undefined) query.groupBy = parseList(raw['groupBy'], 'groupBy');
  if (raw['export'] !== undefined) query.export = parseExport(raw['export']);
  return query;
}

/**
 * The parameters one level accepts; `prefix` is `_` inside `deep` (`_filter`, `_limit`, ...)
 * and empty at the root.
 */
function parseNested(raw: RawParams, prefix: '' | '_'): NestedQuery {
  const level: Mutable<NestedQuery> = {};
  const get = (name: string): unknown => raw[prefix + name];
  if (get('filter') !== undefined) level.filter = parseFilter(get('filter'));
  if (get('search') !== undefined) level.search = parseString(get('search'), `${prefix}search`);
  if (get('sort') !== undefined) level.sort = parseList(get('sort'), `${prefix}sort`);
  if (get('limit') !== undefined) level.limit = parseInteger(get('limit'), `${prefix}limit`, -1);
  if (get('offset') !== undefined) level.offset = parseInteger(get('offset'), `${prefix}offset`, 0);
  if (get('page') !== undefined) level.page = parseInteger(get('page'), `${prefix}page`, 1);
  if (get('alias') !== undefined) level.alias = parseAlias(get('alias'));
  const deep = prefix === '' ? raw['deep'] : nestedRelations(raw);
  if (deep !== undefined) level.deep = parseDeep(deep);
  return level;
}

/** Inside `deep`, keys without `_` are the next level's relations. */
function nestedRelations(raw: RawParams): RawParams | undefined {
  const entries = Object.entries(raw).filter(([key]) => !key.startsWith('_'));
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

function parseDeep(value: unknown): Deep {
  const object = parseJsonObject(value, 'deep');
  const deep: Record<string, NestedQuery> = {};
  for (const [relation, nested] of Object.entries(object)) {
    if (relation.startsWith('_')) continue;
    const level = typeof nested === 'string' ? parseJsonObject(nested, 'deep') : nested;
    if (!isPlainObject(level)) throw new InvalidQueryError('Invalid deep object');
    setOwn(deep, relation, parseNested(level, '_'));
  }
  return deep;
}

/**
 * filter: an object or its JSON string. `_and`/`_or` lists that qs
 * turned into objects with numeric keys become arrays again; the rest is checked later.
 */
export function parseFilter(value: unknown): Filter {
  return normalizeFilter(parseJsonObject(value, 'filter'));
}

function normalizeFilter(filter: Readonly<Record<string, unknown>>): Filter {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filter)) {
    if (isLogicalOperator(key)) {
      const items = asArray(value);
      if (items === undefined || !items.every(isPlainObject)) throw new InvalidQueryError('Invalid filter object');
      setOwn(
        out,
        key,
        items.map((item) => normalizeFilter(item)),
      );
    } else if (isPlainObject(value) && asArray(value) === undefined) {
      setOwn(out, key, normalizeFilter(value));
    } else {
      setOwn(out, key, value);
    }
  }
  return out;
}

function parseMeta(value: unknown): MetaKind[] {
  const entries = parseList(value, 'meta');
  if (entries.includes('*')) return [...META_KINDS];
  entries.forEach((entry, i) => {
    if (!(META_KINDS as readonly string[]).includes(entry)) {
      throw new InvalidQueryError(`"meta[${i}]" must be one of [${META_KINDS.join(', ')}]`);
    }
  });
  return [...new Set(entries as MetaKind[])];
}

function parseAggregate(value: unknown): Aggregate {
  const object = parseJsonObject(value, 'aggregate');
  const aggregate: Partial<Record<AggregateFunction, readonly string[]>> = {};
  for (const [fn, fields] of Object.entries(object)) {
    if (!(AGGREGATE_FUNCTIONS as readonly string[]).includes(fn)) {
      throw new InvalidQueryError(`Invalid aggregate function "${fn}"`);
    }
    aggregate[fn as AggregateFunction] = parseList(fields, `aggregate[${fn}]`);
  }
  return aggregate;
}

/** alias: an object of strings, neither side containing a period. */
function parseAlias(value: unknown): Record<string, string> {
  let object: Readonly<Record<string, unknown>>;
  try {
    object = parseJsonObject(value, 'alias');
  } catch {
    throw new InvalidQueryError('"alias" must be an object');
  }
  const alias: Record<string, string> = {};
  for (const [name, field] of Object.entries(object)) {
    if (typeof field !== 'string') throw new InvalidQueryError('"alias" values must be strings');
    if (name.includes('.') || field.includes('.')) {
      throw new InvalidQueryError('"alias" key/value can\'t contain a period character `.`');
    }
    setOwn(alias, name, field);
  }
  return alias;
}

function parseExport(value: unknown): ExportFormat {
  const format = parseString(value, 'export');
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw new InvalidQueryError(`"export" must be one of [${EXPORT_FORMATS.join(', ')}]`);
  }
  return format as ExportFormat;
}
