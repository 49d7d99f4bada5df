import type { Accountability } from '../access/accountability.js';
import { runAtDepth } from './chain-depth.js';
import { operationHandler, OperationFailure } from './operations.js';
import { recordRun } from './run-log.js';
import { loadFlow } from './flow-store.js';
import { settleClaim, takeClaim, type RunClaim } from './run-claims.js';
import { renderOptions } from './templates.js';
import type { FlowDeps, LoadedFlow, RunData, RunStep } from './types.js';

/** How one run ended: the status of its last step, the last step's data and everything passed along. */
export interface FlowRunResult {
  readonly status: 'resolve' | 'reject';
  readonly last: unknown;
  readonly data: RunData;
  readonly steps: readonly RunStep[];
  /**
   * True when the run's claim showed it had already run (a job delivered twice), or that its
   * item's lane has an earlier run to deliver first (it waits: run-lanes.ts): nothing ran.
   */
  readonly isDuplicate?: boolean;
}

export interface FlowRunRequest {
  readonly flowId: string;
  /** `$trigger`: what the trigger hands the flow (an event's payload and keys, a webhook's body...). */
  readonly trigger: unknown;
  readonly accountability: Accountability | null;
  /** How deep in `trigger` operations and writes of other flows (loops of flows stop at FLOWS_MAX_DEPTH). */
  readonly depth?: number;
  /** One key per triggering event: a run whose key finished already is not run again. */
  readonly claim?: RunClaim;
  /** The run's key, for operations that name their delivery (the `request` operation's `webhook-id`). */
  readonly runKey?: string;
}

/**
 * A queued run of a flow with `options.retry` rejected with tries left: the job fails, and the
 * queue runs it again after its backoff (the claim stays `running` for that retry).
 */
class FlowRunRejected extends Error {
  override readonly name = 'FlowRunRejected';
}

/** A run that could not start: unknown flow, or `trigger` operations nested too deep. */
class FlowRunRefused extends Error {
  override readonly name = 'FlowRunRefused';
}

/**
 * Runs a flow: from its first operation, each step's options rendered against the run data
 * (templates.ts), its handler's result stored under its key and as `$last`, then on to
 * `resolve`, or on a throw to `reject` with the error as data. The chain stops after
 * FLOWS_MAX_STEPS steps (a chain that loops), rejected with the reason in the log. The run is
 * logged as Directus logs it (run-log.ts).
 */
export async function runFlow(deps: FlowDeps, request: FlowRunRequest): Promise<FlowRunResult> {
  const depth = request.depth ?? 0;
  if (depth > deps.config.flows.maxDepth) {
    throw new FlowRunRefused(
      `flows nested deeper than FLOWS_MAX_DEPTH (${deps.config.flows.maxDepth}): a loop of flows stopped`,
    );
  }
  const { claim } = request;
  // The claim first: a run of an item's later event finds this one as early as can be (run-lanes.ts).
  if (claim !== undefined && !(await takeClaim(deps.db, claim, request.flowId))) {
    return { status: 'resolve', last: null, data: {}, steps: [], isDuplicate: true };
  }
  const loaded = await loadFlow(deps.db, request.flowId);
  if (loaded === undefined) {
    const message = `flow ${request.flowId} does not exist`;
    if (claim !== undefined) await failClaim(deps, claim, message);
    throw new FlowRunRefused(message);
  }
  const result = await runAtDepth(depth, () => runSteps(deps, loaded, request, depth));
  const isRetried = loaded.flow.options['retry'] === true && result.status === 'reject';
  await deps.db.transaction(async (trx) => {
    await recordRun(trx, deps.config.db.client, {
      flow: loaded.flow,
      accountability: request.accountability,
      steps: result.steps,
      data: loggedData(result.data),
    });
    if (claim === undefined) return;
    if (!isRetried) await settleClaim(trx, claim.key, 'done');
    else if (claim.canRetry !== true) await settleClaim(trx, claim.key, 'failed', result.last);
  });
  if (isRetried && claim?.canRetry === true) {
    throw new FlowRunRejected(`flow ${loaded.flow.id} rejected: it runs again after its backoff`);
  }
  // After the commit: the lane's next run, queued now, finds this one settled.
  await claim?.onSettled?.();
  return result;
}

/** The claim of a run that cannot start (its flow was deleted): a dead letter, and its lane goes on. */
async function failClaim(deps: FlowDeps, claim: RunClaim, error: unknown): Promise<void> {
  await settleClaim(deps.db, claim.key, 'failed', error);
  await claim.onSettled?.();
}

async function runSteps(
  deps: FlowDeps,
  { flow, operations }: LoadedFlow,
  request: FlowRunRequest,
  depth: number,
): Promise<FlowRunResult> {
  const data: RunData = {
    $trigger: request.trigger,
    $last: request.trigger,
    $accountability: request.accountability,
    $env: envOf(deps),
  };
  const { claim } = request;
  const steps: RunStep[] = [];
  let status: FlowRunResult['status'] = 'resolve';
  let next = flow.operation;
  while (next !== null) {
    const operation = operations.get(next);
    if (operation === undefined) break;
    if (steps.length >= deps.config.flows.maxSteps) {
      const message = `stopped after FLOWS_MAX_STEPS (${deps.config.flows.maxSteps}) operations: the chain loops`;
      steps.push({
        operation: operation.id,
        key: operation.key,
        status: 'unknown',
        options: null,
        data: { message },
        duration_ms: 0,
      });
      data['$last'] = { message };
      status = 'reject';
      break;
    }
    const started = performance.now();
    const options = renderOptions(operation.options, data) as Record<string, unknown>;
    const handler = operationHandler(operation.type);
    let result: unknown;
    try {
      if (handler === undefined) throw new OperationFailure(`unknown operation type "${operation.type}"`);
      result = await handler(options, {
        data,
        accountability: request.accountability,
        deps,
        flow,
        depth,
        runKey: request.runKey ?? claim?.key,
        runFlow: async (flowId, payload) => {
          const run = await runFlow(deps, {
            flowId,
            trigger: payload,
            accountability: request.accountability,
            depth: depth + 1,
          });
          if (run.status === 'reject') throw new OperationFailure(`flow ${flowId} rejected`, run.last);
          return run.last;
        },
      });
      status = 'resolve';
      next = operation.resolve;
    } catch (error) {
      result =
        error instanceof OperationFailure
          ? error.data
          : { message: error instanceof Error ? error.message : String(error) };
      status = 'reject';
      next = operation.reject;
    }
    result ??= null;
    data[operation.key] = result;
    data['$last'] = result;
    const duration = Math.round(performance.now() - started);
    steps.push({ operation: operation.id, key: operation.key, status, options, data: result, duration_ms: duration });
  }
  return { status, last: data['$last'], data, steps };
}

/** `$env`: only the variables FLOWS_ENV_ALLOW_LIST names. */
function envOf(deps: FlowDeps): Record<string, string | undefined> {
  return Object.fromEntries(deps.config.flows.envAllowList.map((name) => [name, process.env[name]]));
}

/** The run data as logged: `$accountability` reduced to who (Directus drops its permissions). */
function loggedData(data: RunData): RunData {
  const accountability = data['$accountability'] as Accountability | null;
  return {
    ...data,
    $accountability: accountability === null ? null : { user: accountability.user, role: accountability.role },
  };
}
