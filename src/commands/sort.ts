import type { Knex } from 'knex';
import type { CollectionOverview } from '../../catalog/overview/types.js';
import { ForbiddenError, InvalidPayloadError } from '../errors.js';
import { requirePrimaryKey } from './primary-key.js';
import { noteChange } from './change-set.js';
import { runWrite } from './run-write.js';
import type { CommandContext, PrimaryKey, SortCommand } from './types.js';

/**
 * POST /utils/sort/:collection: `item` takes
 * the sort value of `to`, the rows in between shift one slot towards where `item` was. Rows
 * without a sort value are numbered after the others first (in key order), and duplicate
 * values renumbered 1..n. No activity or revision rows.
 */
export function handleSort(cmd: SortCommand, ctx: CommandContext): Promise<void> {
  return runWrite(ctx, async (writer, trx) => {
    const collection = writer.collection(cmd.collection);
    // Before anything about the collection shows: forbidden reads like missing (spec, Errors, rule 1).
    if (!ctx.permissions.allows(collection.collection, 'update')) throw new ForbiddenError();
    const sortField = collection.sortField;
    if (sortField === null)
      throw new InvalidPayloadError(`Collection "${collection.collection}" doesn't have a sort field`);
    const item = requirePrimaryKey(collection, cmd.item);
    const to = requirePrimaryKey(collection, cmd.to);
    // Update permission on the item, the sort field among its fields.
    await ctx.permissions.checkItems(trx, 'update', collection.collection, [item]);
    await normalizeSortValues(trx, collection, sortField);

    const from = await sortValueOf(trx, collection, sortField, item);
    const target = await sortValueOf(trx, collection, sortField, to);
    ctx.permissions.checkPayload('update', collection.collection, { [sortField]: target });
    const others = trx(collection.collection).whereNot(collection.primary, item);
    if (from < target) await others.where(sortField, '>', from).where(sortField, '<=', target).decrement(sortField, 1);
    else if (from > target)
      await others.where(sortField, '>=', target).where(sortField, '<', from).increment(sortField, 1);
    await trx(collection.collection)
      .where(collection.primary, item)
      .update({ [sortField]: target });
    writer.touched.add(collection.collection);
    // Not journaled, but live data shows the moved item (the shifted rows are not named).
    noteChange(trx, 'update', collection.collection, item);
  });
}

/** Steps 1 and 2 of the algorithm: no nulls, no duplicates. */
async function normalizeSortValues(
  trx: Knex.Transaction,
  collection: CollectionOverview,
  sortField: string,
): Promise<void> {
  const { collection: table, primary } = collection;
  const unsorted = await trx(table).whereNull(sortField).orderBy(primary).select<Record<string, PrimaryKey>[]>(primary);
  if (unsorted.length > 0) {
    const max = await trx(table).max({ max: sortField }).first<{ max: number | string | null } | undefined>();
    let next = Number(max?.max ?? 0);
    for (const row of unsorted)
      await trx(table)
        .where(primary, row[primary] as PrimaryKey)
        .update({ [sortField]: ++next });
  }
  const duplicated = await trx(table)
    .select(sortField)
    .groupBy(sortField)
    .havingRaw('count(*) > 1')
    .first<Record<string, unknown> | undefined>();
  if (duplicated === undefined) return;
  const rows = await trx(table).orderBy([sortField, primary]).select<Record<string, PrimaryKey>[]>(primary);
  let position = 0;
  for (const row of rows)
    await trx(table)
      .where(primary, row[primary] as PrimaryKey)
      .update({ [sortField]: ++position });
}

async function sortValueOf(
  trx: Knex.Transaction,
  collection: CollectionOverview,
  sortField: string,
  key: PrimaryKey,
): Promise<number> {
  const row = await trx(collection.collection)
    .where(collection.primary, key)
    .first<Record<string, unknown> | undefined>(sortField);
  // Spec, Errors, rule 1: a missing item is FORBIDDEN.
  if (row === undefined) throw new ForbiddenError();
  return Number(row[sortField]);
}
