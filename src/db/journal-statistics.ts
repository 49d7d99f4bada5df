import type { Knex } from 'knex';
import { databaseDialectOf } from './dialects/index.js';

/**
 * PostgreSQL plans a foreign key check once per connection and keeps the plan until the table's
 * statistics change. A connection that first checks a revision's activity while svc_activity is
 * a page or two keeps a sequential scan as the journal grows: measured on the bench dataset, a
 * POST of 10,000 items then spent 30 s (not 0.5) scanning svc_activity once per revision. The
 * autovacuum daemon's autoanalyze ends it (at 50 rows + 10% changed); where autovacuum is off,
 * the service analyses svc_activity and svc_revisions itself at the same threshold.
 */
const JOURNAL = 'analyze "svc_activity", "svc_revisions"';

interface Keeper {
  /** Whether this database needs it: PostgreSQL with autovacuum off (asked once). */
  readonly needed: Promise<boolean>;
  /** Journal rows written since the last analysis, and svc_activity's rows at it. */
  written: number;
  rowsAtAnalysis: number;
  running: boolean;
  /** The database analyses its tables itself (autovacuum on), or refused: nothing more to do. */
  done: boolean;
}

const keepers = new WeakMap<Knex, Keeper>();

/** After a commit: `rows` journal rows were written through `db`. */
export function noteJournalRows(db: Knex, rows: number): void {
  if (rows === 0 || !databaseDialectOf(db).keepsForeignKeyPlans) return;
  let keeper = keepers.get(db);
  if (keeper === undefined) {
    keeper = { needed: autovacuumIsOff(db), written: 0, rowsAtAnalysis: 0, running: false, done: false };
    keepers.set(db, keeper);
  }
  keeper.written += rows;
  if (keeper.done || keeper.running || keeper.written < 50 + keeper.rowsAtAnalysis / 10) return;
  keeper.running = true;
  void analyse(db, keeper);
}

async function analyse(db: Knex, keeper: Keeper): Promise<void> {
  try {
    if (!(await keeper.needed)) {
      keeper.done = true;
      return;
    }
    keeper.written = 0;
    await db.raw(JOURNAL);
    const rows = await db.raw<{ rows: { rows: number | string }[] }>(
      `select reltuples as "rows" from pg_class where oid = 'svc_activity'::regclass`,
    );
    keeper.rowsAtAnalysis = Math.max(0, Number(rows.rows[0]?.rows ?? 0));
  } catch {
    // Statistics are an optimisation: a database that refuses (not the owner) keeps working,
    // only without them.
    keeper.done = true;
  } finally {
    keeper.running = false;
  }
}

async function autovacuumIsOff(db: Knex): Promise<boolean> {
  try {
    const result = await db.raw<{ rows: { setting: string }[] }>(`select current_setting('autovacuum') as "setting"`);
    return result.rows[0]?.setting === 'off';
  } catch {
    return false;
  }
}
