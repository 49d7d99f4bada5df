import type { SchemaOverview } from '../../catalog/overview/types.js';
import { FULL_READ_ACCESS } from '../access/read-access.js';
import { databaseDialectOf } from '../db/dialects/index.js';
import type { CompiledSql } from '../db/dialects/read.js';
import { InvalidQueryError } from '../errors.js';
import { collectionRef } from './ast/resolve.js';
import type { JsonForm } from './compile/pg-json-value.js';
import type { Query } from './query.js';
import type { ReadContext, Reader } from './read-context.js';
import { coerceLiteral } from './validate/filter-values.js';

/**
 * A JSON read as compiled once (issue 43): the statement (null: the read has no JSON form), and
 * where its one key's value is bound (none for a list; null for a keyed read whose key could not
 * be placed, which is then compiled for each key, once).
 */
interface Remembered {
  readonly compiled: CompiledSql | null;
  readonly keySlots: readonly number[] | null;
}

type Key = string | number;

/** Which read: its JSON form, the table it reads from (a write's CTE), the one key it reads. */
interface ReadKind {
  readonly form: JsonForm;
  readonly source?: string | undefined;
  readonly key?: Key | undefined;
}

/** Distinct reads remembered per overview; the oldest is forgotten first. */
const MAX_REMEMBERED = 1000;
const remembered = new WeakMap<SchemaOverview, Map<string, Remembered>>();

/**
 * PostgreSQL's JSON reads (read-items.ts) compiled once per schema and read, not per request:
 * what the AST builder and the compiler give depends only on the overview, the query, the
 * reader's access and accountability, the limits and the key. Only reads with full access
 * (admins, and the snapshots a write records) are remembered, whose statements no permission
 * or `$CURRENT_USER.…` value read at the time changes; a query naming `$NOW` is compiled each
 * time (its instant is bound), one naming another dynamic value per user and role. A keyed
 * read is compiled twice the first time, with its key and with another, to find where the key
 * is bound; later keys are coerced as the builder coerces them and bound there, and a key the
 * builder would drop (not of the key's type) is compiled as before, and a read whose two
 * statements do not line up is compiled each time, once per key. `compile` is the read
 * compiled as ever (null: no JSON form), which this answers for reads it does not remember.
 */
export function rememberedJsonRead(
  ctx: ReadContext,
  reader: Reader,
  collection: string,
  query: Query,
  read: ReadKind,
  compile: (key: Key | undefined) => CompiledSql | null,
): CompiledSql | null {
  const { key } = read;
  const id = readId(ctx, reader, collection, query, read);
  if (id === undefined) return compile(key);
  let reads = remembered.get(ctx.overview);
  if (reads === undefined) {
    reads = new Map();
    remembered.set(ctx.overview, reads);
  }
  const known = reads.get(id);
  if (known !== undefined) {
    if (known.compiled === null || key === undefined) return known.compiled;
    if (known.keySlots === null) return compile(key);
    return withKey(ctx, collection, known.compiled, known.keySlots, key) ?? compile(key);
  }
  const compiled = compile(key);
  const learned =
    key === undefined || compiled === null
      ? { compiled, keySlots: [] }
      : keySlots(ctx, collection, compiled, key, compile);
  if (learned !== undefined) {
    if (reads.size >= MAX_REMEMBERED) reads.delete(reads.keys().next().value as string);
    reads.set(id, learned);
  }
  return compiled;
}

/** The read's identity within its overview, or undefined when it is not remembered. */
function readId(
  ctx: ReadContext,
  reader: Reader,
  collection: string,
  query: Query,
  read: ReadKind,
): string | undefined {
  if (reader.access !== FULL_READ_ACCESS) return undefined;
  const text = queryText(query);
  if (text.includes('$NOW')) return undefined;
  const { accountability: who } = reader;
  const { limits } = ctx;
  const caller = text.includes('$CURRENT_') ? `${who.user ?? ''}\u0000${who.role ?? ''}` : '';
  return [
    read.form,
    read.source ?? '',
    collection,
    read.key === undefined ? '' : typeof read.key,
    who.admin ? 'admin' : '',
    caller,
    limits.queryLimitDefault,
    limits.queryLimitMax,
    limits.maxRelationalDepth,
    text,
  ].join('\u0000');
}

/**
 * Each frozen query's JSON, written once: a query string's (parse-query.ts) and a snapshot's
 * (read-snapshot.ts) are frozen throughout and shared by the requests that send or write them.
 */
const queryTexts = new WeakMap<Query, string>();

function queryText(query: Query): string {
  let text = queryTexts.get(query);
  if (text === undefined) {
    text = JSON.stringify(query);
    if (Object.isFrozen(query)) queryTexts.set(query, text);
  }
  return text;
}

/** The key's value as the AST builder binds it (buildKeysCondition), or undefined where it drops the key. */
function boundKey(ctx: ReadContext, collection: string, key: Key): unknown {
  const overview = ctx.overview.collections[collection];
  if (overview === undefined) return undefined;
  const type = collectionRef(overview).primaryType;
  try {
    return databaseDialectOf(ctx.db).bind(coerceLiteral(type, key, 'key'), type);
  } catch (error) {
    if (error instanceof InvalidQueryError) return undefined;
    throw error;
  }
}

function withKey(
  ctx: ReadContext,
  collection: string,
  compiled: CompiledSql,
  keySlots: readonly number[],
  key: Key,
): CompiledSql | undefined {
  const value = boundKey(ctx, collection, key);
  if (value === undefined) return undefined;
  const values = compiled.values.slice();
  for (const slot of keySlots) values[slot] = value;
  return { sql: compiled.sql, values };
}

/** Another key of the same type: 1 or 2, as a number or a text, or one of two uuids. */
function otherKey(key: Key): Key {
  if (typeof key === 'number') return key === 1 ? 2 : 1;
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(key);
  const [one, two] = uuid
    ? ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002']
    : ['1', '2'];
  return key.toLowerCase() === one ? two : one;
}

/**
 * Where `key`'s value is bound in `compiled`: the positions whose values differ from those of
 * the same read compiled for another key, each holding exactly that key's bound value, the
 * text the same. When the two do not line up so, no slots (null): the read is compiled for each
 * key. Undefined, nothing learned, when the builder drops this key: another may still teach it.
 */
function keySlots(
  ctx: ReadContext,
  collection: string,
  compiled: CompiledSql,
  key: Key,
  compile: (key: Key) => CompiledSql | null,
): Remembered | undefined {
  const other = otherKey(key);
  const value = boundKey(ctx, collection, key);
  if (value === undefined) return undefined;
  const eachTime = { compiled, keySlots: null };
  const otherValue = boundKey(ctx, collection, other);
  if (otherValue === undefined || value === otherValue) return eachTime;
  const second = compile(other);
  if (second === null || second.sql !== compiled.sql || second.values.length !== compiled.values.length)
    return eachTime;
  const slots: number[] = [];
  for (let i = 0; i < compiled.values.length; i++) {
    if (compiled.values[i] === second.values[i]) continue;
    if (compiled.values[i] !== value || second.values[i] !== otherValue) return eachTime;
    slots.push(i);
  }
  return slots.length === 0 ? eachTime : { compiled, keySlots: slots };
}
