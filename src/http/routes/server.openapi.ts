import { anyone, type FixedRoute, healthResponse, json, object, OBJECT, SDL_ANSWER } from '../openapi-describe.js';

/** The OpenAPI descriptions of /server (openapi.ts; test: every served route described, and only those). */
export const SERVER_OPENAPI: readonly FixedRoute[] = [
  {
    path: '/server/ping',
    method: 'get',
    tag: 'Server',
    summary: 'Ping the server (liveness: answers while draining too)',
    caller: anyone,
    answer: {
      kind: 'raw',
      responses: {
        '200': { description: '`pong`', content: { 'text/html': { schema: { type: 'string', enum: ['pong'] } } } },
      },
    },
  },
  {
    path: '/server/info',
    method: 'get',
    tag: 'Server',
    summary: 'Project information',
    caller: anyone,
    answer: { kind: 'data', schema: object({ project: OBJECT }) },
  },
  {
    path: '/server/health',
    method: 'get',
    tag: 'Server',
    summary: 'Health of the service (readiness)',
    caller: anyone,
    answer: {
      kind: 'raw',
      responses: {
        '200': healthResponse('Status `ok` or `warn`', ['ok', 'warn']),
        '503': healthResponse('Status `error`, or `draining` once the instance was told to stop', [
          'error',
          'draining',
        ]),
      },
    },
  },
  {
    path: '/server/specs/oas',
    method: 'get',
    tag: 'Server',
    summary: 'This OpenAPI document',
    caller: anyone,
    answer: {
      kind: 'raw',
      responses: { '200': { description: 'OpenAPI 3.0.1, not enveloped', content: json(OBJECT) } },
    },
  },
  {
    path: '/server/specs/graphql/',
    method: 'get',
    tag: 'Server',
    summary: 'GraphQL SDL of the items scope',
    caller: anyone,
    answer: SDL_ANSWER,
  },
  {
    path: '/server/specs/graphql/system',
    method: 'get',
    tag: 'Server',
    summary: 'GraphQL SDL of the system scope',
    caller: anyone,
    answer: SDL_ANSWER,
  },
];
