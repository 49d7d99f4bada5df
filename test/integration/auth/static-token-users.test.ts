import { expect } from 'chai';
import type { Knex } from 'knex';
import { UserLookups } from '../../../src/auth/user-lookups.js';
import { createLogger } from '../../../src/logger/index.js';
import { startServer } from '../../../src/server.js';
import { TEST_ADMIN, describeEachDatabase, testConfig } from '../../support/server.js';
import { redisUnavailable, requireOrSkip, TEST_REDIS_URL } from '../../support/services.js';
import { createRole, createUser, expectOnlyError, postJson } from './helpers.js';

type Api = (path: string, init?: RequestInit) => Promise<Response>;

const FAST = { LOGIN_STALL_TIME: '0' };
const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

/** Counts the static token lookups (the svc_users query by token) run on `db`. */
function countTokenLookups(db: Knex) {
  let count = 0;
  const onQuery = (query: { sql: string }) => {
    if (/from [`"]svc_users[`"] left join .* [`"]svc_users[`"]\.[`"]token[`"] = /.test(query.sql)) count += 1;
  };
  db.on('query', onQuery);
  return { count: () => count, stop: () => db.off('query', onQuery) };
}

async function adminWrite(api: Api, method: string, path: string, body: unknown): Promise<void> {
  const res = await api(path, {
    method,
    headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.text()).to.be.oneOf([200, 204]);
}

/** Reading svc_settings: 200 for admins, 403 for a role without permissions, 401 for a refused token. */
const settingsStatus = async (api: Api, token: string) => (await api('/items/svc_settings', bearer(token))).status;

describeEachDatabase(
  'static tokens: remembered per instance, forgotten when users or roles change',
  (ctx) => {
    it('a token is looked up once, then answered from memory', async () => {
      const user = await createUser(ctx().server.db, { token: 'remembered-token' });
      const lookups = countTokenLookups(ctx().server.db);
      try {
        for (let i = 0; i < 3; i++) expect(await settingsStatus(ctx().api, 'remembered-token')).to.equal(403);
        expect(lookups.count()).to.equal(1);
      } finally {
        lookups.stop();
      }
      expect(user.id).to.be.a('string');
    });

    it('a user suspended through the API loses the token at the next request', async () => {
      const user = await createUser(ctx().server.db, { token: 'soon-suspended' });
      expect(await settingsStatus(ctx().api, 'soon-suspended')).to.equal(403);
      await adminWrite(ctx().api, 'PATCH', `/users/${user.id}`, { status: 'suspended' });
      await expectOnlyError(
        await ctx().api('/items/svc_settings', bearer('soon-suspended')),
        401,
        'INVALID_CREDENTIALS',
      );
    });

    it('a replaced token stops working and the new one works', async () => {
      const user = await createUser(ctx().server.db, { token: 'old-token' });
      expect(await settingsStatus(ctx().api, 'old-token')).to.equal(403);
      await adminWrite(ctx().api, 'PATCH', `/users/${user.id}`, { token: 'new-token' });
      expect(await settingsStatus(ctx().api, 'old-token')).to.equal(401);
      expect(await settingsStatus(ctx().api, 'new-token')).to.equal(403);
    });

    it("a role's admin access, and a user's role, changed through the API apply to the next request", async () => {
      const role = await createRole(ctx().server.db, { app_access: false });
      const user = await createUser(ctx().server.db, { role, token: 'role-token' });
      expect(await settingsStatus(ctx().api, 'role-token')).to.equal(403);
      await adminWrite(ctx().api, 'PATCH', `/roles/${role}`, { admin_access: true });
      expect(await settingsStatus(ctx().api, 'role-token')).to.equal(200);
      const plain = await createRole(ctx().server.db, { app_access: false });
      await adminWrite(ctx().api, 'PATCH', `/users/${user.id}`, { role: plain });
      expect(await settingsStatus(ctx().api, 'role-token')).to.equal(403);
    });

    it('a suspension after failed logins ends the token too', async () => {
      await ctx().server.db('svc_settings').update({ auth_login_attempts: 2 });
      try {
        const user = await createUser(ctx().server.db, { token: 'failing-logins' });
        expect(await settingsStatus(ctx().api, 'failing-logins')).to.equal(403);
        for (let i = 0; i < 2; i++) {
          expect((await postJson(ctx().api, '/auth/login', { email: user.email, password: 'wrong' })).status).to.equal(
            401,
          );
        }
        expect(await settingsStatus(ctx().api, 'failing-logins')).to.equal(401);
      } finally {
        await ctx().server.db('svc_settings').update({ auth_login_attempts: 25 });
      }
    });

    it('/utils/cache/clear forgets users changed outside the service', async () => {
      const user = await createUser(ctx().server.db, { token: 'changed-in-sql' });
      expect(await settingsStatus(ctx().api, 'changed-in-sql')).to.equal(403);
      await ctx().server.db('svc_users').where('id', user.id).update({ status: 'archived' });
      await adminWrite(ctx().api, 'POST', '/utils/cache/clear', {});
      expect(await settingsStatus(ctx().api, 'changed-in-sql')).to.equal(401);
    });

    it('remembers at most maxEntries tokens, and no unknown ones', async () => {
      const db = ctx().server.db;
      const users = new UserLookups(db, { enabled: true, ttlMs: 60_000, maxEntries: 2 });
      for (const token of ['lru-a', 'lru-b', 'lru-c']) await createUser(db, { token });
      const lookups = countTokenLookups(db);
      try {
        expect((await users.userByStaticToken('lru-a'))?.id).to.be.a('string');
        await users.userByStaticToken('lru-b');
        await users.userByStaticToken('lru-a');
        expect(lookups.count()).to.equal(2);
        await users.userByStaticToken('lru-c'); // evicts lru-b, the least recently used
        await users.userByStaticToken('lru-a');
        expect(lookups.count()).to.equal(3);
        await users.userByStaticToken('lru-b');
        expect(lookups.count()).to.equal(4);
        expect(await users.userByStaticToken('nobody-has-this')).to.equal(undefined);
        expect(await users.userByStaticToken('nobody-has-this')).to.equal(undefined);
        expect(lookups.count()).to.equal(6);
      } finally {
        lookups.stop();
      }
    });

    it('users asked for by id together (a live delivery checking every token) are read in one query', async () => {
      const db = ctx().server.db;
      const users = new UserLookups(db, { enabled: true, ttlMs: 60_000 });
      const created = [await createUser(db, {}), await createUser(db, {}), await createUser(db, {})];
      let reads = 0;
      const onQuery = (query: { sql: string }) => {
        if (/from [`"]svc_users[`"]/.test(query.sql)) reads += 1;
      };
      db.on('query', onQuery);
      try {
        const ids = [...created.map((user) => user.id), created[0]?.id ?? '', '00000000-0000-4000-8000-000000000000'];
        const found = await Promise.all(ids.map((id) => users.userById(id)));
        expect(found.map((user) => user?.id)).to.deep.equal([...ids.slice(0, 4), undefined]);
        // One for the four asked together, one more for the id not found (looked up alone).
        expect(reads).to.equal(2);
        await users.userById(created[1]?.id ?? '');
        expect(reads).to.equal(2);
      } finally {
        db.off('query', onQuery);
      }
    });
  },
  { env: FAST },
);

// A cache lifetime far past the test's bound: only the Redis message can end the token in time.
const LONG_CACHE = { AUTH_USER_CACHE_TTL: '10m' };

describeEachDatabase(
  'static tokens across instances sharing Redis',
  (ctx) => {
    before(async function () {
      requireOrSkip(this, await redisUnavailable());
    });

    it('a suspension written on one instance ends the token on the other', async () => {
      const second = await startServer(testConfig(ctx().database, ctx().env), {
        logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
      });
      try {
        const api: Api = (path, init) => fetch(second.url + path, init);
        const user = await createUser(ctx().server.db, { token: 'shared-token' });
        expect(await settingsStatus(api, 'shared-token')).to.equal(403);
        await adminWrite(ctx().api, 'PATCH', `/users/${user.id}`, { status: 'suspended' });
        let status = 0;
        for (let attempt = 0; attempt < 50 && status !== 401; attempt++) {
          status = await settingsStatus(api, 'shared-token');
          if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(status).to.equal(401);
      } finally {
        await second.close();
      }
    });
  },
  { env: () => ({ ...FAST, ...LONG_CACHE, REDIS: TEST_REDIS_URL }) },
);
