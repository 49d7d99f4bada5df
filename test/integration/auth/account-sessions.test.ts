import { expect } from 'chai';
import type { Knex } from 'knex';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../../../src/logger/index.js';
import { startServer } from '../../../src/server.js';
import { describeEachDatabase, testConfig, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { redisUnavailable, requireOrSkip, sqliteTarget, TEST_REDIS_URL } from '../../support/services.js';
import { cookieNamed, createRole, createUser, expectOnlyError, postJson, type TestUser } from './helpers.js';

/**
 * A token is only as good as its user now (src/auth/authenticate.ts, commands/user-rules.ts):
 * a user who is suspended, archived or deleted loses their access tokens at once, on REST and
 * GraphQL, and their sessions with them; a password change ends the sessions; the role and
 * its flags are the user's current ones, not the token's claims.
 */

type Api = ServerContext['api'];

interface Tokens {
  readonly access: string;
  readonly refresh: string;
  /** A session-mode token (a second session). */
  readonly session: string;
}

const FAST = { LOGIN_STALL_TIME: '0' };
const adminHeaders = { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' };

async function login(api: Api, user: TestUser): Promise<Tokens> {
  const json = await postJson(api, '/auth/login', { email: user.email, password: user.password });
  expect(json.status).to.equal(200);
  const { data } = (await json.json()) as { data: { access_token: string; refresh_token: string } };
  const session = await postJson(api, '/auth/login', { email: user.email, password: user.password, mode: 'session' });
  expect(session.status).to.equal(200);
  return {
    access: data.access_token,
    refresh: data.refresh_token,
    session: cookieNamed(session, 'svc_session_token').value,
  };
}

async function adminWrite(api: Api, method: string, path: string, body?: unknown): Promise<void> {
  const res = await api(path, {
    method,
    headers: adminHeaders,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status, await res.text()).to.be.oneOf([200, 204]);
}

const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

/** GET /users/me as `token`. */
const me = (api: Api, token: string) => api('/users/me?fields=id', bearer(token));

/** `{ users_me { id } }` on /graphql/system as `init`. */
const graphqlMe = (api: Api, init: { headers: Record<string, string> }) =>
  api('/graphql/system', {
    method: 'POST',
    headers: { ...init.headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: '{ users_me { id } }' }),
  });

const sessionsOf = (db: Knex, user: string) => db('svc_sessions').where('user', user).pluck('token');

/** Every way the user's tokens can be used works (control). */
async function expectUsable(api: Api, user: TestUser, tokens: Tokens): Promise<void> {
  const res = await me(api, tokens.access);
  expect(res.status).to.equal(200);
  expect(((await res.json()) as { data: { id: string } }).data.id).to.equal(user.id);
  const gql = await graphqlMe(api, bearer(tokens.access));
  expect(((await gql.json()) as { data: { users_me: { id: string } } }).data.users_me.id).to.equal(user.id);
  expect(
    (await api('/users/me?fields=id', { headers: { Cookie: `svc_session_token=${tokens.session}` } })).status,
  ).to.equal(200);
}

/** The access token, the session token and the refresh token are all refused, and no session is left. */
async function expectLockedOut(ctx: () => ServerContext, user: TestUser, tokens: Tokens): Promise<void> {
  const { api } = ctx();
  await expectOnlyError(await me(api, tokens.access), 401, 'INVALID_CREDENTIALS');
  await expectOnlyError(await graphqlMe(api, bearer(tokens.access)), 401, 'INVALID_CREDENTIALS');
  await expectOnlyError(await api(`/items/svc_settings?access_token=${tokens.access}`), 401, 'INVALID_CREDENTIALS');
  await expectOnlyError(
    await api('/users/me', { headers: { Cookie: `svc_session_token=${tokens.session}` } }),
    401,
    'INVALID_CREDENTIALS',
  );
  await expectOnlyError(
    await postJson(api, '/auth/refresh', { refresh_token: tokens.refresh }),
    401,
    'INVALID_CREDENTIALS',
  );
  expect(await sessionsOf(ctx().server.db, user.id)).to.deep.equal([]);
}

describeEachDatabase(
  'sessions and tokens end with the account',
  (ctx) => {
    let bystander: { user: TestUser; tokens: Tokens };
    let appRole: string;
    /** A user of a role with app access: /users/me and GraphQL's users_me read their own row. */
    const createAppUser = () => createUser(ctx().server.db, { role: appRole });

    before(async () => {
      appRole = await createRole(ctx().server.db, { app_access: true });
      const user = await createAppUser();
      bystander = { user, tokens: await login(ctx().api, user) };
    });

    afterEach(async () => {
      // Nobody else's sessions were touched.
      expect(await sessionsOf(ctx().server.db, bystander.user.id)).to.have.length(2);
      expect((await me(ctx().api, bystander.tokens.access)).status).to.equal(200);
    });

    for (const status of ['suspended', 'archived', 'draft']) {
      it(`a user set to ${status} loses access and session tokens on REST and GraphQL at once, and every session`, async () => {
        const user = await createAppUser();
        const tokens = await login(ctx().api, user);
        await expectUsable(ctx().api, user, tokens);
        expect(await sessionsOf(ctx().server.db, user.id)).to.have.length(2);
        await adminWrite(ctx().api, 'PATCH', `/users/${user.id}`, { status });
        await expectLockedOut(ctx, user, tokens);
      });
    }

    it('a deleted user loses every token and session', async () => {
      const user = await createAppUser();
      const tokens = await login(ctx().api, user);
      await expectUsable(ctx().api, user, tokens);
      await adminWrite(ctx().api, 'DELETE', `/users/${user.id}`);
      await expectLockedOut(ctx, user, tokens);
    });

    it('a suspension by a query-selected update (PATCH /users) ends the sessions too', async () => {
      const user = await createAppUser();
      const tokens = await login(ctx().api, user);
      const res = await ctx().api('/users', {
        method: 'PATCH',
        headers: adminHeaders,
        body: JSON.stringify({ query: { filter: { email: { _eq: user.email } } }, data: { status: 'suspended' } }),
      });
      expect(res.status).to.equal(200);
      await expectLockedOut(ctx, user, tokens);
    });

    it('a suspension after failed logins ends the sessions and the access token', async () => {
      await ctx().server.db('svc_settings').update({ auth_login_attempts: 2 });
      try {
        const user = await createAppUser();
        const tokens = await login(ctx().api, user);
        for (let i = 0; i < 2; i++)
          expect((await postJson(ctx().api, '/auth/login', { email: user.email, password: 'wrong' })).status).to.equal(
            401,
          );
        await expectLockedOut(ctx, user, tokens);
      } finally {
        await ctx().server.db('svc_settings').update({ auth_login_attempts: 25 });
      }
    });

    it('a password changed by an admin ends every session: the refresh token is refused', async () => {
      const user = await createAppUser();
      const tokens = await login(ctx().api, user);
      await adminWrite(ctx().api, 'PATCH', `/users/${user.id}`, { password: 'a-new-password-1' });
      expect(await sessionsOf(ctx().server.db, user.id)).to.deep.equal([]);
      await expectOnlyError(
        await postJson(ctx().api, '/auth/refresh', { refresh_token: tokens.refresh }),
        401,
        'INVALID_CREDENTIALS',
      );
      await expectOnlyError(
        await ctx().api('/users/me', { headers: { Cookie: `svc_session_token=${tokens.session}` } }),
        401,
        'INVALID_CREDENTIALS',
      );
      // The new password logs in.
      expect(
        (await postJson(ctx().api, '/auth/login', { email: user.email, password: 'a-new-password-1' })).status,
      ).to.equal(200);
    });

    it('a password the user changes, through /users/me or GraphQL, ends their sessions', async () => {
      const role = await createRole(ctx().server.db, { admin_access: true });
      const user = await createUser(ctx().server.db, { role });
      let tokens = await login(ctx().api, user);
      const rest = await ctx().api('/users/me', {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${tokens.access}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ password: 'changed-by-me-1' }),
      });
      expect(rest.status).to.equal(200);
      expect(await sessionsOf(ctx().server.db, user.id)).to.deep.equal([]);
      await expectOnlyError(
        await postJson(ctx().api, '/auth/refresh', { refresh_token: tokens.refresh }),
        401,
        'INVALID_CREDENTIALS',
      );

      tokens = await login(ctx().api, { ...user, password: 'changed-by-me-1' });
      const gql = await ctx().api('/graphql/system', {
        method: 'POST',
        headers: { Authorization: `Bearer ${tokens.access}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: 'mutation { update_users_me(data: { password: "changed-again-2" }) { id } }' }),
      });
      expect(await gql.json()).to.deep.equal({ data: { update_users_me: { id: user.id } } });
      expect(await sessionsOf(ctx().server.db, user.id)).to.deep.equal([]);
      await expectOnlyError(
        await postJson(ctx().api, '/auth/refresh', { refresh_token: tokens.refresh }),
        401,
        'INVALID_CREDENTIALS',
      );
    });

    it('writes that keep the user active and the password as it was keep the sessions', async () => {
      const user = await createAppUser();
      const tokens = await login(ctx().api, user);
      await adminWrite(ctx().api, 'PATCH', `/users/${user.id}`, { first_name: 'Still', status: 'active' });
      expect(await sessionsOf(ctx().server.db, user.id)).to.have.length(2);
      await expectUsable(ctx().api, user, tokens);
      expect((await postJson(ctx().api, '/auth/refresh', { refresh_token: tokens.refresh })).status).to.equal(200);
    });

    it("permissions follow the user's current role and its flags, not the token's claims", async () => {
      const adminRole = await createRole(ctx().server.db, { admin_access: true });
      const user = await createUser(ctx().server.db, { role: adminRole });
      const { access } = await login(ctx().api, user);
      const settings = async () => (await ctx().api('/items/svc_settings', bearer(access))).status;
      expect(await settings()).to.equal(200);
      // Demoted: the role loses admin access; the token still claims it.
      await adminWrite(ctx().api, 'PATCH', `/roles/${adminRole}`, { admin_access: false, app_access: false });
      expect(await settings()).to.equal(403);
      // Moved to an admin role; then to no role at all (public).
      const other = await createRole(ctx().server.db, { admin_access: true });
      await adminWrite(ctx().api, 'PATCH', `/users/${user.id}`, { role: other });
      expect(await settings()).to.equal(200);
      await adminWrite(ctx().api, 'PATCH', `/users/${user.id}`, { role: null });
      expect(await settings()).to.equal(403);
      // The new role's ip_access applies too.
      await adminWrite(ctx().api, 'PATCH', `/roles/${other}`, { ip_access: ['203.0.113.1'] });
      await adminWrite(ctx().api, 'PATCH', `/users/${user.id}`, { role: other });
      await expectOnlyError(await ctx().api('/items/svc_settings', bearer(access)), 401, 'INVALID_IP');
    });

    it('a change made outside the service (SQL) ends JWTs and static tokens within AUTH_USER_CACHE_TTL (1s)', async () => {
      const user = await createUser(ctx().server.db, { role: appRole, token: `sql-suspended-${appRole}` });
      const { access } = await login(ctx().api, user);
      const tokens = [access, `sql-suspended-${appRole}`];
      for (const token of tokens) expect((await me(ctx().api, token)).status).to.equal(200);
      await ctx().server.db('svc_users').where('id', user.id).update({ status: 'suspended' });
      const changedAt = Date.now();
      const statuses = async () => Promise.all(tokens.map(async (token) => (await me(ctx().api, token)).status));
      let now = await statuses();
      while (now.includes(200) && Date.now() - changedAt < 3000) {
        await sleep(50);
        now = await statuses();
      }
      expect(now).to.deep.equal([401, 401]);
      expect(Date.now() - changedAt).to.be.below(2000);
    });
  },
  { env: FAST },
);

/** Counts the reads of a user by id (the svc_users query authentication runs) on `db`. */
function countUserReads(db: Knex, id: string) {
  let count = 0;
  const onQuery = (query: { sql: string; bindings?: readonly unknown[] }) => {
    if (
      /from [`"]svc_users[`"] left join .* [`"]svc_users[`"]\.[`"]id[`"] = /.test(query.sql) &&
      query.bindings?.includes(id) === true
    )
      count += 1;
  };
  db.on('query', onQuery);
  return { count: () => count, stop: () => db.off('query', onQuery) };
}

// A cache lifetime far past the tests' bounds: only an invalidation can end a token in time.
const LONG_CACHE = { ...FAST, AUTH_USER_CACHE_TTL: '10m' };

describeEachDatabase(
  "a token's user is read once per AUTH_USER_CACHE_TTL, and forgotten when it changes",
  (ctx) => {
    const createAppUser = async () =>
      createUser(ctx().server.db, { role: await createRole(ctx().server.db, { app_access: true }) });

    it('many requests with one token read the user once', async () => {
      const user = await createAppUser();
      const { access } = await login(ctx().api, user);
      const reads = countUserReads(ctx().server.db, user.id);
      try {
        for (let i = 0; i < 5; i++) expect((await me(ctx().api, access)).status).to.equal(200);
        expect(reads.count()).to.equal(1);
      } finally {
        reads.stop();
      }
    });

    it('a suspension through the service ends the cached token at once', async () => {
      const user = await createAppUser();
      const tokens = await login(ctx().api, user);
      await expectUsable(ctx().api, user, tokens);
      await adminWrite(ctx().api, 'PATCH', `/users/${user.id}`, { status: 'suspended' });
      await expectLockedOut(ctx, user, tokens);
    });
  },
  { targets: [sqliteTarget], env: LONG_CACHE },
);

describeEachDatabase(
  'access tokens across instances sharing Redis',
  (ctx) => {
    before(async function () {
      requireOrSkip(this, await redisUnavailable());
    });

    it('a suspension written on one instance ends the access token on the other within 2 s', async () => {
      const second = await startServer(testConfig(ctx().database, ctx().env), {
        logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
      });
      try {
        const other: Api = (path, init) => fetch(second.url + path, init);
        const user = await createUser(ctx().server.db, {
          role: await createRole(ctx().server.db, { app_access: true }),
        });
        const { access } = await login(ctx().api, user);
        expect((await me(other, access)).status).to.equal(200);
        await adminWrite(ctx().api, 'PATCH', `/users/${user.id}`, { status: 'suspended' });
        const suspendedAt = Date.now();
        let status = 200;
        while (status === 200 && Date.now() - suspendedAt < 2000) {
          status = (await me(other, access)).status;
          if (status === 200) await sleep(20);
        }
        expect(status).to.equal(401);
        await expectOnlyError(await graphqlMe(other, bearer(access)), 401, 'INVALID_CREDENTIALS');
      } finally {
        await second.close();
      }
    });
  },
  { env: () => ({ ...LONG_CACHE, REDIS: TEST_REDIS_URL }) },
);
