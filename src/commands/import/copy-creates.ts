import type { Knex } from 'knex';
import { getFieldRelation } from '../../../catalog/overview/lookup.js';
import type { CollectionOverview } from '../../../catalog/overview/types.js';
import type { DbClient } from '../../db-client.js';
import { databaseDialectOf } from '../../db/dialects/index.js';
import { copyRows, copyText, nextValues, serialSequence } from '../../db/copy-rows.js';
import { noteCreated } from '../change-set.js';
import { checkedPayload } from '../check-payload.js';
import { rulesOf } from '../collection-rules.js';
import { activityRow } from '../journal/journal.js';
import { isMaskedField, maskItem } from '../journal/mask.js';
import { hasNestedWrites } from '../nested/nested-writes.js';
import { requireObject } from '../nested/types.js';
import { isHashField } from '../special-fields.js';
import { columnsOf, toDatabaseRow } from '../to-database-value.js';
import { ROWS_PER_STEP, giveWay, giveWayIfBusy } from '../give-way.js';
import type { CommandContext, Item, PrimaryKey } from '../types.js';
import { columnRuns } from './column-runs.js';
import { atRow } from './row-error.js';

const ACTIVITY_COLUMNS = ['id', 'action', 'user', 'timestamp', 'ip', 'user_agent', 'origin', 'collection', 'item'];
const REVISION_COLUMNS = ['activity', 'collection', 'item', 'data', 'delta', 'parent'];

/**
 * PostgreSQL imports (issue 13): the creates of a batch checked row by row exactly as the
 * item writer checks them (check-payload.ts), then written set-based: keys taken from the
 * table's sequence in one statement, the rows by COPY, the permission check of the created
 * items, then their svc_activity rows (ids from their sequence) and svc_revisions rows by
 * COPY. Decided once per import ({@link planCopy}); a batch it cannot carry (nested writes,
 * keys given to an auto-increment table, values COPY text cannot hold) goes the writer's way.
 */
export interface CopyPlan {
  readonly collection: CollectionOverview;
  /** Rows by COPY (PostgreSQL); else by multi-row INSERTs (insert-creates.ts). */
  readonly copies: boolean;
  /** The client the rows' values are encoded for (to-database-value.ts). */
  readonly dialect: DbClient;
  /** The database generates the keys (auto-increment): no row may give one, else every row must. */
  readonly generatesKeys: boolean;
  /** PostgreSQL: the table's key sequence when it generates them. */
  readonly sequence: string | undefined;
  /** PostgreSQL: svc_activity's id sequence ('' elsewhere: ids come back by RETURNING). */
  readonly activitySequence: string;
  /** Some field is masked in revisions (mask.ts); without one the item is recorded as it is. */
  readonly hasMasked: boolean;
  /** A sequence value as the key PostgreSQL returns for the column (bigint: text). */
  readonly toKey: (value: number) => PrimaryKey;
}

/** The rows of a batch, checked and encoded, ready for {@link writeCopy}. */
export interface PreparedCopy {
  readonly rows: readonly Record<string, unknown>[];
  /** Per row, the columns the revision records (the key added once known). */
  readonly written: readonly Record<string, unknown>[];
}

/** The plan of an import into `collection`, or undefined where no batch path applies. */
export async function planCopy(
  trx: Knex.Transaction,
  ctx: CommandContext,
  collection: CollectionOverview,
): Promise<CopyPlan | undefined> {
  const { client: dialect, copiesRows: copies } = databaseDialectOf(trx);
  if (Number.isFinite(ctx.maxBatchMutation)) return undefined;
  if (Object.keys(rulesOf(collection.collection)).length > 0) return undefined;
  for (const name of Object.keys(collection.fields)) {
    // Hashes are salted per item; a many-to-any value names its collection beside its key.
    if (isHashField(collection, name)) return undefined;
    if (getFieldRelation(ctx.overview, collection.collection, name)?.kind === 'a2o') return undefined;
  }
  const primary = collection.fields[collection.primary];
  const generatesKeys = primary?.hasAutoIncrement === true;
  const hasMasked = Object.values(collection.fields).some(isMaskedField);
  const toKey = primary?.type === 'bigInteger' ? (value: number) => String(value) : (value: number) => value;
  if (!copies) {
    return { collection, copies, dialect, generatesKeys, sequence: undefined, activitySequence: '', hasMasked, toKey };
  }
  const activitySequence = await serialSequence(trx, 'svc_activity', 'id');
  if (activitySequence === undefined) return undefined;
  const sequence = generatesKeys ? await serialSequence(trx, collection.collection, collection.primary) : undefined;
  if (generatesKeys && sequence === undefined) return undefined;
  return { collection, copies, dialect, generatesKeys, sequence, activitySequence, hasMasked, toKey };
}

/**
 * Steps 1–2 for each create of the batch (a refusal names its row), then whether COPY can
 * write them all: undefined when it cannot (the writer then writes the batch).
 */
export async function prepareCopy(
  ctx: CommandContext,
  plan: CopyPlan,
  creates: readonly { readonly item: Item; readonly row: number }[],
  now: Date,
): Promise<PreparedCopy | undefined> {
  const { collection } = plan;
  const rows: Record<string, unknown>[] = [];
  const written: Record<string, unknown>[] = [];
  let index = 0;
  for (const { item, row } of creates) {
    if (index++ % ROWS_PER_STEP === ROWS_PER_STEP - 1) await giveWay(ctx);
    let data: Item;
    try {
      const toCheck = { action: 'create', payload: requireObject(item) } as const;
      // planCopy took a collection without rules: no check reads the database.
      data = checkedPayload(ctx, collection, toCheck, now);
    } catch (error) {
      throw atRow(error, row);
    }
    const key = data[collection.primary];
    const hasKey = key !== undefined && key !== null;
    if (hasKey === plan.generatesKeys || hasNestedWrites(ctx, collection, data)) return undefined;
    rows.push(toDatabaseRow(collection, data, plan.dialect));
    written.push(columnsOf(collection, data));
  }
  return { rows, written };
}

/** Writes the prepared rows and their journal; any failure leaves the caller to roll back. */
export async function writeCopy(
  trx: Knex.Transaction,
  ctx: CommandContext,
  plan: CopyPlan,
  prepared: PreparedCopy,
  now: Date,
): Promise<PrimaryKey[] | undefined> {
  const { collection } = plan;
  const { rows } = prepared;
  const primary = collection.primary;
  const keys: PrimaryKey[] =
    plan.sequence === undefined
      ? rows.map((row) => row[primary] as PrimaryKey)
      : (await nextValues(trx, plan.sequence, rows.length)).map(plan.toKey);
  // Consecutive rows of the same columns share a COPY (a column left out takes its default).
  for (const { start, end, columns } of columnRuns(rows, primary)) {
    // The lines are made as COPY takes them: the event loop is never held for a whole batch.
    const lines = function* (first: number, last: number): Generator<string> {
      for (let index = first; index < last; index += 1) {
        const row = rows[index] ?? {};
        const cells = [copyText(keys[index])];
        for (const column of columns) cells.push(copyText(row[column]));
        if (cells.includes(undefined)) throw new Error('a value COPY text cannot carry');
        yield cells.join('\t');
      }
    };
    try {
      await copyRows(trx, collection.collection, [primary, ...columns], lines(start, end), () => giveWayIfBusy(ctx));
    } catch {
      // The caller rolls back to its savepoint and writes the batch the writer's way.
      return undefined;
    }
  }
  return afterCreates(trx, ctx, plan, keys, () => journalCopy(trx, ctx, plan, prepared, keys, now));
}

/**
 * The rows of a batch written (by COPY, or insert-creates.ts): the permission check of the
 * created items, then their journal, and the keys noted for the live-data event.
 */
export async function afterCreates(
  trx: Knex.Transaction,
  ctx: CommandContext,
  plan: CopyPlan,
  keys: PrimaryKey[],
  writeJournal: () => Promise<void>,
): Promise<PrimaryKey[]> {
  const { collection } = plan;
  // An item created outside what the caller may create is refused.
  await ctx.permissions.checkItems(trx, 'create', collection.collection, keys);
  if (collection.accountability !== null) await writeJournal();
  noteCreated(trx, collection.collection, keys);
  return keys;
}

/** The revision of the batch's row `index` as JSON (snapshot = delta), its key added. */
export function revisionJson(plan: CopyPlan, prepared: PreparedCopy, index: number, key: PrimaryKey): string {
  const { collection } = plan;
  const written = prepared.written[index] ?? {};
  written[collection.primary] = key;
  return JSON.stringify(plan.hasMasked ? maskItem(collection, written) : written);
}

/** One svc_activity row per item, and for accountability `all` its revision (snapshot = delta). */
async function journalCopy(
  trx: Knex.Transaction,
  ctx: CommandContext,
  plan: CopyPlan,
  prepared: PreparedCopy,
  keys: readonly PrimaryKey[],
  now: Date,
): Promise<void> {
  const { collection } = plan;
  const ids = await nextValues(trx, plan.activitySequence, keys.length);
  const activity = activityRow('create', collection.collection, 0, ctx.accountability, now, 'pg');
  const fixed = ACTIVITY_COLUMNS.slice(1, -1).map((column) => copyText(activity[column]) ?? '\\N');
  const prefix = `\t${fixed.join('\t')}\t`;
  const activityLines = function* (): Generator<string> {
    for (const [i, key] of keys.entries()) yield `${ids[i]}${prefix}${copyText(String(key))}`;
  };
  await copyRows(trx, 'svc_activity', ACTIVITY_COLUMNS, activityLines(), () => giveWayIfBusy(ctx));
  if (collection.accountability !== 'all') return;
  const name = copyText(collection.collection);
  const revisionLines = function* (): Generator<string> {
    for (const [i, key] of keys.entries()) {
      const json = copyText(revisionJson(plan, prepared, i, key));
      yield `${ids[i]}\t${name}\t${copyText(String(key))}\t${json}\t${json}\t\\N`;
    }
  };
  await copyRows(trx, 'svc_revisions', REVISION_COLUMNS, revisionLines(), () => giveWayIfBusy(ctx));
}
