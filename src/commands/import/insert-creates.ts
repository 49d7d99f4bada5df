import type { Knex } from 'knex';
import { insertRows } from '../../db/insert-rows.js';
import { activityRow } from '../journal/journal.js';
import type { CommandContext, PrimaryKey } from '../types.js';
import { columnRuns } from './column-runs.js';
import { afterCreates, revisionJson, type CopyPlan, type PreparedCopy } from './copy-creates.js';

/** The activity columns every item of a batch shares (the item's key is its own). */
const SHARED_ACTIVITY_COLUMNS = ['action', 'user', 'timestamp', 'ip', 'user_agent', 'origin', 'collection'];
const REVISION_COLUMNS = ['activity', 'item', 'data'];

/**
 * MariaDB and SQLite imports (issue 13): the rows prepareCopy checked, written as the COPY
 * path writes them on PostgreSQL but by multi-row INSERTs (db/insert-rows.ts): consecutive
 * rows of the same columns together, generated keys back by RETURNING, the permission check
 * of the created items, then one svc_activity row per item (ids by RETURNING) and its
 * revision, each in multi-row INSERTs of the batch. Any failure leaves the caller to roll back.
 */
export async function writeInserts(
  trx: Knex.Transaction,
  ctx: CommandContext,
  plan: CopyPlan,
  prepared: PreparedCopy,
  now: Date,
): Promise<PrimaryKey[]> {
  const { collection } = plan;
  const { rows } = prepared;
  const primary = collection.primary;
  const keys: PrimaryKey[] = [];
  for (const { start, end, columns } of columnRuns(rows)) {
    const values = rows.slice(start, end).map((row) => columns.map((column) => row[column]));
    if (plan.generatesKeys) {
      const returned = await insertRows(trx, collection.collection, columns, values, { returning: primary });
      for (const key of returned) keys.push(key as PrimaryKey);
    } else {
      await insertRows(trx, collection.collection, columns, values);
      for (let i = start; i < end; i += 1) keys.push(rows[i]?.[primary] as PrimaryKey);
    }
  }
  // The same user, time and origin for every row of the batch: converted once.
  const activity = activityRow('create', collection.collection, 0, ctx.accountability, now, plan.dialect);
  return afterCreates(trx, ctx, plan, keys, () => journalInserts(trx, activity, plan, prepared, keys));
}

/**
 * One svc_activity row per item, and for accountability `all` its revision (snapshot = delta);
 * what every row of the batch shares is bound once, the delta sent once as the data's copy
 * (insert-rows.ts).
 */
async function journalInserts(
  trx: Knex.Transaction,
  activity: Readonly<Record<string, unknown>>,
  plan: CopyPlan,
  prepared: PreparedCopy,
  keys: readonly PrimaryKey[],
): Promise<void> {
  const { collection } = plan;
  const activityShared = Object.fromEntries(SHARED_ACTIVITY_COLUMNS.map((column) => [column, activity[column]]));
  const activityValues = keys.map((key) => [String(key)]);
  const ids = await insertRows(trx, 'svc_activity', ['item'], activityValues, {
    shared: activityShared,
    returning: 'id',
  });
  if (collection.accountability !== 'all') return;
  const revisionValues = keys.map((key, i) => [ids[i], String(key), revisionJson(plan, prepared, i, key)]);
  const shared = { collection: collection.collection, parent: null };
  await insertRows(trx, 'svc_revisions', REVISION_COLUMNS, revisionValues, { shared, copies: { delta: 'data' } });
}
