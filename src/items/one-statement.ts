import { getFieldRelation, oncePerCollection, requireCollection } from '../../catalog/overview/lookup.js';
import type { CollectionOverview, SchemaOverview } from '../../catalog/overview/types.js';
import type { WriteAction } from '../access/write-permissions.js';
import { checkedPayload, type PayloadToCheck } from '../commands/check-payload.js';
import { rulesOf } from '../commands/collection-rules.js';
import { currentIdempotencyKey } from '../commands/idempotency.js';
import { activityRow } from '../commands/journal/journal.js';
import { isMaskedField, maskItem } from '../commands/journal/mask.js';
import { hasNestedWrites } from '../commands/nested/nested-writes.js';
import { toPrimaryKey } from '../commands/primary-key.js';
import { snapshotRead } from '../commands/read-snapshot.js';
import { afterWriteCommitted } from '../commands/run-write.js';
import { isHashField } from '../commands/special-fields.js';
import { columnsOf, toDatabaseRow } from '../commands/to-database-value.js';
import type { CommandContext, Item, PrimaryKey, WrittenItems } from '../commands/types.js';
import { databaseDialect, databaseDialectOf } from '../db/dialects/index.js';
import { SqlWriter, type CompiledSql } from '../db/dialects/read.js';
import { queryPrepared } from '../db/index.js';
import { ForbiddenError } from '../errors.js';
import { isPlainObject } from '../is-plain-object.js';
import { itemJsonStatement, type Query } from '../query/index.js';

/**
 * PostgreSQL: how the items service runs a single create or update of one plain item, the
 * commonest write: as ONE statement, without BEGIN and COMMIT. The row, its svc_activity row
 * and its svc_revisions row are data-modifying CTEs (a statement is atomic on its own), written
 * with the query compiler's SqlWriter; the revision is the same as the general path's
 * (commands/run-write.ts): a create's data and delta are the values written plus the generated
 * key; an update's data is the item's snapshot read (commands/read-snapshot.ts) compiled to
 * read the updated row from the statement's own CTE, its delta the values written. After it,
 * the same post-commit routine as every write (afterWriteCommitted).
 *
 * Only where nothing else would run inside a transaction: no nested writes, hashes, collection
 * rules (commands/collection-rules.ts), item filter of the caller's permission, given key on a
 * create (sequences), masked field in an update's snapshot, or o2m alias read back from the
 * collection's own table (which the statement would see as it was before the update). Nested
 * writes and hashes are seen in the payload as sent, before it is checked; the payload is then
 * checked exactly as the ItemWriter checks it (commands/check-payload.ts). Undefined when the
 * write is not such a write, or when the database refused it in any way (nothing was written):
 * the service then runs the general path, which answers the same error as ever.
 */
export async function createOne(
  ctx: CommandContext,
  collectionName: string,
  payload: unknown,
  answer?: readonly string[],
): Promise<WrittenItems | undefined> {
  const collection = requireCollection(ctx.overview, collectionName);
  if (!isPlainObject(payload) || !isEligible(ctx, collection, 'create', payload)) return undefined;
  const now = ctx.now?.() ?? new Date();
  const data = checked(ctx, collection, { action: 'create', payload }, now);
  if (data === undefined || data[collection.primary] !== undefined) return undefined;
  const { primary, accountability } = collection;
  const row = toDatabaseRow(collection, data, 'pg');
  // `insert into ... (<columns by name>) values (...) returning ...`, as knex's builder writes
  // it (its columns sorted, so a payload's key order makes no second statement), without it.
  const inserted = Object.keys(row).sort();
  const text = shapedText(ctx.overview, '', ['create', collection.collection, ...inserted], answer);
  const w = new SqlWriter(databaseDialect('pg'), text.known);
  w.raw('with ').id('i').raw(' as (insert into ').id(collection.collection);
  if (inserted.length === 0) w.raw(' default values');
  else {
    w.raw(' (').join(inserted, ', ', (column) => w.id(column));
    w.raw(') values (').join(inserted, ', ', (column) => w.value(row[column]));
    w.raw(')');
  }
  w.raw(' returning ');
  if (answer === undefined) w.id(primary);
  else w.raw('*');
  w.raw(')');
  if (accountability !== null) {
    w.raw(', ').id('a').raw(' as (');
    journalActivity(w, ctx, collection, 'create', now, () => w.raw('cast(').column('i', primary).raw(' as text)'));
    w.raw(' from ').id('i').raw(' returning ').id('id').raw(')');
  }
  if (accountability === 'all') {
    // data = delta = the values written and the key: `{...columns,"key":` + the key's JSON + `}`.
    const columns = JSON.stringify(maskItem(collection, columnsOf(collection, data)));
    const head = `${columns.slice(0, -1)}${columns === '{}' ? '' : ','}${JSON.stringify(primary)}:`;
    const written = (): void => {
      w.raw('cast(').value(head).raw(' || cast(to_json(').column('i', primary).raw(") as text) || '}' as json)");
    };
    w.raw(', ').id('r').raw(' as (');
    revisionInsert(w);
    w.raw(' select ').column('a', 'id').raw(', ').value(collection.collection).raw(', cast(');
    w.column('i', primary).raw(' as text), ');
    written();
    w.raw(', ');
    written();
    w.raw(', null from ').id('a').raw(', ').id('i').raw(')');
  }
  w.raw(' select ').column('i', primary).raw(' as ').id('key');
  answerColumn(w, 'i', answer);
  w.raw(' from ').id('i');
  const rows = await run(ctx, text.remember(w.finish()));
  const created = rows?.[0]?.['key'] as PrimaryKey | undefined;
  if (created === undefined) return undefined;
  await committed(ctx, collection, 'create', created);
  return writtenItem(created, rows?.[0]);
}

/** {@link createOne} for an update of the item `rawKey`. */
export async function updateOne(
  ctx: CommandContext,
  collectionName: string,
  rawKey: unknown,
  payload: unknown,
  answer?: readonly string[],
): Promise<WrittenItems | undefined> {
  const collection = requireCollection(ctx.overview, collectionName);
  const key = toPrimaryKey(collection, rawKey);
  if (key === undefined || !isPlainObject(payload) || !isEligible(ctx, collection, 'update', payload)) return undefined;
  const { accountability, primary } = collection;
  const snapshot = accountability === 'all' ? snapshotOfUpdated(ctx, collection, key) : null;
  if (snapshot === undefined) return undefined;
  const { [primary]: _key, ...withoutKey } = payload;
  const now = ctx.now?.() ?? new Date();
  const data = checked(ctx, collection, { action: 'update', payload: withoutKey, key }, now);
  const row = data === undefined ? [] : setValues(toDatabaseRow(collection, data, 'pg'));
  if (data === undefined || row.length === 0) return undefined;
  const columns = row.map(([column]) => column);
  const text = shapedText(ctx.overview, snapshot?.sql ?? '', ['update', collection.collection, ...columns], answer);
  const w = new SqlWriter(databaseDialect('pg'), text.known);
  // `update ... set ... where <key> returning *`, as knex's builder writes it, without the builder.
  w.raw('with ').id('u').raw(' as (update ').id(collection.collection).raw(' set ');
  w.join(row, ', ', ([column, value]) => w.id(column).raw(' = ').value(value));
  w.raw(' where ').id(primary).raw(' = ').value(key).raw(' returning *)');
  if (accountability !== null) {
    w.raw(', ').id('a').raw(' as (');
    journalActivity(w, ctx, collection, 'update', now, () => w.value(String(key)));
    w.raw(' from ').id('u').raw(' returning ').id('id').raw(')');
  }
  if (snapshot !== null) {
    w.raw(', ').id('s').raw(' as (').append(snapshot).raw('), ').id('r').raw(' as (');
    revisionInsert(w);
    w.raw(' select ').column('a', 'id').raw(', ').value(collection.collection).raw(', ').value(String(key));
    w.raw(', cast(').column('s', 'json').raw(' as json) -> 0, cast(');
    w.value(JSON.stringify(maskItem(collection, columnsOf(collection, data))));
    w.raw(' as json), null from ').id('a').raw(', ').id('s').raw(')');
  }
  // `u` has one row or none: the answer's columns of the row, if any.
  w.raw(' select count(*) as ').id('matched');
  answerColumn(w, 'u', answer, 'max');
  w.raw(' from ').id('u');
  const rows = await run(ctx, text.remember(w.finish()));
  if (rows === undefined) return undefined;
  // reference: an update matching no row is FORBIDDEN (item-writer.ts); nothing was written.
  if (Number(rows[0]?.['matched']) === 0) throw new ForbiddenError();
  await committed(ctx, collection, 'update', key);
  return writtenItem(key, rows[0]);
}

/** Shapes of single writes remembered per overview and snapshot text, at most. */
const MAX_SHAPES = 500;
const shapeTexts = new WeakMap<SchemaOverview, Map<string, Map<string, string>>>();

/**
 * A single write's statement text by its shape (issue 43): what the statement is, of which
 * collection, which columns, in the order written, and the answer's columns, with the snapshot
 * read's text (the same string for every key of a remembered read). The rest of the text is
 * the same for every write of an overview. `known`: the text, written by the first write of the
 * shape, for SqlWriter to collect only the values into; `remember` keeps a text first written.
 * The same string each time, the statement's prepared name is found at once (db/index.ts).
 */
function shapedText(
  overview: SchemaOverview,
  snapshot: string,
  shape: readonly string[],
  answer: readonly string[] | undefined,
): { readonly known: string | undefined; remember(statement: CompiledSql): CompiledSql } {
  const key = `${shape.join('\u0000')}\u0001${answer?.join('\u0000') ?? '\u0002'}`;
  let bySnapshot = shapeTexts.get(overview);
  if (bySnapshot === undefined) shapeTexts.set(overview, (bySnapshot = new Map<string, Map<string, string>>()));
  let texts = bySnapshot.get(snapshot);
  if (texts === undefined && bySnapshot.size < MAX_SHAPES)
    bySnapshot.set(snapshot, (texts = new Map<string, string>()));
  const known = texts?.get(key);
  return {
    known,
    remember(statement) {
      if (known === undefined && texts !== undefined && texts.size < MAX_SHAPES) texts.set(key, statement.sql);
      return statement;
    },
  };
}

/** The columns an update sets: those with a value (knex's builder leaves undefined ones out too). */
function setValues(row: Readonly<Record<string, unknown>>): [string, unknown][] {
  return Object.entries(row).filter(([, value]) => value !== undefined);
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

/**
 * `, <the answer as JSON text> as "answer"` of the CTE's row (through `aggregate` when
 * grouped), or nothing. The keys are bound values, the columns quoted names.
 */
function answerColumn(w: SqlWriter, cte: string, answer: readonly string[] | undefined, aggregate?: string): void {
  if (answer === undefined) return;
  w.raw(aggregate === undefined ? ', ' : `, ${aggregate}(`).raw('cast(json_build_object(');
  w.join(answer, ', ', (name) => w.raw('cast(').value(name).raw(' as text), ').column(cte, name));
  w.raw(') as text)')
    .raw(aggregate === undefined ? '' : ')')
    .raw(' as ')
    .id('answer');
}

function writtenItem(key: PrimaryKey, row: Record<string, unknown> | undefined): WrittenItems {
  const answer = row?.['answer'];
  return typeof answer === 'string' ? { keys: [key], answer: JSON.parse(answer) as Item } : { keys: [key] };
}

/** Whether the write can be one statement, from its context, collection and payload as sent. */
function isEligible(ctx: CommandContext, collection: CollectionOverview, action: WriteAction, payload: Item): boolean {
  return (
    databaseDialectOf(ctx.db).insertsThroughWith &&
    !ctx.db.isTransaction &&
    // A keyed write records its key in its transaction (runWrite, idempotency.ts).
    currentIdempotencyKey()?.state !== 'open' &&
    ctx.maxBatchMutation >= 1 &&
    Object.keys(rulesOf(collection.collection)).length === 0 &&
    !ctx.permissions.checksItems(action, collection.collection) &&
    !needsTransaction(ctx, collection, payload)
  );
}

/** Nested writes (related items written in the transaction) or hashed fields (hashed before it). */
function needsTransaction(ctx: CommandContext, collection: CollectionOverview, data: Item): boolean {
  return Object.keys(data).some((name) => isHashField(collection, name)) || hasNestedWrites(ctx, collection, data);
}

/** The checked data (check-payload.ts), or undefined when it needs the general path. */
function checked(
  ctx: CommandContext,
  collection: CollectionOverview,
  toCheck: PayloadToCheck,
  now: Date,
): Item | undefined {
  let data: Item;
  try {
    // Without collection rules (isEligible) the check reads nothing: no transaction is needed.
    data = checkedPayload(ctx, collection, toCheck, now);
  } catch {
    // A refused payload: the general path refuses it too, with the errors in the spec's order
    // (an update of a missing item is FORBIDDEN first).
    return undefined;
  }
  // Presets are part of the checked data: they may name a relation or a hashed field too.
  return needsTransaction(ctx, collection, data) ? undefined : data;
}

/** `insert into svc_activity (...) select <the journal's activity row>, <item>`. */
function journalActivity(
  w: SqlWriter,
  ctx: CommandContext,
  collection: CollectionOverview,
  action: 'create' | 'update',
  now: Date,
  item: () => void,
): void {
  const { item: _item, ...row } = activityRow(action, collection.collection, '', ctx.accountability, now, 'pg');
  w.raw('insert into ').id('svc_activity').raw(' (');
  w.join([...Object.keys(row), 'item'], ', ', (name) => w.id(name));
  w.raw(') select ');
  w.join(Object.values(row), ', ', (value) => w.value(value));
  w.raw(', ');
  item();
}

/** `insert into svc_revisions (activity, collection, item, data, delta, parent)`. */
function revisionInsert(w: SqlWriter): void {
  w.raw('insert into ').id('svc_revisions').raw(' (');
  w.join(['activity', 'collection', 'item', 'data', 'delta', 'parent'], ', ', (name) => w.id(name));
  w.raw(')');
}

/**
 * The snapshot read (read-snapshot.ts) of the updated row, from the statement's CTE `u`;
 * undefined where it has no such form: a masked field, no JSON form, or an o2m alias whose
 * rows are in the collection's own table (read there, they would be as before the update).
 */
function snapshotOfUpdated(
  ctx: CommandContext,
  collection: CollectionOverview,
  key: PrimaryKey,
): CompiledSql | undefined {
  if (!snapshotReadsCte(ctx.overview, collection)) return undefined;
  const { context, query, reader } = snapshotRead(ctx.db, ctx, collection, '*');
  return itemJsonStatement(context, collection.collection, key, query, reader, 'u') ?? undefined;
}

/** Per overview, whether each collection's snapshot can be read from the update's CTE. */
const snapshotsFromCte = new WeakMap<SchemaOverview, Map<string, boolean>>();

/** No masked field, and no o2m alias whose rows are in the collection's own table. */
function snapshotReadsCte(overview: SchemaOverview, collection: CollectionOverview): boolean {
  const name = collection.collection;
  return oncePerCollection(
    snapshotsFromCte,
    overview,
    name,
    () =>
      !Object.values(collection.fields).some(isMaskedField) &&
      !Object.keys(collection.fields).some((field) => {
        const relation = getFieldRelation(overview, name, field);
        return relation?.kind === 'o2m' && relation.relation.collection === name;
      }),
  );
}

/**
 * Runs the statement, prepared by name (db/index.ts); undefined when PostgreSQL refused a
 * value (SQLSTATE classes 22 and 23: the statement, and with it the write, rolled back), for
 * the general path to answer with its error.
 */
async function run(ctx: CommandContext, statement: CompiledSql): Promise<Record<string, unknown>[] | undefined> {
  try {
    return (await queryPrepared(ctx.db, statement.sql, statement.values)).rows;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code)) return undefined;
    throw error;
  }
}

/** The post-commit routine every write runs (commands/run-write.ts), for the one item written. */
function committed(
  ctx: CommandContext,
  collection: CollectionOverview,
  action: 'create' | 'update',
  key: PrimaryKey,
): Promise<void> {
  return afterWriteCommitted(
    ctx,
    [collection.collection],
    [{ collection: collection.collection, action, keys: [key] }],
  );
}
