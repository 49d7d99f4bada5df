import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { describeEachDatabase } from '../../support/server.js';
import {
  cookieNamed,
  createRole,
  createUser,
  dbTimestamp,
  expectOnlyError,
  fromDbTimestamp,
  isAuthenticated,
  jwtPayload,
  postJson,
  setCookies,
  type TestUser,
} from './helpers.js';

interface JsonTokens {
  access_token: string;
  expires: number;
  refresh_token: string;
}

describeEachDatabase(
  'POST /auth/refresh and /auth/logout',
  (ctx) => {
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      postJson(ctx().api, path, body, headers);

    async function loginJson(user: TestUser): Promise<JsonTokens> {
      const res = await post('/auth/login', { email: user.email, password: user.password });
      expect(res.status).to.equal(200);
      return ((await res.json()) as { data: JsonTokens }).data;
    }

    async function loginCookie(user: TestUser): Promise<string> {
      const res = await post('/auth/login', { email: user.email, password: user.password, mode: 'cookie' });
      expect(res.status).to.equal(200);
      return cookieNamed(res, 'svc_refresh_token').value;
    }

    async function loginSession(user: TestUser): Promise<string> {
      const res = await post('/auth/login', { email: user.email, password: user.password, mode: 'session' });
      expect(res.status).to.equal(200);
      return cookieNamed(res, 'svc_session_token').value;
    }

    describe('json mode', () => {
      it('rotates the refresh token and answers a new token pair', async () => {
        const user = await createUser(ctx().server.db);
        const first = await loginJson(user);
        const res = await post('/auth/refresh', { refresh_token: first.refresh_token });
        expect(res.status).to.equal(200);
        const { data } = (await res.json()) as { data: JsonTokens };
        expect(Object.keys(data).sort()).to.deep.equal(['access_token', 'expires', 'refresh_token']);
        expect(data.expires).to.equal(900000);
        expect(data.refresh_token)
          .to.match(/^[A-Za-z0-9_-]{64}$/)
          .and.not.equal(first.refresh_token);
        expect(jwtPayload(data.access_token)['id']).to.equal(user.id);
        expect(
          await isAuthenticated(ctx().api, { headers: { Authorization: `Bearer ${data.access_token}` } }),
        ).to.equal(true);
        const sessions = await ctx().server.db('svc_sessions').where('user', user.id).select('token');
        expect(sessions.map((s: { token: string }) => s.token)).to.deep.equal([data.refresh_token]);
      });

      it('the old refresh token is dead after rotation (reuse is INVALID_CREDENTIALS, nothing leaked)', async () => {
        const user = await createUser(ctx().server.db);
        const first = await loginJson(user);
        expect((await post('/auth/refresh', { refresh_token: first.refresh_token })).status).to.equal(200);
        await expectOnlyError(
          await post('/auth/refresh', { refresh_token: first.refresh_token }),
          401,
          'INVALID_CREDENTIALS',
        );
      });

      it('of two concurrent refreshes with one token, exactly one wins', async () => {
        const user = await createUser(ctx().server.db);
        const first = await loginJson(user);
        const results = await Promise.all(
          [1, 2, 3].map(() => post('/auth/refresh', { refresh_token: first.refresh_token })),
        );
        expect(results.map((r) => r.status).sort()).to.deep.equal([200, 401, 401]);
      });

      it('takes role changes into the new access token', async () => {
        const user = await createUser(ctx().server.db, { role: await createRole(ctx().server.db) });
        const first = await loginJson(user);
        expect(jwtPayload(first.access_token)['admin_access']).to.equal(false);
        const adminRole = await createRole(ctx().server.db, { admin_access: true });
        await ctx().server.db('svc_users').where('id', user.id).update({ role: adminRole });
        const res = await post('/auth/refresh', { refresh_token: first.refresh_token });
        const { data } = (await res.json()) as { data: JsonTokens };
        expect(jwtPayload(data.access_token)).to.include({ role: adminRole, admin_access: true });
      });

      it('an unknown or expired refresh token is 401 INVALID_CREDENTIALS', async () => {
        await expectOnlyError(
          await post('/auth/refresh', { refresh_token: 'y'.repeat(64) }),
          401,
          'INVALID_CREDENTIALS',
        );
        const user = await createUser(ctx().server.db);
        const first = await loginJson(user);
        await ctx()
          .server.db('svc_sessions')
          .where('token', first.refresh_token)
          .update({ expires: dbTimestamp(ctx().server.db, new Date(Date.now() - 1000)) });
        await expectOnlyError(
          await post('/auth/refresh', { refresh_token: first.refresh_token }),
          401,
          'INVALID_CREDENTIALS',
        );
      });

      it('a suspended user gets USER_SUSPENDED and loses the session; other inactive users INVALID_CREDENTIALS', async () => {
        for (const [status, code] of [
          ['suspended', 'USER_SUSPENDED'],
          ['archived', 'INVALID_CREDENTIALS'],
        ] as const) {
          const user = await createUser(ctx().server.db);
          const first = await loginJson(user);
          await ctx().server.db('svc_users').where('id', user.id).update({ status });
          const error = await expectOnlyError(
            await post('/auth/refresh', { refresh_token: first.refresh_token }),
            401,
            code,
          );
          if (code === 'USER_SUSPENDED') expect(error.errors[0]?.message).to.equal('User suspended.');
          expect(await ctx().server.db('svc_sessions').where('user', user.id)).to.have.length(0);
        }
      });

      it('updates last_access', async () => {
        const user = await createUser(ctx().server.db);
        const first = await loginJson(user);
        await ctx().server.db('svc_users').where('id', user.id).update({ last_access: null });
        expect((await post('/auth/refresh', { refresh_token: first.refresh_token })).status).to.equal(200);
        const row = await ctx().server.db('svc_users').where('id', user.id).first('last_access');
        expect(row.last_access).to.not.equal(null);
      });

      it('without any token is 400 INVALID_PAYLOAD', async () => {
        for (const body of [{}, { mode: 'json' }, { mode: 'cookie' }, { mode: 'session' }, { refresh_token: '' }]) {
          const error = await expectOnlyError(await post('/auth/refresh', body), 400, 'INVALID_PAYLOAD');
          expect(error.errors[0]?.extensions['reason']).to.equal(
            'The refresh token is required in either the payload or cookie',
          );
        }
        const bad = await expectOnlyError(await post('/auth/refresh', { mode: 'other' }), 400, 'INVALID_PAYLOAD');
        expect(bad.errors[0]?.extensions['reason']).to.equal('"mode" must be one of [json, cookie, session]');
      });

      it('logout deletes the session; refresh-token reuse after logout is INVALID_CREDENTIALS', async () => {
        const user = await createUser(ctx().server.db);
        const first = await loginJson(user);
        const res = await post('/auth/logout', { refresh_token: first.refresh_token });
        expect(res.status).to.equal(204);
        expect(await res.text()).to.equal('');
        expect(await ctx().server.db('svc_sessions').where('user', user.id)).to.have.length(0);
        await expectOnlyError(
          await post('/auth/refresh', { refresh_token: first.refresh_token }),
          401,
          'INVALID_CREDENTIALS',
        );
      });

      it('logout with an unknown token still answers 204', async () => {
        expect((await post('/auth/logout', { refresh_token: 'z'.repeat(64) })).status).to.equal(204);
      });

      it('logout without any token is 400 INVALID_PAYLOAD', async () => {
        await expectOnlyError(await post('/auth/logout', {}), 400, 'INVALID_PAYLOAD');
      });
    });

    describe('cookie mode', () => {
      it('an empty body refreshes from the refresh cookie and sets the rotated one (SDK cookie mode)', async () => {
        const user = await createUser(ctx().server.db);
        const token = await loginCookie(user);
        const res = await ctx().api('/auth/refresh', {
          method: 'POST',
          headers: { Cookie: `svc_refresh_token=${token}` },
        });
        expect(res.status).to.equal(200);
        const { data } = (await res.json()) as { data: Record<string, unknown> };
        expect(Object.keys(data).sort()).to.deep.equal(['access_token', 'expires']);
        const cookie = cookieNamed(res, 'svc_refresh_token');
        expect(cookie.value)
          .to.match(/^[A-Za-z0-9_-]{64}$/)
          .and.not.equal(token);
        expect(cookie.attributes).to.include({
          'max-age': '604800',
          httponly: '',
          secure: '',
          samesite: 'Lax',
          path: '/',
        });
        const reuse = await ctx().api('/auth/refresh', {
          method: 'POST',
          headers: { Cookie: `svc_refresh_token=${token}` },
        });
        await expectOnlyError(reuse, 401, 'INVALID_CREDENTIALS');
      });

      it('logout deletes the session and clears both cookies', async () => {
        const user = await createUser(ctx().server.db);
        const token = await loginCookie(user);
        const res = await post('/auth/logout', { mode: 'cookie' }, { Cookie: `svc_refresh_token=${token}` });
        expect(res.status).to.equal(204);
        const cleared = setCookies(res);
        expect(cleared.map((c) => c.name).sort()).to.deep.equal(['svc_refresh_token', 'svc_session_token']);
        for (const c of cleared) {
          expect(c.value).to.equal('');
          expect(new Date(c.attributes['expires'] ?? '').getTime()).to.be.lessThan(Date.now());
        }
        expect(await ctx().server.db('svc_sessions').where('user', user.id)).to.have.length(0);
        const reuse = await ctx().api('/auth/refresh', {
          method: 'POST',
          headers: { Cookie: `svc_refresh_token=${token}` },
        });
        await expectOnlyError(reuse, 401, 'INVALID_CREDENTIALS');
      });
    });

    describe('session mode', () => {
      it('the session cookie authenticates requests; refresh issues a new session cookie', async () => {
        const user = await createUser(ctx().server.db);
        const cookie = await loginSession(user);
        const res = await post('/auth/refresh', { mode: 'session' }, { Cookie: `svc_session_token=${cookie}` });
        expect(res.status).to.equal(200);
        expect(await res.json()).to.deep.equal({ data: { expires: 900000 } });
        const next = cookieNamed(res, 'svc_session_token').value;
        expect(jwtPayload(next)['session']).to.not.equal(jwtPayload(cookie)['session']);
        expect(await isAuthenticated(ctx().api, { headers: { Cookie: `svc_session_token=${next}` } })).to.equal(true);
      });

      it('the previous session keeps working during SESSION_REFRESH_GRACE_PERIOD and refreshes to the same successor', async () => {
        const user = await createUser(ctx().server.db);
        const cookie = await loginSession(user);
        const refreshOnce = async () => {
          const res = await post('/auth/refresh', { mode: 'session' }, { Cookie: `svc_session_token=${cookie}` });
          expect(res.status).to.equal(200);
          return jwtPayload(cookieNamed(res, 'svc_session_token').value)['session'];
        };
        const [a, b] = [await refreshOnce(), await refreshOnce()];
        expect(a).to.equal(b);
        expect(await isAuthenticated(ctx().api, { headers: { Cookie: `svc_session_token=${cookie}` } })).to.equal(true);
        const old = await ctx()
          .server.db('svc_sessions')
          .where('token', jwtPayload(cookie)['session'] as string)
          .first();
        expect(fromDbTimestamp(old.expires).getTime()).to.be.at.most(Date.now() + 10_000 + 1000);
      });

      it('after logout the session cookie is refused (INVALID_CREDENTIALS) and cannot refresh', async () => {
        const user = await createUser(ctx().server.db);
        const cookie = await loginSession(user);
        const res = await post('/auth/logout', { mode: 'session' }, { Cookie: `svc_session_token=${cookie}` });
        expect(res.status).to.equal(204);
        expect(await ctx().server.db('svc_sessions').where('user', user.id)).to.have.length(0);
        await expectOnlyError(
          await ctx().api('/server/info', { headers: { Cookie: `svc_session_token=${cookie}` } }),
          401,
          'INVALID_CREDENTIALS',
        );
        await expectOnlyError(
          await post('/auth/refresh', { mode: 'session' }, { Cookie: `svc_session_token=${cookie}` }),
          401,
          'INVALID_CREDENTIALS',
        );
      });

      it('logout clears a session cookie that no longer verifies (another SECRET): 204, not a cookie stuck at 403', async () => {
        const user = await createUser(ctx().server.db);
        const { id, role, app_access, admin_access, session } = jwtPayload(await loginSession(user));
        const claims = { id, role, app_access, admin_access, session };
        const stale = jwt.sign(claims, 'a-former-secret', { issuer: 'svc', expiresIn: 60 });
        const headers = { Cookie: `svc_session_token=${stale}` };
        await expectOnlyError(await ctx().api('/server/info', { headers }), 403, 'INVALID_TOKEN');
        const res = await post('/auth/logout', { mode: 'session' }, headers);
        expect(res.status).to.equal(204);
        const cleared = cookieNamed(res, 'svc_session_token');
        expect(cleared.value).to.equal('');
        expect(cleared.attributes['expires']).to.equal('Thu, 01 Jan 1970 00:00:00 GMT');
        // The session signed with the right SECRET is not this cookie's to end.
        expect(await ctx().server.db('svc_sessions').where('user', user.id)).to.have.length(1);
      });

      it('a bearer token or access_token parameter wins over the session cookie', async () => {
        const user = await createUser(ctx().server.db, { token: `static-session-${Date.now()}` });
        const row = await ctx().server.db('svc_users').where('id', user.id).first('token');
        const headers = {
          Cookie: 'svc_session_token=not-a-valid-token',
          Authorization: `Bearer ${row.token as string}`,
        };
        expect(await isAuthenticated(ctx().api, { headers })).to.equal(true);
      });
    });
  },
  { env: { LOGIN_STALL_TIME: '0' } },
);
