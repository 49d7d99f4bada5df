import type { Knex } from 'knex';
import type { DbClient } from '../db-client.js';
import { toDatabaseTimestamp } from '../db/to-database-timestamp.js';

/** Claims outlive any retry of their job by far: a day. */
const CLAIM_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes the claims older than a day and, with FLOWS_LOG_RETENTION, the runs logged before it
 * (their revisions first: SQLite's foreign keys may be off). Returns the runs deleted. A claim
 * queued or waiting in its lane (run-lanes.ts) is a delivery still to make: it stays; one left
 * `running` by a run whose worker died for good goes, and its lane moves on.
 */
export async function pruneFlowRuns(db: Knex, dialect: DbClient, logRetentionMs: number | null): Promise<number> {
  await db('svc_flow_claims')
    .where('created', '<', Date.now() - CLAIM_TTL_MS)
    .whereNotIn('state', ['queued', 'waiting'])
    .delete();
  if (logRetentionMs === null) return 0;
  const cutoff = toDatabaseTimestamp(new Date(Date.now() - logRetentionMs), dialect);
  const runs = db('svc_activity')
    .where({ action: 'run', collection: 'svc_flows' })
    .andWhere('timestamp', '<', cutoff)
    .select('id');
  // MariaDB refuses a subquery on the table being deleted from: the ids are read first.
  const ids = (await runs).map((row: { id: number }) => row.id);
  for (let start = 0; start < ids.length; start += 500) {
    const chunk = ids.slice(start, start + 500);
    await db('svc_revisions').whereIn('activity', chunk).delete();
    await db('svc_activity').whereIn('id', chunk).delete();
  }
  return ids.length;
}
