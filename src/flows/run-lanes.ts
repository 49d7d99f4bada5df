import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * The lane of an after-commit item event's run: its flow, collection and item keys. A lane's
 * runs deliver one after another in the order of their events' `seq`: a run whose lane has an
 * earlier run not settled yet (queued, running or retrying, waiting) waits (run-claims.ts), and
 * the run that settles (done, or failed: a dead letter) queues the lane's next one again.
 */
export interface RunLane {
  readonly id: string;
  readonly seq: number;
  /**
   * The claim keys of the lane's earlier runs whose jobs a worker runs now (flow-jobs.ts
   * `earlierInFlight`): one taken but not yet recorded is not in svc_flow_claims to be seen.
   */
  readonly inFlight?: () => Promise<readonly string[]>;
}

/** The claim states of a run that has not settled: a later run of its lane waits for it. */
const UNSETTLED = ['queued', 'running', 'waiting'] as const;

let lastSeq = 0;

/**
 * The place of an item event among the events of its item, taken in the API when the event
 * fires (before anything is awaited: the hooks run in commit order): the time in ms times 1000,
 * plus one for each event within the same ms, so it only grows in this process. Across API
 * instances it relies on their clocks: two writes of one item through two instances are
 * ordered when their clocks differ by less than the time between the two commits (NTP keeps
 * them within a few ms; writes of one item that close together are concurrent anyway).
 */
export function nextSeq(): number {
  lastSeq = Math.max(Date.now() * 1000, lastSeq + 1);
  return lastSeq;
}

/**
 * The lane of `flowId`'s run for an item event (`$trigger`: `collection`, and `key` on a create
 * or `keys`): one per item. An event of several items (a batch update or delete) has the lane of
 * its set of keys: it is ordered with that set's other events, not with each item's own (which
 * would have it wait in several lanes at once). Hashed: keys can be long, and many.
 */
export function laneOf(flowId: string, trigger: unknown): string {
  const { collection, key, keys } = (trigger ?? {}) as { collection?: unknown; key?: unknown; keys?: unknown };
  const items = Array.isArray(keys) ? keys : [key];
  const set = [...new Set(items.map((item) => String(item)))].sort();
  return createHash('sha256')
    .update(JSON.stringify([flowId, collection, set]))
    .digest('hex');
}

/**
 * Whether a run of `lane` before `seq` has not settled yet: recorded and not settled, or taken by
 * a worker and not recorded yet. The queue hands jobs out in the order they were added, so an
 * earlier event's job was taken before this one: it is running now (its claim maybe not recorded
 * yet) or it ran and recorded its claim before it ended. Jobs running are looked at first, the
 * claims after: a job that ends in between has recorded its claim by then.
 */
export async function hasEarlierRun(db: Knex, lane: RunLane): Promise<boolean> {
  const inFlight = (await lane.inFlight?.()) ?? [];
  if (inFlight.length > 0) {
    const recorded = new Set((await db('svc_flow_claims').whereIn('key', inFlight).pluck('key')).map(String));
    if (inFlight.some((key) => !recorded.has(key))) return true;
  }
  const row: unknown = await db('svc_flow_claims')
    .where({ lane: lane.id })
    .andWhere('seq', '<', lane.seq)
    .whereIn('state', UNSETTLED)
    .first('key');
  return row !== undefined;
}

/** A claim at the head of its lane, with its queued job (JSON). */
export interface LaneHead {
  readonly key: string;
  readonly state: string;
  readonly job: unknown;
}

/** The first run of `lane` that has not settled, if any. */
export async function laneHead(db: Knex, lane: string): Promise<LaneHead | undefined> {
  const row = await db('svc_flow_claims')
    .where({ lane })
    .whereIn('state', UNSETTLED)
    .orderBy('seq')
    .first<Record<string, unknown> | undefined>('key', 'state', 'job');
  return row === undefined ? undefined : headOf(row);
}

/**
 * The heads of every lane that are not running: a waiting run whose predecessor settled while
 * nothing queued it again (its worker died between the two, Redis refused the add), or a
 * queued one whose job was lost. The lanes job queues them again, every minute (flow-jobs.ts).
 */
export async function idleLaneHeads(db: Knex): Promise<LaneHead[]> {
  const firsts = db('svc_flow_claims')
    .whereNotNull('lane')
    .whereIn('state', UNSETTLED)
    .groupBy('lane')
    .select('lane')
    .min({ seq: 'seq' })
    .as('firsts');
  const rows = await db('svc_flow_claims as claims')
    .join(firsts, (join) => {
      join.on('firsts.lane', '=', 'claims.lane').andOn('firsts.seq', '=', 'claims.seq');
    })
    .whereIn('claims.state', ['queued', 'waiting'])
    .select<Record<string, unknown>[]>('claims.key', 'claims.state', 'claims.job');
  return rows.map(headOf);
}

function headOf(row: Record<string, unknown>): LaneHead {
  const job = row['job'];
  return {
    key: String(row['key']),
    state: String(row['state']),
    job: typeof job === 'string' ? (JSON.parse(job) as unknown) : job,
  };
}
