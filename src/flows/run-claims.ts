import type { Knex } from 'knex';
import { textOf } from './templates.js';

/** A queued run's claim: `running` (or retrying), `done`, or `failed` after its last attempt (a dead letter). */
export type ClaimState = 'running' | 'done' | 'failed' | 'replayed';

export interface RunClaim {
  readonly key: string;
  readonly isRetry: boolean;
  /** The queued job, kept for a replay. */
  readonly job?: unknown;
  /** Whether a run that rejects is tried again (the job is retried with backoff), or this was the last try. */
  readonly canRetry?: boolean;
}

/**
 * Takes the claim of one triggering event: true when this run goes ahead. A key already done
 * (or failed) is a job delivered again (a retry after the answer was lost, another instance's
 * copy): it does not run twice. A key still `running` is another copy in flight, unless this is
 * a retry of that copy (it failed, or its worker died), which goes ahead.
 */
export async function takeClaim(db: Knex, claim: RunClaim, flowId: string): Promise<boolean> {
  try {
    await db('svc_flow_claims').insert({
      key: claim.key,
      state: 'running',
      created: Date.now(),
      flow: flowId,
      job: claim.job === undefined ? null : JSON.stringify(claim.job),
    });
    return true;
  } catch {
    const row = (await db('svc_flow_claims').where({ key: claim.key }).first()) as { state?: string } | undefined;
    return row !== undefined && row.state === 'running' && claim.isRetry;
  }
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
