import type { Knex } from 'knex';
import { noteWrite, replicaCaller } from '../db/replicas.js';
import { ItemWriter } from './item-writer.js';
import type { CommandContext } from './types.js';

/**
 * Runs `work` in one transaction with a fresh {@link ItemWriter} and the command's time (the
 * writer's and the journal's `now`); after the commit (never before: uncommitted state must
 * not be published) purges the data cache of every collection written to, and keeps the
 * caller's reads on the primary for the read-your-writes window (db/replicas.ts).
 */
export async function runWrite<T>(
  ctx: CommandContext,
  work: (writer: ItemWriter, trx: Knex.Transaction, now: Date) => Promise<T>,
): Promise<T> {
  const now = ctx.now?.() ?? new Date();
  let touched: readonly string[] = [];
  const result = await ctx.db.transaction(async (trx) => {
    const writer = new ItemWriter(trx, ctx, now);
    const value = await work(writer, trx, now);
    await writer.finish();
    touched = [...writer.touched];
    return value;
  });
  noteWrite(ctx.db, replicaCaller(ctx.accountability));
  if (touched.length > 0) await ctx.purgeCache?.(touched);
  return result;
}
