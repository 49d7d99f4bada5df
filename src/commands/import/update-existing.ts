import type { Knex } from 'knex';
import { updateRows } from '../../db/update-rows.js';
import { ForbiddenError } from '../../errors.js';
import { checkWritePayload } from '../check-payload.js';
import { ROWS_PER_STEP, giveWay } from '../give-way.js';
import type { ItemWriter } from '../item-writer.js';
import { Journal } from '../journal/journal.js';
import { hasNestedWrites } from '../nested/nested-writes.js';
import { requireObject } from '../nested/types.js';
import { readSnapshots } from '../read-snapshot.js';
import { columnsOf, toDatabaseRow } from '../to-database-value.js';
import type { CommandContext, Item, PrimaryKey } from '../types.js';
import type { CopyPlan } from './copy-creates.js';
import { columnRuns } from './column-runs.js';
import { atRow } from './row-error.js';

const SAVEPOINT = 'svc_import_updates';

/** A row of the file whose key names an existing item. */
export interface FileUpdate {
  readonly key: PrimaryKey;
  readonly item: Item;
  readonly row: number;
}

/** The updates of a run of rows, checked and encoded. */
interface PreparedUpdates {
  /** Per update, the columns it sets as the database stores them. */
  readonly rows: readonly Record<string, unknown>[];
  /** Per update, the values its revision records as the delta (item-writer.ts, update). */
  readonly deltas: readonly Record<string, unknown>[];
}

/**
 * Issue 13: consecutive rows of an import whose keys exist, updated set-based. Checked as
 * ItemWriter.update checks one (the item-level permission of every key at once, then each
 * payload: permission hook, specials such as date_updated, validation; a refusal names its
 * row), then written under a savepoint: rows of the same columns in one statement
 * (db/update-rows.ts), one snapshot read of the items after, an activity row and a revision
 * (data = the item after, delta = the values set) per item, in the rows' order, through the
 * same Journal as the writer. What this path cannot carry (nested writes, a key outside the
 * caller's item rules, values COPY text cannot hold, a statement the database refuses) is
 * rolled back to the savepoint and written by ItemWriter.update row by row, which names the
 * failing row. Collections with hashes or rules of their own have no plan (copy-creates.ts).
 */
export async function updateExisting(
  writer: ItemWriter,
  trx: Knex.Transaction,
  ctx: CommandContext,
  collection: string,
  plan: CopyPlan | undefined,
  updates: readonly FileUpdate[],
  now: Date,
): Promise<void> {
  if (updates.length === 0) return;
  const prepared = plan === undefined || updates.length < 2 ? undefined : await prepare(trx, ctx, plan, updates, now);
  if (prepared !== undefined && plan !== undefined) {
    // The journal recorded before goes first: ids in the order of the rows.
    await writer.flush();
    await trx.raw(`SAVEPOINT ${SAVEPOINT}`);
    let written = false;
    try {
      written = await write(trx, ctx, plan, updates, prepared, now);
    } catch {
      written = false;
    }
    if (written) {
      await trx.raw(`RELEASE SAVEPOINT ${SAVEPOINT}`);
      writer.touched.add(plan.collection.collection);
      return;
    }
    await trx.raw(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
  }
  for (const { key, item, row } of updates) {
    try {
      await writer.update(collection, key, item);
    } catch (error) {
      throw atRow(error, row);
    }
  }
}

/** The checked updates, or undefined when a row has to go through the writer. */
async function prepare(
  trx: Knex.Transaction,
  ctx: CommandContext,
  plan: CopyPlan,
  updates: readonly FileUpdate[],
  now: Date,
): Promise<PreparedUpdates | undefined> {
  const { collection } = plan;
  try {
    await ctx.permissions.checkItems(
      trx,
      'update',
      collection.collection,
      updates.map((u) => u.key),
    );
  } catch (error) {
    // The writer finds the first row refused (or a payload refused before it).
    if (error instanceof ForbiddenError) return undefined;
    throw error;
  }
  const rows: Record<string, unknown>[] = [];
  const deltas: Record<string, unknown>[] = [];
  for (const [index, { key, item, row }] of updates.entries()) {
    if (index % ROWS_PER_STEP === ROWS_PER_STEP - 1) await giveWay(ctx);
    let data: Item;
    try {
      const { [collection.primary]: _key, ...payload } = requireObject(item);
      const toCheck = { action: 'update', payload, key } as const;
      data = await checkWritePayload(trx, ctx, collection, toCheck, now);
    } catch (error) {
      throw atRow(error, row);
    }
    if (hasNestedWrites(ctx, collection, data)) return undefined;
    rows.push(toDatabaseRow(collection, data, plan.dialect));
    deltas.push(columnsOf(collection, data));
  }
  return { rows, deltas };
}

/** The statements and the journal; false when a row has to go through the writer. */
async function write(
  trx: Knex.Transaction,
  ctx: CommandContext,
  plan: CopyPlan,
  updates: readonly FileUpdate[],
  prepared: PreparedUpdates,
  now: Date,
): Promise<boolean> {
  const { collection } = plan;
  const { rows } = prepared;
  // Consecutive rows that set the same columns share a statement.
  for (const { start, end, columns } of columnRuns(rows)) {
    if (columns.length > 0) {
      const values = rows
        .slice(start, end)
        .map((row, i) => [updates[start + i]?.key, ...columns.map((column) => row[column])]);
      const matched = await updateRows(trx, collection.collection, collection.primary, columns, values);
      if (matched !== end - start) return false;
    }
  }
  const keys = updates.map((u) => u.key);
  const snapshots =
    collection.accountability === 'all' ? await readSnapshots(trx, ctx, collection, keys, '*') : keys.map(() => ({}));
  const journal = new Journal(trx, plan.dialect, ctx.accountability, now);
  for (const [i, key] of keys.entries()) {
    const revision = { data: snapshots[i] ?? {}, delta: prepared.deltas[i] ?? {} };
    journal.record({ action: 'update', collection, key, revision });
  }
  await journal.flush();
  return true;
}
