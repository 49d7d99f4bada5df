/**
 * A flow's run log as the service keeps it (src/flows/run-log.ts, Directus's shape): a
 * svc_activity row `run` on svc_flows per run, and with accountability `all` its revision's
 * `data` `{steps, data}` (each operation's key, status, options, output, duration).
 */
import { client } from '../../session.js';
import { mayReadSystem, type Catalogue } from '../catalogue.js';

export interface RunStep {
  readonly key: string;
  readonly status: 'resolve' | 'reject' | 'unknown';
  readonly options: unknown;
  readonly data: unknown;
  readonly duration_ms?: number;
}

export interface Run {
  readonly id: number;
  readonly timestamp: string;
  readonly user: string | null;
  /** Absent when the flow logs activity only. */
  readonly steps?: readonly RunStep[];
  readonly trigger?: unknown;
}

/** How a run went: failed when its last step rejected (undefined: not logged step by step). */
export interface RunState {
  readonly timestamp: string;
  readonly failed: boolean | undefined;
}

const FIELDS = ['id', 'timestamp', 'user', 'revisions.data'];

/**
 * Whether the role may read the runs: their svc_activity rows and those rows' revisions (FIELDS);
 * the API refuses the read otherwise, so a page neither asks nor shows the refusal.
 */
export const mayReadRuns = (catalogue: Catalogue | null | undefined): boolean =>
  mayReadSystem(catalogue, 'svc_activity') && mayReadSystem(catalogue, 'svc_revisions');

const runFilter = (flow: string) => ({
  collection: { _eq: 'svc_flows' },
  action: { _eq: 'run' },
  item: { _eq: flow },
});

function parsed(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function toRun(row: Record<string, unknown>): Run {
  const revisions = Array.isArray(row['revisions']) ? (row['revisions'] as { data?: unknown }[]) : [];
  const logged = parsed(revisions[0]?.data) as { steps?: RunStep[]; data?: Record<string, unknown> } | undefined;
  return {
    id: Number(row['id']),
    timestamp: String(row['timestamp']),
    user: typeof row['user'] === 'string' ? row['user'] : null,
    ...(Array.isArray(logged?.steps) ? { steps: logged.steps, trigger: logged.data?.['$trigger'] } : {}),
  };
}

/** A flow's runs, newest first. */
export async function readRuns(flow: string, limit = 25): Promise<Run[]> {
  const answer = await client.activity.readByQuery({
    filter: runFilter(flow),
    sort: ['-id'],
    limit,
    fields: FIELDS,
  });
  return ((answer.data ?? []) as unknown as Record<string, unknown>[]).map(toRun);
}

export const hasFailed = (run: Run): boolean | undefined =>
  run.steps === undefined ? undefined : run.steps.at(-1)?.status === 'reject';

/** Each flow's last run, one small read per flow (a flow list is short); flows never run are absent. */
export async function lastRuns(flows: readonly string[]): Promise<Map<string, RunState>> {
  const states = new Map<string, RunState>();
  await Promise.all(
    flows.map(async (flow) => {
      const [run] = await readRuns(flow, 1).catch(() => []);
      if (run !== undefined) states.set(flow, { timestamp: run.timestamp, failed: hasFailed(run) });
    }),
  );
  return states;
}
