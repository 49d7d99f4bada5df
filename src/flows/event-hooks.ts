import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Accountability } from '../access/accountability.js';
import { FLOWS_COLLECTION, OPERATIONS_COLLECTION } from '../commands/flow-rules.js';
import { InvalidPayloadError } from '../errors.js';
import type { HookBus, HookContext, HookMeta } from '../items/hooks.js';
import { currentDepth } from './chain-depth.js';
import { unmatchedPaths } from './filter-match.js';
import { queueEventRuns } from './flow-jobs.js';
import { activeFlows } from './flow-store.js';
import { recordRefusedRun } from './run-log.js';
import { runFlow } from './run-flow.js';
import { nextSeq } from './run-lanes.js';
import type { FlowDeps, FlowRow } from './types.js';

/** The item events flows listen to (Directus's `scope`). */
const FLOW_EVENTS = ['items.create', 'items.update', 'items.delete'] as const;

/**
 * How long the list of event flows is kept before it is read again: a flow saved through another
 * instance applies within it; one saved through this instance, at once (its write drops the list).
 */
const FLOWS_TTL_MS = 1000;

/**
 * Hooks the `event` flows into the items service's events (items/hooks.ts), as Directus's
 * options say: `{ type: 'action' | 'filter', scope: ['items.create', ...], collections: [...] }`,
 * and ours, `filter`: the filter syntax against `$trigger` (a publish: `{ payload: { status:
 * { _eq: 'published' } } }`). An action flow is queued after the commit (the job queue: the
 * write waits for no run, and each event's run has its own key, so a job delivered twice runs once);
 * the flows one event matches go as one job, which the worker fans out (flow-jobs.ts). The
 * event's `seq` orders its runs after the same item's earlier events' runs (run-lanes.ts).
 * A filter flow runs in the write, before it, within FLOWS_FILTER_TIMEOUT: a run that rejects
 * (or runs out of time) refuses the write with its message, and nothing is written.
 * A write by a flow's item operation (`emitEvents`) starts these flows one deeper in the chain
 * (chain-depth.ts): past FLOWS_MAX_DEPTH an action flow is not queued but logged as refused,
 * and a filter flow refuses the write, so flows re-triggering each other through writes stop.
 */
export function registerFlowHooks(bus: HookBus, deps: FlowDeps): void {
  let cached: { readonly at: number; readonly flows: Promise<FlowRow[]> } | undefined;
  const flowsFor = async (type: 'action' | 'filter', event: string, collection: unknown) => {
    if (cached === undefined || Date.now() - cached.at > FLOWS_TTL_MS) {
      cached = { at: Date.now(), flows: activeFlows(deps.db, 'event') };
    }
    return (await cached.flows).filter((flow) => listens(flow, type, event, collection));
  };
  for (const event of FLOW_EVENTS) {
    bus.action(
      event,
      async (meta, context) => {
        // Before anything is awaited: the events of one item are numbered in the order they fire.
        const seq = nextSeq();
        if (meta['collection'] === FLOWS_COLLECTION || meta['collection'] === OPERATIONS_COLLECTION) cached = undefined;
        const depth = nextDepth();
        const $trigger = { event, ...meta };
        const accountability = plain(context.accountability);
        const runs: { flowId: string; key: string }[] = [];
        for (const flow of await flowsFor('action', event, meta['collection'])) {
          if (!passes(flow, $trigger)) continue;
          if (depth > deps.config.flows.maxDepth) await refuseTooDeep(deps, flow, accountability);
          else runs.push({ flowId: flow.id, key: randomUUID() });
        }
        if (runs.length > 0) await queueEventRuns(deps, { runs, trigger: $trigger, accountability, depth, seq });
      },
      'flows',
    );
    bus.filter(
      event,
      async (payload, meta, context) => {
        for (const flow of await flowsFor('filter', event, meta['collection'])) {
          const $trigger = { event, payload, ...meta };
          if (!passes(flow, $trigger)) continue;
          await runBlocking(deps, flow, $trigger, meta, context);
        }
        return undefined;
      },
      'flows',
    );
  }
}

function listens(flow: FlowRow, type: 'action' | 'filter', event: string, collection: unknown): boolean {
  const { options } = flow;
  if ((options['type'] ?? 'action') !== type) return false;
  const scope = Array.isArray(options['scope']) ? options['scope'] : [];
  const collections = Array.isArray(options['collections']) ? options['collections'] : [];
  return scope.includes(event) && collections.includes(collection);
}

function passes(flow: FlowRow, $trigger: unknown): boolean {
  const filter = flow.options['filter'];
  return filter === undefined || filter === null || unmatchedPaths(filter, $trigger).length === 0;
}

async function runBlocking(
  deps: FlowDeps,
  flow: FlowRow,
  $trigger: unknown,
  _meta: HookMeta,
  context: HookContext,
): Promise<void> {
  const limit = deps.config.flows.filterTimeoutMs;
  const timeout = new AbortController();
  // Inside the write's transaction: its operations and its log see (and wait for) nothing else.
  const run = runFlow(
    { ...deps, db: context.database },
    { flowId: flow.id, trigger: $trigger, accountability: plain(context.accountability), depth: nextDepth() },
  );
  const outcome = await Promise.race([
    run,
    delay(limit, undefined, { signal: timeout.signal }).then(() => 'timeout' as const),
  ]).finally(() => {
    timeout.abort();
  });
  if (outcome === 'timeout') {
    run.catch(() => undefined);
    throw new InvalidPayloadError(`flow "${flow.name}" did not answer within FLOWS_FILTER_TIMEOUT`);
  }
  if (outcome.status === 'reject') {
    throw new InvalidPayloadError(`flow "${flow.name}" refused the write: ${messageOf(outcome.last)}`);
  }
}

/** The depth of a flow the current event starts: 0, or one below the flow whose write it is. */
function nextDepth(): number {
  const depth = currentDepth();
  return depth === undefined ? 0 : depth + 1;
}

/** An action flow a chain of flows' writes would start past FLOWS_MAX_DEPTH: logged as refused, not run. */
async function refuseTooDeep(deps: FlowDeps, flow: FlowRow, accountability: Accountability | null): Promise<void> {
  const message = `not run: flows starting each other through writes nested deeper than FLOWS_MAX_DEPTH (${deps.config.flows.maxDepth})`;
  deps.logger.warn({ flow: flow.id }, `flow "${flow.name}" ${message}`);
  await recordRefusedRun(deps.db, deps.config.db.client, { flow, accountability, message });
}

function messageOf(last: unknown): string {
  if (typeof last === 'string') return last;
  if (Array.isArray(last)) return last.map(messageOf).join('; ');
  if (typeof last === 'object' && last !== null && typeof (last as { message?: unknown }).message === 'string') {
    return (last as { message: string }).message;
  }
  return JSON.stringify(last);
}

/** The accountability as JSON carries it into a job. */
function plain(accountability: Accountability | null): Accountability | null {
  return accountability === null ? null : { ...accountability };
}
