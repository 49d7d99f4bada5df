import {
  admin,
  anyone,
  ARRAY,
  json,
  KEY,
  object,
  pathParameter,
  TEXT,
  type FixedRoute,
  type Json,
} from '../openapi-describe.js';

const FLOW_ID = pathParameter('id', 'The svc_flows row', { type: 'string', format: 'uuid' });
const RUN_KEY = pathParameter('key', "A dead letter's key (GET /flows/runs)", { type: 'string' });
const TRIGGER_ANSWER: Json = {
  '200': { description: "The run's `return` (`$last` by default), not enveloped", content: json({}) },
  '204': { description: 'An `async` flow: queued' },
};

/**
 * The flows' own routes (src/flows/trigger-routes.ts): the webhook and manual triggers, the
 * dead letters and their replay. svc_flows and svc_operations are system collections
 * (`/flows`, `/operations`) described with the others.
 */
export const FLOWS_OPENAPI: readonly FixedRoute[] = [
  {
    path: '/flows/trigger/{id}',
    method: 'get',
    tag: 'Flows',
    summary: 'Run a webhook flow whose method is GET',
    caller: anyone,
    parameters: [FLOW_ID],
    answer: { kind: 'raw', responses: TRIGGER_ANSWER },
  },
  {
    path: '/flows/trigger/{id}',
    method: 'post',
    tag: 'Flows',
    summary: 'Run a webhook flow whose method is POST, or a manual flow on items (`{collection, keys}`, signed in)',
    caller: anyone,
    parameters: [FLOW_ID],
    body: json(object({ collection: TEXT, keys: { type: 'array', items: KEY } })),
    isBodyOptional: true,
    answer: { kind: 'raw', responses: TRIGGER_ANSWER },
  },
  {
    path: '/flows/runs',
    method: 'get',
    tag: 'Flows',
    summary: 'The dead letters: queued runs of `retry` flows whose tries ran out',
    caller: admin,
    answer: { kind: 'data', schema: ARRAY },
  },
  {
    path: '/flows/runs/{key}/replay',
    method: 'post',
    tag: 'Flows',
    summary: 'Queue a dead letter again',
    caller: admin,
    parameters: [RUN_KEY],
    answer: { kind: 'data', schema: object({ key: TEXT }) },
  },
];
