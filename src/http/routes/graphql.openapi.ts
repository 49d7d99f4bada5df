import { anyone, type FixedRoute, GRAPHQL_ANSWER, GRAPHQL_BODY, GRAPHQL_PARAMETERS } from '../openapi-describe.js';

/** The OpenAPI descriptions of /graphql (openapi.ts; test: every served route described, and only those). */
export const GRAPHQL_OPENAPI: readonly FixedRoute[] = [
  {
    path: '/graphql',
    method: 'get',
    tag: 'GraphQL',
    summary: 'GraphQL queries, items scope',
    caller: anyone,
    parameters: GRAPHQL_PARAMETERS,
    answer: GRAPHQL_ANSWER,
  },
  {
    path: '/graphql',
    method: 'post',
    tag: 'GraphQL',
    summary: 'GraphQL, items scope',
    caller: anyone,
    body: GRAPHQL_BODY,
    answer: GRAPHQL_ANSWER,
  },
  {
    path: '/graphql/system',
    method: 'get',
    tag: 'GraphQL',
    summary: 'GraphQL queries, system scope',
    caller: anyone,
    parameters: GRAPHQL_PARAMETERS,
    answer: GRAPHQL_ANSWER,
  },
  {
    path: '/graphql/system',
    method: 'post',
    tag: 'GraphQL',
    summary: 'GraphQL, system scope',
    caller: anyone,
    body: GRAPHQL_BODY,
    answer: GRAPHQL_ANSWER,
  },
];
