import { statementsRunOn } from '../../support/statements.js';
import { expect } from 'chai';
import { signAccessToken } from '../../../src/auth/access-token.js';
import { TEST_ADMIN, type ServerContext } from '../../support/server.js';

export interface JsonResponse {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** GET (or SEARCH with a JSON body) as the admin's static token. */
export async function adminRead(ctx: ServerContext, path: string, search?: unknown): Promise<JsonResponse> {
  const init: RequestInit =
    search === undefined
      ? { headers: { Authorization: `Bearer ${TEST_ADMIN.token}` } }
      : {
          method: 'SEARCH',
          headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(search),
        };
  const res = await ctx.api(path, init);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** `data` of a successful read. */
export async function adminData(ctx: ServerContext, path: string, search?: unknown): Promise<unknown> {
  const res = await adminRead(ctx, path, search);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body['data'];
}

/** The ids of a list read, in the order returned. */
export async function adminIds(ctx: ServerContext, path: string): Promise<unknown[]> {
  const data = (await adminData(ctx, path)) as { id: unknown }[];
  return data.map((item) => item.id);
}

/** Status, code and reason of an error response. */
export async function errorOf(res: Promise<JsonResponse>): Promise<{ status: number; code: unknown; reason: unknown }> {
  const { status, body } = await res;
  const errors = body['errors'] as { extensions: Record<string, unknown> }[] | undefined;
  expect(errors, JSON.stringify(body)).to.be.an('array').with.length.greaterThan(0);
  const first = errors?.[0]?.extensions ?? {};
  return { status, code: first['code'], reason: first['reason'] };
}

/** The read of a token's user (auth/auth-user.ts). */
const AUTH_USER_READ = /from [`"]svc_users[`"] left join [`"]svc_roles[`"] as [`"]assignedRole[`"]/i;

/**
 * The statements the database ran while `run` ran, the read's own: authenticating its JWT
 * reads the user at most once per AUTH_USER_CACHE_TTL (auth/user-lookups.ts), and such a read
 * is left out, however long `run` takes.
 */

export async function statementsDuring(ctx: ServerContext, run: (token: string) => Promise<void>): Promise<string[]> {
  const adminId = (await ctx.server.db('svc_users').where({ email: TEST_ADMIN.email }).first('id', 'role')) as {
    id: string;
    role: string;
  };
  const token = signAccessToken(
    { id: adminId.id, role: adminId.role, admin_access: true, app_access: true },
    'test-secret',
    60_000,
  );
  await ctx.api('/server/info', { headers: { Authorization: `Bearer ${token}` } });
  return (await statementsRunOn(ctx.server.db, () => run(token))).filter((sql) => !AUTH_USER_READ.test(sql));
}
