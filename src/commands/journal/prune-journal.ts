import type { Knex } from 'knex';
import type { DbClient } from '../../db-client.js';
import { toDatabaseTimestamp } from '../../db/to-database-timestamp.js';

export interface PruneSettings {
  /** svc_activity rows older than this go (their revisions with them); null keeps them. */
  readonly activityMs: number | null;
  /** svc_revisions rows whose activity is older than this go; null keeps them. */
  readonly revisionsMs: number | null;
  /** Rows per DELETE: each is its own short statement, so no lock is held for long. */
  readonly batchSize: number;
}

export interface PruneResult {
  readonly activity: number;
  readonly revisions: number;
}

/**
 * Issue 18, retention: deletes the journal rows older than the retention durations, in
 * batches of `batchSize` keys, oldest first, each batch its own statement. Comment activity
 * rows stay (svc_comments points at them); revisions of pruned activity rows go with them
 * (svc_revisions.activity is required). Safe to run on several instances at once.
 */
export async function pruneJournal(
  db: Knex,
  dialect: DbClient,
  settings: PruneSettings,
  now: Date,
): Promise<PruneResult> {
  let revisions = 0;
  let activity = 0;
  if (settings.revisionsMs !== null) {
    const before = toDatabaseTimestamp(new Date(now.getTime() - settings.revisionsMs), dialect);
    revisions = await deleteInBatches(db, 'svc_revisions', settings.batchSize, (q) =>
      q('svc_revisions as r')
        .join('svc_activity as a', 'a.id', 'r.activity')
        .where('a.timestamp', '<', before)
        .orderBy('r.id')
        .select('r.id'),
    );
  }
  if (settings.activityMs !== null) {
    const before = toDatabaseTimestamp(new Date(now.getTime() - settings.activityMs), dialect);
    // Their revisions first, so the cascade never deletes more than a batch.
    revisions += await deleteInBatches(db, 'svc_revisions', settings.batchSize, (q) =>
      q('svc_revisions as r')
        .join('svc_activity as a', 'a.id', 'r.activity')
        .where('a.timestamp', '<', before)
        .whereNot('a.action', 'comment')
        .orderBy('r.id')
        .select('r.id'),
    );
    activity = await deleteInBatches(db, 'svc_activity', settings.batchSize, (q) =>
      q('svc_activity').where('timestamp', '<', before).whereNot('action', 'comment').orderBy('id').select('id'),
    );
  }
  return { activity, revisions };
}

async function deleteInBatches(
  db: Knex,
  table: 'svc_activity' | 'svc_revisions',
  batchSize: number,
  select: (db: Knex) => Knex.QueryBuilder,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const ids = ((await select(db).limit(batchSize)) as { id: number }[]).map((r) => r.id);
    if (ids.length === 0) return deleted;
    deleted += await db(table).whereIn('id', ids).delete();
    if (ids.length < batchSize) return deleted;
  }
}

export interface JournalPruner {
  /** Stops the timer and waits for a prune under way. */
  stop(): Promise<void>;
}

/**
 * Runs {@link pruneJournal} at start and every `intervalMs` (timers unref'd: they keep no
 * process alive), one run at a time; failures go to `onError` and the next run tries again.
 */
export function startJournalPruner(
  db: Knex,
  dialect: DbClient,
  settings: PruneSettings & { readonly intervalMs: number },
  onError: (error: unknown) => void,
): JournalPruner {
  let running: Promise<void> | undefined;
  const run = (): void => {
    if (running !== undefined) return;
    running = pruneJournal(db, dialect, settings, new Date())
      .then(() => undefined, onError)
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(run, 0);
  const timer = setInterval(run, Math.max(settings.intervalMs, 1000));
  first.unref();
  timer.unref();
  return {
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
