import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { signAccessToken } from '../../../src/auth/access-token.js';
import { TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { createRole, createUser } from '../auth/helpers.js';

export interface JsonResponse {
  readonly status: number;
  readonly body: Record<string, unknown> | undefined;
}

/** A limited caller: a role and one active user of it, with a static token. */
export interface Caller {
  readonly role: string;
  readonly user: string;
  readonly token: string;
}

/** A role (app_access as given, never admin) and a user of it holding a static token. */
export async function createCaller(db: Knex, options: { readonly app?: boolean } = {}): Promise<Caller> {
  const role = await createRole(db, { app_access: options.app ?? false });
  const token = `token-${randomUUID()}`;
  const user = await createUser(db, { role, token });
  return { role, user: user.id, token };
}

/** One svc_permissions row as a test writes it; `fields` defaults to every field. */
export interface Grant {
  readonly collection: string;
  readonly action: 'create' | 'read' | 'update' | 'delete';
  readonly permissions?: Readonly<Record<string, unknown>>;
  readonly validation?: Readonly<Record<string, unknown>>;
  readonly presets?: Readonly<Record<string, unknown>>;
  readonly fields?: readonly string[];
}

/**
 * Inserts permission rows for `role` (null: the public role) straight into svc_permissions,
 * then moves the schema version so the service reloads the rules.
 */
export async function grant(ctx: ServerContext, role: string | null, grants: readonly Grant[]): Promise<void> {
  await ctx.server.db('svc_permissions').insert(
    grants.map((g) => ({
      role,
      collection: g.collection,
      action: g.action,
      permissions: g.permissions === undefined ? null : JSON.stringify(g.permissions),
      validation: g.validation === undefined ? null : JSON.stringify(g.validation),
      presets: g.presets === undefined ? null : JSON.stringify(g.presets),
      fields: (g.fields ?? ['*']).join(','),
    })),
  );
  await ctx.server.schema.invalidate();
}

/** A request as `token` (undefined: no token), JSON in and out; `extraHeaders` on top. */
export async function call(
  ctx: ServerContext,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<JsonResponse> {
  const headers: Record<string, string> = { ...extraHeaders };
  if (token !== undefined) headers['Authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await ctx.api(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
}

export const asAdmin = (ctx: ServerContext, method: string, path: string, body?: unknown): Promise<JsonResponse> =>
  call(ctx, TEST_ADMIN.token, method, path, body);

/** `data` of a 200 answer. */
export function dataOf<T>(res: JsonResponse): T {
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body?.['data'] as T;
}

/**
 * Asserts the answer is exactly one FORBIDDEN error and nothing else (no data, no meta):
 * the same body whether the thing asked for exists or not.
 */
export function expectForbidden(res: JsonResponse): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(403);
  expect(res.body).to.deep.equal({
    errors: [{ message: "You don't have permission to access this.", extensions: { code: 'FORBIDDEN' } }],
  });
}

/** The ids of a list answer, in order. */
export function idsOf(res: JsonResponse): unknown[] {
  return dataOf<{ id: unknown }[]>(res).map((item) => item.id);
}

/** A JWT for `caller` (what login would issue), so the role's ip_access comes from the cache. */
export function jwtFor(caller: Caller, app = false): string {
  return signAccessToken(
    { id: caller.user, role: caller.role, admin_access: false, app_access: app },
    'test-secret',
    60_000,
  );
}
