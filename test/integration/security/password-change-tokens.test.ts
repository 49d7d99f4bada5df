import { expect } from 'chai';
import { createHash } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli } from '../../support/service-process.js';
import { createUser, expectOnlyError, postJson, type TestUser } from '../auth/helpers.js';

/*
 * Issue 36, item 6: a password change, through the API, a reset or the command line's
 * `users passwd` (the tool for a taken account), ends the user's sessions (the old refresh token
 * no longer refreshes) and the access tokens signed before it (refused at once, as after a
 * suspension; the command line, outside the service, within AUTH_USER_CACHE_TTL).
 */

const SECRET = 'test-secret';

interface Tokens {
  readonly access_token: string;
  readonly refresh_token: string;
}

describeEachDatabase(
  'a password change ends sessions and access tokens',
  (ctx) => {
    async function signIn(user: TestUser, password = user.password): Promise<Tokens> {
      const res = await postJson(ctx().api, '/auth/login', { email: user.email, password });
      const body = (await res.json()) as { data: Tokens };
      expect(res.status, JSON.stringify(body)).to.equal(200);
      return body.data;
    }

    const me = (token: string) => ctx().api('/users/me', { headers: { Authorization: `Bearer ${token}` } });
    const refresh = (token: string) => postJson(ctx().api, '/auth/refresh', { refresh_token: token, mode: 'json' });
    const sessionsOf = async (id: string) => ctx().server.db('svc_sessions').where('user', id).select('token');

    /** The user's old tokens are dead, the new password works, and nothing else was left behind. */
    async function expectOldTokensDead(user: TestUser, old: Tokens, newPassword: string): Promise<void> {
      await expectOnlyError(await me(old.access_token), 401, 'INVALID_CREDENTIALS');
      await expectOnlyError(await refresh(old.refresh_token), 401, 'INVALID_CREDENTIALS');
      expect(await sessionsOf(user.id)).to.deep.equal([]);
      await expectOnlyError(
        await postJson(ctx().api, '/auth/login', { email: user.email, password: user.password }),
        401,
        'INVALID_CREDENTIALS',
      );
      const fresh = await signIn(user, newPassword);
      expect((await me(fresh.access_token)).status).to.equal(200);
    }

    it('an administrator sets the password (PATCH /users/:id): the old access token is refused at once', async () => {
      const user = await createUser(ctx().server.db);
      const old = await signIn(user);
      expect((await me(old.access_token)).status).to.equal(200);
      const res = await ctx().api(`/users/${user.id}`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ password: 'a-new-password-1' }),
      });
      expect(res.status).to.equal(200);
      await expectOldTokensDead(user, old, 'a-new-password-1');
    });

    it('the user sets their own password (PATCH /users/me): the token that did it is spent too', async () => {
      // A user allowed to update themselves: an administrator (a second one).
      const admin = await ctx().server.db('svc_users').where('email', TEST_ADMIN.email).first<{ role: string }>('role');
      const user = await createUser(ctx().server.db, { role: admin.role });
      const old = await signIn(user);
      const res = await ctx().api('/users/me', {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${old.access_token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ password: 'a-new-password-2' }),
      });
      expect(res.status).to.equal(200);
      await expectOldTokensDead(user, old, 'a-new-password-2');
    });

    it('a password reset (POST /auth/password/reset): the old access token is refused at once', async () => {
      const user = await createUser(ctx().server.db);
      const old = await signIn(user);
      const row = await ctx().server.db('svc_users').where('id', user.id).first<{ password: string }>('password');
      const hash = createHash('sha256').update(row.password).digest('hex');
      const token = jwt.sign({ email: user.email, scope: 'password-reset', hash }, SECRET, {
        issuer: 'svc',
        expiresIn: 60,
      });
      const res = await postJson(ctx().api, '/auth/password/reset', { token, password: 'a-new-password-3' });
      expect(res.status).to.be.oneOf([200, 204]);
      await expectOldTokensDead(user, old, 'a-new-password-3');
    });

    it('the command line (users passwd): the old refresh token no longer refreshes, the old access token dies', async function () {
      this.timeout(PROCESS_TEST_TIMEOUT_MS);
      const user = await createUser(ctx().server.db);
      const old = await signIn(user);
      const other = await signIn(await createUser(ctx().server.db));
      const result = await runCli(
        ['users', 'passwd', '--email', user.email, '--password', 'a-new-password-4'],
        ctx().database.env,
      );
      expect(result.code, result.stderr).to.equal(0);
      // The service hears of a write outside it within AUTH_USER_CACHE_TTL (1s): wait for that.
      const deadline = Date.now() + 10_000;
      while ((await me(old.access_token)).status === 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await expectOldTokensDead(user, old, 'a-new-password-4');
      // Another user's session is untouched.
      expect((await me(other.access_token)).status).to.equal(200);
      expect((await refresh(other.refresh_token)).status).to.equal(200);
    });

    it('tokens signed before stay good when nothing about the password changed (control)', async () => {
      const user = await createUser(ctx().server.db);
      const old = await signIn(user);
      const res = await ctx().api(`/users/${user.id}`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ first_name: 'Renamed' }),
      });
      expect(res.status).to.equal(200);
      expect((await me(old.access_token)).status).to.equal(200);
      expect((await refresh(old.refresh_token)).status).to.equal(200);
    });
  },
  { env: { LOGIN_STALL_TIME: '0' } },
);
