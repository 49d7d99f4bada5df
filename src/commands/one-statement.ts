import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { requireCollection } from '../../catalog/overview/lookup.js';
import type { CollectionOverview } from '../../catalog/overview/types.js';
import type { WriteAction } from '../access/write-permissions.js';
import { dialectOf, namedStatementsAllowed } from '../db/index.js';
import { noteJournalRows } from '../db/journal-statistics.js';
import { noteWrite, replicaCaller } from '../db/replicas.js';
import { ForbiddenError } from '../errors.js';
import { dialectFor, itemJsonStatement, type Query } from '../query/index.js';
import { currentIdempotencyKey } from './idempotency.js';
import { checkWritePayload } from './check-payload.js';
import { rulesOf } from './collection-rules.js';
import { activityRow } from './journal/journal.js';
import { isMaskedField, maskItem } from './journal/mask.js';
import { hasNestedWrites } from './nested/nested-writes.js';
import { toPrimaryKey } from './primary-key.js';
import { snapshotRead } from './read-snapshot.js';
import { isHashField } from './special-fields.js';
import { columnsOf, toDatabaseRow } from './to-database-value.js';
import type { CommandContext, Item, PrimaryKey } from './types.js';
import { isPlainObject } from '../is-plain-object.js';
import { postgresDatabase } from '../db/dialects/postgres.js';

/** The one write this file builds is PostgreSQL's. */
const { quoteId } = postgresDatabase;

/**
 * PostgreSQL: a single create or update of one item written as ONE statement, without BEGIN
 * and COMMIT: the row, its svc_activity row and its svc_revisions row in data-modifying CTEs
 * (a statement is atomic on its own). The revision is the same as runWrite's: a create's data
 * and delta are the values written plus the generated key; an update's data is the item read
 * as a snapshot (read-snapshot.ts) in the same statement from the updated row, its delta the
 * values written.
 *
 * Only where nothing else would run inside the transaction: no nested writes, hashes,
 * collection rules (collection-rules.ts), item filter of the caller's permission, given key
 * on a create (sequences) or masked field in an update's snapshot. The payload is checked
 * exactly as the ItemWriter checks it (check-payload.ts). Undefined when the write is not
 * such a write, or when it failed in any way the database refused (nothing was written): the
 * caller then runs the general path, which answers the same error as ever.
 */
export async function createOne(
  ctx: CommandContext,
  collectionName: string,
  payload: unknown,
  serverValues: Item = {},
  answer?: readonly string[],
): Promise<OneWritten | undefined> {
  const collection = requireCollection(ctx.overview, collectionName);
  if (!isPlainObject(payload) || !isEligible(ctx, collection, 'create')) return undefined;
  const now = ctx.now?.() ?? new Date();
  const data = await checked(ctx, collection, { action: 'create', payload, serverValues }, now);
  if (data === undefined || data[collection.primary] !== undefined) return undefined;
  const { primary, accountability } = collection;
  const insert = ctx
    .db(collection.collection)
    .insert(toDatabaseRow(collection, data, 'pg'))
    .returning(answer === undefined ? primary : '*')
    .toSQL();
  const parts = [`with "i" as (${insert.sql})`];
  const values: unknown[] = [...insert.bindings];
  const key = `"i".${quoteId(primary)}`;
  if (accountability !== null) {
    const activity = journalActivity(ctx, collection, 'create', '', now);
    parts.push(`, "a" as (${activity.sql} from "i" returning "id")`);
    values.push(...activity.values);
  }
  if (accountability === 'all') {
    // data = delta = the values written and the key: `{...columns,"key":` + the key's JSON + `}`.
    const columns = JSON.stringify(maskItem(collection, columnsOf(collection, data)));
    const head = `${columns.slice(0, -1)}${columns === '{}' ? '' : ','}${JSON.stringify(primary)}:`;
    const written = `cast(? || cast(to_json(${key}) as text) || '}' as json)`;
    parts.push(
      `, "r" as (insert into "svc_revisions" ("activity", "collection", "item", "data", "delta", "parent") ` +
        `select "a"."id", ?, cast(${key} as text), ${written}, ${written}, null from "a", "i")`,
    );
    values.push(collection.collection, head, head);
  }
  parts.push(` select ${key} as "key"${answerColumn('i', answer)} from "i"`);
  const rows = await run(ctx, parts.join(''), values);
  const created = rows?.[0]?.['key'] as PrimaryKey | undefined;
  if (created === undefined) return undefined;
  await afterCommit(ctx, collection, 'create', created);
  return written(created, rows?.[0]);
}

/** {@link createOne} for an update of the item `rawKey`. */
export async function updateOne(
  ctx: CommandContext,
  collectionName: string,
  rawKey: unknown,
  payload: unknown,
  serverValues: Item = {},
  answer?: readonly string[],
): Promise<OneWritten | undefined> {
  const collection = requireCollection(ctx.overview, collectionName);
  const key = toPrimaryKey(collection, rawKey);
  if (key === undefined || !isPlainObject(payload) || !isEligible(ctx, collection, 'update')) return undefined;
  const { accountability, primary } = collection;
  if (accountability === 'all' && Object.values(collection.fields).some(isMaskedField)) return undefined;
  const { [primary]: _key, ...withoutKey } = payload;
  const now = ctx.now?.() ?? new Date();
  const data = await checked(ctx, collection, { action: 'update', payload: withoutKey, serverValues, key }, now);
  const row = data === undefined ? {} : toDatabaseRow(collection, data, 'pg');
  if (data === undefined || Object.keys(row).length === 0) return undefined;
  const update = ctx.db(collection.collection).where(primary, key).update(row).returning('*').toSQL();
  const parts = [`with "u" as (${update.sql})`];
  const values: unknown[] = [...update.bindings];
  if (accountability !== null) {
    const activity = journalActivity(ctx, collection, 'update', String(key), now);
    parts.push(`, "a" as (${activity.sql} from "u" returning "id")`);
    values.push(...activity.values);
  }
  if (accountability === 'all') {
    const snapshot = snapshotOfUpdated(ctx, collection, key);
    if (snapshot === undefined) return undefined;
    parts.push(
      `, "s" as (${snapshot.sql}), "r" as (insert into "svc_revisions" ` +
        '("activity", "collection", "item", "data", "delta", "parent") ' +
        `select "a"."id", ?, ?, cast("s"."json" as json) -> 0, cast(? as json), null from "a", "s")`,
    );
    const delta = JSON.stringify(maskItem(collection, columnsOf(collection, data)));
    values.push(...snapshot.values, collection.collection, String(key), delta);
  }
  // `u` has one row or none: the answer's columns of the row, if any.
  parts.push(` select count(*) as "matched"${answerColumn('u', answer, 'max')} from "u"`);
  const rows = await run(ctx, parts.join(''), values);
  if (rows === undefined) return undefined;
  // reference: an update matching no row is FORBIDDEN (item-writer.ts); nothing was written.
  if (Number(rows[0]?.['matched']) === 0) throw new ForbiddenError();
  await afterCommit(ctx, collection, 'update', key);
  return written(key, rows[0]);
}

/** A write done in one statement: its key, and the answer when it was asked for. */
export interface OneWritten {
  readonly key: PrimaryKey;
  readonly answer?: Item;
}

/** Field types whose value in PostgreSQL's JSON is the read side's (integers, text, uuid, booleans). */
const ANSWER_TYPES: ReadonlySet<string> = new Set(['integer', 'string', 'text', 'uuid', 'boolean']);

/**
 * The columns of a write's answer when the write's own statement can return it: `fields`
 * alone, every one a plain column of a type in ANSWER_TYPES, not masked, readable by the
 * caller on every row (no read item filter). Undefined: the answer is re-read (read-written.ts).
 */
export function answerFields(ctx: CommandContext, collection: CollectionOverview, query: Query): string[] | undefined {
  const { fields } = query;
  if (fields === undefined || fields.length === 0) return undefined;
  if (Object.entries(query).some(([name, value]) => name !== 'fields' && value !== undefined)) return undefined;
  const readable = ctx.readAccess.readableFields(collection.collection);
  const filter = ctx.readAccess.rowFilter(collection.collection);
  if (filter !== null && Object.keys(filter).length > 0) return undefined;
  const names = [...new Set(fields)];
  const plain = names.every((name) => {
    const field = collection.fields[name];
    return (
      field !== undefined &&
      !field.isAlias &&
      ANSWER_TYPES.has(field.type) &&
      !isMaskedField(field) &&
      (readable === '*' || readable.has(name))
    );
  });
  return plain ? names : undefined;
}

/** `, <the answer as JSON text>` of the CTE's row (through `aggregate` when grouped), or nothing. */
function answerColumn(cte: string, answer: readonly string[] | undefined, aggregate?: string): string {
  if (answer === undefined) return '';
  const pairs = answer.map((name) => `'${name.replaceAll("'", "''")}', "${cte}".${quoteId(name)}`);
  const json = `cast(json_build_object(${pairs.join(', ')}) as text)`;
  return `, ${aggregate === undefined ? json : `${aggregate}(${json})`} as "answer"`;
}

function written(key: PrimaryKey, row: Record<string, unknown> | undefined): OneWritten {
  const answer = row?.['answer'];
  return typeof answer === 'string' ? { key, answer: JSON.parse(answer) as Item } : { key };
}

function isEligible(ctx: CommandContext, collection: CollectionOverview, action: WriteAction): boolean {
  return (
    dialectFor(dialectOf(ctx.db)).insertsThroughWith &&
    !ctx.db.isTransaction &&
    // A keyed write records its key in its transaction (runWrite, idempotency.ts).
    currentIdempotencyKey()?.state !== 'open' &&
    ctx.maxBatchMutation >= 1 &&
    Object.keys(rulesOf(collection.collection)).length === 0 &&
    !ctx.permissions.checksItems(action, collection.collection)
  );
}

/** The checked data (check-payload.ts), or undefined when it needs the general path. */
async function checked(
  ctx: CommandContext,
  collection: CollectionOverview,
  toCheck: Parameters<typeof checkWritePayload>[3],
  now: Date,
): Promise<Item | undefined> {
  let data: Item;
  try {
    // Without collection rules (isEligible) the check reads nothing: no transaction is needed.
    data = await checkWritePayload(ctx.db as Knex.Transaction, ctx, collection, toCheck, now);
  } catch {
    // A refused payload: the general path refuses it too, with the errors in the spec's order
    // (an update of a missing item is FORBIDDEN first).
    return undefined;
  }
  const hashes = Object.keys(data).some((name) => isHashField(collection, name));
  return hashes || hasNestedWrites(ctx, collection, data) ? undefined : data;
}

/** `insert into svc_activity (...) select ...` of the journal's activity row; `item` from the CTE when empty. */
function journalActivity(
  ctx: CommandContext,
  collection: CollectionOverview,
  action: 'create' | 'update',
  item: string,
  now: Date,
): { sql: string; values: unknown[] } {
  const { item: _item, ...row } = activityRow(action, collection.collection, item, ctx.accountability, now, 'pg');
  const names = Object.keys(row);
  const itemValue = item === '' ? `cast("i".${quoteId(collection.primary)} as text)` : '?';
  return {
    sql:
      `insert into "svc_activity" (${[...names, 'item'].map(quoteId).join(', ')}) ` +
      `select ${names.map(() => '?').join(', ')}, ${itemValue}`,
    values: item === '' ? Object.values(row) : [...Object.values(row), item],
  };
}

/** The snapshot read (read-snapshot.ts) of the updated row: the item's read from "u" instead of its table. */
function snapshotOfUpdated(
  ctx: CommandContext,
  collection: CollectionOverview,
  key: PrimaryKey,
): { sql: string; values: readonly unknown[] } | undefined {
  const { context, query, reader } = snapshotRead(ctx.db, ctx, collection, '*');
  const compiled = itemJsonStatement(context, collection.collection, key, query, reader);
  const from = `from ${quoteId(collection.collection)} as "t1" `;
  const at = compiled === null ? -1 : compiled.sql.indexOf(from);
  if (compiled === null || at === -1 || compiled.sql.includes(from, at + 1)) return undefined;
  return {
    sql: `${compiled.sql.slice(0, at)}from "u" as "t1" ${compiled.sql.slice(at + from.length)}`,
    values: compiled.values,
  };
}

/**
 * Runs the statement; undefined when PostgreSQL refused a value (SQLSTATE classes 22 and 23:
 * the statement, and with it the write, rolled back), for the general path to answer with
 * its error.
 */
async function run(
  ctx: CommandContext,
  sql: string,
  values: readonly unknown[],
): Promise<Record<string, unknown>[] | undefined> {
  try {
    const raw = ctx.db.raw(sql, values as Knex.RawBinding[]);
    const name = namedStatementsAllowed(ctx.db) ? statementName(sql) : undefined;
    const result = (await (name === undefined ? raw : raw.options({ name }))) as { rows: Record<string, unknown>[] };
    return result.rows;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code)) return undefined;
    throw error;
  }
}

/** Distinct statements prepared by name at most, per process (query/execute.ts does the same for reads). */
const MAX_PREPARED = 200;
const preparedNames = new Map<string, string>();

/**
 * A name for the statement, so that each connection parses and plans a write's shape once
 * (planning the snapshot's subqueries cost more than running them); undefined past
 * MAX_PREPARED shapes (and never with DB_PREPARED_STATEMENTS=false: run() asks). Its result (a
 * key, a count, JSON text) never changes with the schema.
 */
function statementName(sql: string): string | undefined {
  let name = preparedNames.get(sql);
  if (name === undefined && preparedNames.size < MAX_PREPARED) {
    name = `w${createHash('sha1').update(sql).digest('hex')}`;
    preparedNames.set(sql, name);
  }
  return name;
}

/** runWrite's steps after a commit: read-your-writes window, cache purge, live-data change. */
async function afterCommit(
  ctx: CommandContext,
  collection: CollectionOverview,
  action: 'create' | 'update',
  key: PrimaryKey,
): Promise<void> {
  noteWrite(ctx.db, replicaCaller(ctx.accountability));
  noteJournalRows(ctx.db, 1);
  await ctx.purgeCache?.([collection.collection]);
  await ctx.afterCommit?.([{ collection: collection.collection, action, keys: [key] }]);
}
