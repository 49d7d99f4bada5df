import type { Knex } from 'knex';
import { noteJournalRows } from '../db/journal-statistics.js';
import { noteWrite, replicaCaller } from '../db/replicas.js';
import { openChangeSet, takeChanges, type Change } from './change-set.js';
import { currentIdempotencyKey, idempotencyCaller, recordIdempotencyKey } from './idempotency.js';
import { ItemWriter } from './item-writer.js';
import type { CommandContext } from './types.js';

/**
 * Runs `work` in one transaction with a fresh {@link ItemWriter} and the command's time (the
 * writer's and the journal's `now`); after the commit (never before: uncommitted state must
 * not be published) runs {@link afterWriteCommitted} with the collections written to and the
 * items changed (change-set.ts). The request's `Idempotency-Key`, if it sent one, is recorded
 * in the transaction of its first write (idempotency.ts): committed with the write or not at
 * all.
 */
export async function runWrite<T>(
  ctx: CommandContext,
  work: (writer: ItemWriter, trx: Knex.Transaction, now: Date) => Promise<T>,
): Promise<T> {
  const now = ctx.now?.() ?? new Date();
  const claim = currentIdempotencyKey();
  // The request's first write only (its later ones, and a job of another caller's, are not keyed).
  const isKeyed = claim?.state === 'open' && claim.checked?.caller === idempotencyCaller(ctx.accountability);
  if (isKeyed) claim.state = 'recording';
  let touched: readonly string[] = [];
  let changes: readonly Change[] = [];
  const result = await ctx.db
    .transaction(async (trx) => {
      openChangeSet(trx);
      if (isKeyed) await recordIdempotencyKey(trx, claim, now);
      const writer = new ItemWriter(trx, ctx, now);
      const value = await work(writer, trx, now);
      await writer.finish();
      touched = [...writer.touched];
      changes = takeChanges(trx);
      return value;
    })
    .catch((error: unknown) => {
      // Rolled back: the key is not recorded, and a retry runs the write.
      if (isKeyed) claim.state = 'open';
      throw error;
    });
  if (isKeyed) claim.state = 'recorded';
  await afterWriteCommitted(ctx, touched, changes);
  return result;
}

/**
 * What follows every committed write, however it ran (a transaction here, or PostgreSQL's one
 * statement, items/one-statement.ts): the caller's reads stay on the primary for the
 * read-your-writes window, the journal's row count is noted, the data cache of the collections
 * written to is purged and the changed items go to the context's `afterCommit` (the live-data
 * feed).
 */
export async function afterWriteCommitted(
  ctx: CommandContext,
  touched: readonly string[],
  changes: readonly Change[],
): Promise<void> {
  noteWrite(ctx.db, replicaCaller(ctx.accountability));
  noteJournalRows(
    ctx.db,
    changes.reduce((n, c) => n + c.keys.length, 0),
  );
  if (touched.length > 0) await ctx.purgeCache?.(touched);
  if (changes.length > 0) await ctx.afterCommit?.(changes);
}
