import type { Knex } from 'knex';
import { hasEarlierRun, type RunLane } from './run-lanes.js';
import { textOf } from './templates.js';

/**
 * A queued run's claim: `queued` (recorded by its event's fan-out, not started), `running` (or
 * retrying), `waiting` (an earlier run of its lane has not settled: run-lanes.ts), `done`,
 * `failed` after its last attempt (a dead letter), or `replayed`.
 */
export type ClaimState = 'queued' | 'running' | 'waiting' | 'done' | 'failed' | 'replayed';

export interface RunClaim {
  readonly key: string;
  readonly isRetry: boolean;
  /** The queued job, kept for a replay (and to queue a waiting run again). */
  readonly job?: unknown;
  /** Whether a run that rejects is tried again (the job is retried with backoff), or this was the last try. */
  readonly canRetry?: boolean;
  /** An item event's run: it goes after the earlier runs of its lane (run-lanes.ts). */
  readonly lane?: RunLane | undefined;
  /** Recorded `queued` by its event's fan-out ({@link queueClaims}): the run moves it on with one update. */
  readonly isQueued?: boolean | undefined;
  /** Called once the claim settled (done or failed): the lane's next run may go. */
  readonly onSettled?: (() => Promise<void>) | undefined;
}

/** A claim recorded before its run is queued: {@link queueClaims}. */
interface QueuedClaim {
  readonly key: string;
  readonly flowId: string;
  readonly job: unknown;
  readonly lane: RunLane;
}

/**
 * Records the claims of one event's runs `queued`, in one statement, before any of them is
 * queued: a run of a later event of the same item finds them, and waits. A fan-out run again
 * (a retry, a copy delivered twice) records nothing twice.
 */
export async function queueClaims(db: Knex, claims: readonly QueuedClaim[]): Promise<void> {
  if (claims.length === 0) return;
  const created = Date.now();
  await db('svc_flow_claims')
    .insert(
      claims.map((claim) => ({
        key: claim.key,
        state: 'queued',
        created,
        flow: claim.flowId,
        job: JSON.stringify(claim.job),
        lane: claim.lane.id,
        seq: claim.lane.seq,
      })),
    )
    .onConflict('key')
    .ignore();
}

/**
 * Takes the claim of one triggering event: true when this run goes ahead. A key already done
 * (or failed) is a job delivered again (a retry after the answer was lost, another instance's
 * copy): it does not run twice. A key still `running` is another copy in flight, unless this is
 * a retry of that copy (it failed, or its worker died), which goes ahead. A run of a lane goes
 * only after the lane's earlier runs settled ({@link holdsLane}).
 */
export async function takeClaim(db: Knex, claim: RunClaim, flowId: string): Promise<boolean> {
  if (!(await startClaim(db, claim, flowId))) return false;
  return claim.lane === undefined || holdsLane(db, claim.key, claim.lane);
}

/** Moves the claim to `running` (recording it, unless its fan-out did): true when this run has it. */
async function startClaim(db: Knex, claim: RunClaim, flowId: string): Promise<boolean> {
  if (
    claim.isQueued === true ? await moveClaim(db, claim.key, 'queued', 'running') : await insertClaim(db, claim, flowId)
  ) {
    return true;
  }
  const row = await db('svc_flow_claims').where({ key: claim.key }).first<{ state?: string } | undefined>('state');
  const state = row?.state;
  if (state === 'running') return claim.isRetry;
  // A waiting run queued again (its lane's run before it settled, or the lanes job's look): once.
  if (state === 'waiting' || state === 'queued') return moveClaim(db, claim.key, state, 'running');
  return false;
}

async function insertClaim(db: Knex, claim: RunClaim, flowId: string): Promise<boolean> {
  try {
    await db('svc_flow_claims').insert({
      key: claim.key,
      state: 'running',
      created: Date.now(),
      flow: flowId,
      job: claim.job === undefined ? null : JSON.stringify(claim.job),
      lane: claim.lane?.id ?? null,
      seq: claim.lane?.seq ?? null,
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the running claim of a lane's run goes ahead now: no earlier run of its lane is left
 * unsettled. Else it waits: the claim goes `waiting` and the job ends without using a try; the
 * run that settles before it queues it again. The lane is looked at again once the claim waits:
 * a run settling meanwhile either finds it waiting (and queues it) or is found settled here (and
 * this run goes on); when both, the claim's move back to `running` lets one of them through.
 */
async function holdsLane(db: Knex, key: string, lane: RunLane): Promise<boolean> {
  if (!(await hasEarlierRun(db, lane))) return true;
  await moveClaim(db, key, 'running', 'waiting');
  if (await hasEarlierRun(db, lane)) return false;
  return moveClaim(db, key, 'waiting', 'running');
}

/** Moves the claim `key` from state `from` to `to`: true when this statement moved it. */
async function moveClaim(db: Knex, key: string, from: ClaimState, to: ClaimState): Promise<boolean> {
  const moved = await db('svc_flow_claims').where({ key, state: from }).update({ state: to });
  return moved === 1;
}

export async function settleClaim(
  db: Knex | Knex.Transaction,
  key: string,
  state: ClaimState,
  error: unknown = null,
): Promise<void> {
  await db('svc_flow_claims')
    .where({ key })
    .update({ state, error: error === null ? null : textOf(error).slice(0, 2000) });
}

/** The dead letters: runs whose retries ran out, newest first. */
export async function failedRuns(db: Knex): Promise<Record<string, unknown>[]> {
  const rows = (await db('svc_flow_claims').where({ state: 'failed' }).orderBy('created', 'desc')) as Record<
    string,
    unknown
  >[];
  return rows.map((row) => ({
    key: row['key'],
    flow: row['flow'],
    created: new Date(Number(row['created'])).toISOString(),
    error: row['error'] ?? null,
  }));
}

/** The queued job of a dead letter, to queue again under a new key; undefined when it is not one. */
export async function deadLetterJob(db: Knex, key: string): Promise<unknown> {
  const row = (await db('svc_flow_claims').where({ key, state: 'failed' }).first()) as { job?: unknown } | undefined;
  if (typeof row?.job !== 'string') return undefined;
  return JSON.parse(row.job) as unknown;
}
