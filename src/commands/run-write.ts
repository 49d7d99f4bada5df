import type { Knex } from 'knex';
import { noteJournalRows } from '../db/journal-statistics.js';
import { noteWrite, replicaCaller } from '../db/replicas.js';
import { openChangeSet, takeChanges, type Change } from './change-set.js';
import { ItemWriter } from './item-writer.js';
import type { CommandContext } from './types.js';

/**
 * Runs `work` in one transaction with a fresh {@link ItemWriter} and the command's time (the
 * writer's and the journal's `now`); after the commit (never before: uncommitted state must
 * not be published) purges the data cache of every collection written to, keeps the caller's
 * reads on the primary for the read-your-writes window (db/replicas.ts), then hands the items
 * changed (change-set.ts) to the context's `afterCommit` (the live-data feed).
 */
export async function runWrite<T>(
  ctx: CommandContext,
  work: (writer: ItemWriter, trx: Knex.Transaction, now: Date) => Promise<T>,
): Promise<T> {
  const now = ctx.now?.() ?? new Date();
  let touched: readonly string[] = [];
  let changes: readonly Change[] = [];
  const result = await ctx.db.transaction(async (trx) => {
    openChangeSet(trx);
    const writer = new ItemWriter(trx, ctx, now);
    const value = await work(writer, trx, now);
    await writer.finish();
    touched = [...writer.touched];
    changes = takeChanges(trx);
    return value;
  });
  noteWrite(ctx.db, replicaCaller(ctx.accountability));
  noteJournalRows(
    ctx.db,
    changes.reduce((n, c) => n + c.keys.length, 0),
  );
  if (touched.length > 0) await ctx.purgeCache?.(touched);
  if (changes.length > 0) ctx.afterCommit?.(changes);
  return result;
}
