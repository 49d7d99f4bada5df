import { expect } from 'chai';
import { TEST_ADMIN, type ServerContext } from '../../support/server.js';

export interface GraphqlResponse {
  readonly status: number;
  readonly body: { data?: Record<string, unknown> | null; errors?: GraphqlError[] };
}

export interface GraphqlError {
  readonly message: string;
  readonly path?: readonly (string | number)[];
  readonly locations?: readonly unknown[];
  readonly extensions: Record<string, unknown>;
}

export interface GraphqlRequest {
  readonly variables?: Record<string, unknown>;
  readonly operationName?: string;
  readonly scope?: 'items' | 'system';
  /** A bearer token; the admin's static token by default, null for none. */
  readonly token?: string | null;
}

/** POST /graphql (or /graphql/system) with a JSON body. */
export async function graphql(
  ctx: ServerContext,
  query: string,
  request: GraphqlRequest = {},
): Promise<GraphqlResponse> {
  const token = request.token === undefined ? TEST_ADMIN.token : request.token;
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (token !== null) headers['Authorization'] = `Bearer ${token}`;
  const res = await ctx.api(request.scope === 'system' ? '/graphql/system' : '/graphql', {
    method: 'POST',
    headers,
    body: JSON.stringify({ query, variables: request.variables, operationName: request.operationName }),
  });
  return { status: res.status, body: (await res.json()) as GraphqlResponse['body'] };
}

/** `data` of a request that must succeed without errors. */
export async function graphqlData(
  ctx: ServerContext,
  query: string,
  request: GraphqlRequest = {},
): Promise<Record<string, unknown>> {
  const res = await graphql(ctx, query, request);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
  return res.body.data ?? {};
}
