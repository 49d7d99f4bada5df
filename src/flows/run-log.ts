import type { Knex } from 'knex';
import type { Accountability } from '../access/accountability.js';
import type { DbClient } from '../db-client.js';
import { insertReturningKeys } from '../db/insert-returning-keys.js';
import { toDatabaseTimestamp } from '../db/to-database-timestamp.js';
import type { FlowRow, RunData, RunStep } from './types.js';

/**
 * A run's log, as Directus 10 keeps it: a svc_activity row (action `run`, collection
 * svc_flows, item the flow's id) when the flow's accountability is `activity` or `all`, and with
 * `all` a svc_revisions row whose `data` is `{ steps, data }` (each operation's key, status,
 * options and data; the run data without `$accountability`'s details beyond user and role).
 * Written in `trx` with the run's claim, so a logged run is a finished one.
 */
export async function recordRun(
  trx: Knex | Knex.Transaction,
  dialect: DbClient,
  run: {
    readonly flow: FlowRow;
    readonly accountability: Accountability | null;
    readonly steps: readonly RunStep[];
    readonly data: RunData;
  },
): Promise<void> {
  const { flow, accountability } = run;
  if (flow.accountability !== 'all' && flow.accountability !== 'activity') return;
  const [activity] = await insertReturningKeys(
    trx,
    'svc_activity',
    [
      {
        action: 'run',
        user: accountability?.user ?? null,
        timestamp: toDatabaseTimestamp(new Date(), dialect),
        ip: accountability?.ip ?? null,
        user_agent: accountability?.userAgent ?? null,
        origin: accountability?.origin ?? null,
        collection: 'svc_flows',
        item: flow.id,
      },
    ],
    'id',
    { hasIncreasingKeys: true },
  );
  if (flow.accountability !== 'all' || activity === undefined) return;
  await trx('svc_revisions').insert({
    activity,
    collection: 'svc_flows',
    item: flow.id,
    data: JSON.stringify({ steps: run.steps, data: run.data }),
    delta: null,
  });
}

/**
 * A run refused before its first operation (a chain of flows too deep): logged as a run whose
 * one step, `$trigger`, rejected with the reason, so the flow's log says why it did not run.
 */
export async function recordRefusedRun(
  db: Knex,
  dialect: DbClient,
  run: { readonly flow: FlowRow; readonly accountability: Accountability | null; readonly message: string },
): Promise<void> {
  const data = { message: run.message };
  await recordRun(db, dialect, {
    flow: run.flow,
    accountability: run.accountability,
    steps: [
      { operation: run.flow.operation ?? '', key: '$trigger', status: 'reject', options: null, data, duration_ms: 0 },
    ],
    data: { $last: data },
  });
}
