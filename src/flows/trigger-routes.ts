import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { ForbiddenError, InvalidCredentialsError, InvalidPayloadError } from '../errors.js';
import { queueFlowRun, type FlowRunJob } from './flow-jobs.js';
import { deadLetterJob, failedRuns, settleClaim } from './run-claims.js';
import { loadFlow } from './flow-store.js';
import { runFlow } from './run-flow.js';
import { valueAt } from './templates.js';
import type { FlowDeps, FlowRow, RunData } from './types.js';

/**
 * `GET|POST /flows/trigger/:id`, as Directus 10 serves them: a `webhook` flow answers the
 * method its options name (`method`, default GET); a `manual` flow answers POST from a
 * signed-in user with `{ collection, keys }` (the Studio's button on an item). `$trigger` is
 * `{ path, query, body, method, headers }`. With `async` the answer is 204 at once and the run
 * goes to the job queue; else the answer is the run's `return` (`$last` by default, `$all`
 * for everything, or an operation's key). An unknown or inactive flow is FORBIDDEN.
 * `GET /flows/runs` lists the dead letters and `POST /flows/runs/:key/replay` queues one again
 * (administrators).
 */
export function flowTriggerRoutes(deps: () => FlowDeps): Router {
  const router = Router();
  const trigger = async (req: Request, res: Response) => {
    const flowDeps = deps();
    const loaded = await loadFlow(flowDeps.db, String(req.params['id']));
    const flow = loaded?.flow;
    if (flow?.status !== 'active' || !isTriggeredBy(flow, req.method)) throw new ForbiddenError();
    if (flow.trigger === 'manual') checkManual(flow, req);
    const $trigger = {
      path: req.path,
      query: req.query,
      body: req.body as unknown,
      method: req.method,
      headers: withoutCredentials(req.headers),
    };
    const { accountability } = req;
    if (flow.options['async'] === true) {
      await queueFlowRun(flowDeps, { flowId: flow.id, key: randomUUID(), trigger: $trigger, accountability });
      res.status(204).end();
      return;
    }
    const result = await runFlow(flowDeps, { flowId: flow.id, trigger: $trigger, accountability });
    const answer = returned(flow, result.data, result.last);
    if (answer === undefined) res.status(204).end();
    else res.json(answer);
  };
  router.get('/trigger/:id', trigger);
  router.post('/trigger/:id', trigger);
  // The dead letters (queued runs of `retry` flows whose tries ran out), and their replay.
  router.get('/runs', async (req, res) => {
    if (!req.accountability.admin) throw new ForbiddenError();
    res.json({ data: await failedRuns(deps().db) });
  });
  router.post('/runs/:key/replay', async (req, res) => {
    if (!req.accountability.admin) throw new ForbiddenError();
    const flowDeps = deps();
    const key = req.params['key'];
    const job = (await deadLetterJob(flowDeps.db, key)) as FlowRunJob | undefined;
    if (job === undefined) throw new ForbiddenError();
    const replay = `${key}:replay:${randomUUID()}`;
    // Out of its item's lane: its lane went on past the dead letter, and a replay goes now.
    const { seq: _seq, isQueued: _isQueued, ...run } = job;
    await queueFlowRun(flowDeps, { ...run, key: replay });
    await settleClaim(flowDeps.db, key, 'replayed');
    res.json({ data: { key: replay } });
  });
  return router;
}

function isTriggeredBy(flow: FlowRow, method: string): boolean {
  if (flow.trigger === 'manual') return method === 'POST';
  if (flow.trigger !== 'webhook') return false;
  const wanted = typeof flow.options['method'] === 'string' ? flow.options['method'].toUpperCase() : 'GET';
  return wanted === method;
}

/** Directus: a manual flow runs for a user, on items of one of its `collections`. */
function checkManual(flow: FlowRow, req: Request): void {
  if (req.accountability.user === null) throw new InvalidCredentialsError();
  const body = (req.body ?? {}) as { collection?: unknown; keys?: unknown };
  const collections = Array.isArray(flow.options['collections']) ? flow.options['collections'] : [];
  if (typeof body.collection !== 'string' || !collections.includes(body.collection)) {
    throw new InvalidPayloadError('"collection" must be one of the flow\'s collections');
  }
  if (flow.options['requireSelection'] !== false && (!Array.isArray(body.keys) || body.keys.length === 0)) {
    throw new InvalidPayloadError('"keys" must name at least one item');
  }
}

function returned(flow: FlowRow, data: RunData, last: unknown): unknown {
  const wanted = flow.options['return'];
  if (wanted === '$all') return data;
  if (typeof wanted === 'string' && wanted !== '' && wanted !== '$last') return valueAt(data, wanted);
  return last ?? undefined;
}

/** The request's headers without the caller's credentials (they would land in the run log). */
function withoutCredentials(headers: Request['headers']): Record<string, unknown> {
  const { authorization: _authorization, cookie: _cookie, ...rest } = headers;
  return rest;
}
