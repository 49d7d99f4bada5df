import { expect } from 'chai';
import type { Knex } from 'knex';
import { dialectOf } from '../../../src/db/index.js';
import { toDatabaseTimestamp } from '../../../src/db/to-database-timestamp.js';

/** 10:00 UTC (or `hour`) on day `n` of March 2026: moments the history suites date journal rows at. */
export const day = (n: number, hour = 10): string =>
  `2026-03-0${String(n)}T${String(hour).padStart(2, '0')}:00:00.000Z`;

/**
 * Dates the svc_activity rows of an item, oldest first, at the given days, so that moments
 * between them are known whatever the database's timestamp precision.
 */
export async function stampJournal(
  db: Knex,
  collection: string,
  item: unknown,
  days: readonly number[],
): Promise<void> {
  const rows = await db('svc_activity')
    .where({ collection, item: String(item) })
    .orderBy('id')
    .select<{ id: number }[]>('id');
  expect(rows).to.have.length(days.length);
  for (const [i, row] of rows.entries()) {
    await db('svc_activity')
      .where({ id: row.id })
      .update({ timestamp: toDatabaseTimestamp(new Date(day(days[i] ?? 0)), dialectOf(db)) });
  }
}
