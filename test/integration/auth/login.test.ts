import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
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
} from './helpers.js';

const FAST = { LOGIN_STALL_TIME: '0' };

describeEachDatabase(
  'POST /auth/login',
  (ctx) => {
    const login = (body: unknown, headers: Record<string, string> = {}) =>
      postJson(ctx().api, '/auth/login', body, headers);

    it('json mode returns access_token, expires in ms and refresh_token; the JWT carries the claims', async () => {
      const role = await createRole(ctx().server.db, { app_access: true });
      const user = await createUser(ctx().server.db, { role });
      const res = await login({ email: user.email, password: user.password });
      expect(res.status).to.equal(200);
      expect(res.headers.getSetCookie()).to.deep.equal([]);
      const { data } = (await res.json()) as { data: Record<string, unknown> };
      expect(Object.keys(data).sort()).to.deep.equal(['access_token', 'expires', 'refresh_token']);
      expect(data['expires']).to.equal(900000);
      expect(data['refresh_token']).to.match(/^[A-Za-z0-9_-]{64}$/);
      const jwtBody = jwt.verify(data['access_token'] as string, 'test-secret', { issuer: 'svc' }) as jwt.JwtPayload;
      expect(jwtBody).to.include({ id: user.id, role, app_access: true, admin_access: false });
      expect((jwtBody.exp ?? 0) - (jwtBody.iat ?? 0)).to.equal(900);
      expect(jwtBody).not.to.have.property('session');
      expect(
        await isAuthenticated(ctx().api, { headers: { Authorization: `Bearer ${data['access_token'] as string}` } }),
      ).to.equal(true);
      const session = await ctx()
        .server.db('svc_sessions')
        .where('token', data['refresh_token'] as string)
        .first();
      expect(session?.user).to.equal(user.id);
    });

    it('matches the e-mail case-insensitively', async () => {
      const user = await createUser(ctx().server.db, { email: 'mixed.case@example.com' });
      const res = await login({ email: 'Mixed.CASE@Example.com', password: user.password });
      expect(res.status).to.equal(200);
    });

    it('the admin logs in with an admin_access token', async () => {
      const res = await login({ email: TEST_ADMIN.email, password: TEST_ADMIN.password });
      const { data } = (await res.json()) as { data: { access_token: string } };
      expect(jwtPayload(data.access_token)).to.include({ admin_access: true, app_access: true });
    });

    it('cookie mode sets the refresh token as an HttpOnly, Secure, SameSite=Lax cookie and leaves it out of the body', async () => {
      const user = await createUser(ctx().server.db);
      const res = await login({ email: user.email, password: user.password, mode: 'cookie' });
      expect(res.status).to.equal(200);
      const { data } = (await res.json()) as { data: Record<string, unknown> };
      expect(Object.keys(data).sort()).to.deep.equal(['access_token', 'expires']);
      const cookie = cookieNamed(res, 'svc_refresh_token');
      expect(cookie.value).to.match(/^[A-Za-z0-9_-]{64}$/);
      expect(cookie.attributes).to.include({
        'max-age': '604800',
        path: '/',
        httponly: '',
        secure: '',
        samesite: 'Lax',
      });
      expect(cookie.attributes).to.have.property('expires');
      expect(cookie.attributes).not.to.have.property('domain');
      const session = await ctx().server.db('svc_sessions').where('token', cookie.value).first();
      expect(session?.user).to.equal(user.id);
    });

    it('session mode sets the access token as the session cookie and answers only expires', async () => {
      const user = await createUser(ctx().server.db);
      const res = await login({ email: user.email, password: user.password, mode: 'session' });
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ data: { expires: 900000 } });
      const cookie = cookieNamed(res, 'svc_session_token');
      expect(cookie.attributes).to.include({ 'max-age': '86400', path: '/', httponly: '', samesite: 'Lax' });
      expect(cookie.attributes).not.to.have.property('secure');
      const claims = jwtPayload(cookie.value);
      expect(claims['id']).to.equal(user.id);
      expect(claims['session']).to.match(/^[A-Za-z0-9_-]{64}$/);
      expect(await isAuthenticated(ctx().api, { headers: { Cookie: `svc_session_token=${cookie.value}` } })).to.equal(
        true,
      );
    });

    it('writes a login activity row and sets last_access', async () => {
      const user = await createUser(ctx().server.db);
      const before = Date.now() - 2000;
      const res = await login(
        { email: user.email, password: user.password },
        { 'User-Agent': 'auth-test/1.0', Origin: 'http://app.test' },
      );
      expect(res.status).to.equal(200);
      const rows = await ctx().server.db('svc_activity').where({ user: user.id });
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({
        action: 'login',
        collection: 'svc_users',
        item: user.id,
        user_agent: 'auth-test/1.0',
        origin: 'http://app.test',
      });
      expect(rows[0].ip).to.be.a('string').and.not.equal('');
      const row = await ctx().server.db('svc_users').where('id', user.id).first('last_access');
      expect(fromDbTimestamp(row.last_access).getTime()).to.be.greaterThan(before);
    });

    it('purges expired sessions on login', async () => {
      const user = await createUser(ctx().server.db);
      const db = ctx().server.db;
      await db('svc_sessions').insert({
        token: 'x'.repeat(64),
        user: user.id,
        expires: dbTimestamp(db, new Date(Date.now() - 1000)),
      });
      await db('svc_sessions').insert({
        token: 'w'.repeat(64),
        user: user.id,
        expires: dbTimestamp(db, new Date(Date.now() + 60_000)),
      });
      expect((await login({ email: user.email, password: user.password })).status).to.equal(200);
      expect(await db('svc_sessions').where('token', 'x'.repeat(64)).first()).to.equal(undefined);
      expect(await db('svc_sessions').where('token', 'w'.repeat(64)).first()).to.not.equal(undefined);
    });

    it('a wrong password is 401 INVALID_CREDENTIALS and opens no session', async () => {
      const user = await createUser(ctx().server.db);
      await expectOnlyError(await login({ email: user.email, password: 'wrong' }), 401, 'INVALID_CREDENTIALS');
      expect(await ctx().server.db('svc_sessions').where('user', user.id)).to.have.length(0);
      expect(await ctx().server.db('svc_activity').where('user', user.id)).to.have.length(0);
    });

    it('an unknown e-mail is 401 INVALID_CREDENTIALS, the same answer as a wrong password', async () => {
      const body = await expectOnlyError(
        await login({ email: 'nobody@example.com', password: 'x' }),
        401,
        'INVALID_CREDENTIALS',
      );
      expect(body.errors[0]?.message).to.equal('Invalid user credentials.');
    });

    for (const status of ['draft', 'invited', 'unverified', 'suspended', 'archived']) {
      it(`a ${status} user cannot log in with the right password (INVALID_CREDENTIALS)`, async () => {
        const user = await createUser(ctx().server.db, { status });
        await expectOnlyError(await login({ email: user.email, password: user.password }), 401, 'INVALID_CREDENTIALS');
      });
    }

    it('a user of another provider or without a password cannot log in by password', async () => {
      const sso = await createUser(ctx().server.db, { provider: 'github' });
      await expectOnlyError(await login({ email: sso.email, password: sso.password }), 401, 'INVALID_CREDENTIALS');
      const none = await createUser(ctx().server.db, { password: null });
      await expectOnlyError(await login({ email: none.email, password: 'anything' }), 401, 'INVALID_CREDENTIALS');
    });

    it('validates the body: 400 INVALID_PAYLOAD naming the key', async () => {
      const cases: [unknown, string][] = [
        [{ password: 'x' }, '"email" is required'],
        [{ email: 'not-an-email', password: 'x' }, '"email" must be a valid email'],
        [{ email: 42, password: 'x' }, '"email" must be a valid email'],
        [{ email: 'a@example.com' }, '"password" is required'],
        [{ email: 'a@example.com', password: 5 }, '"password" must be a string'],
        [{ email: 'a@example.com', password: 'x', mode: 'jwt' }, '"mode" must be one of [json, cookie, session]'],
        [{ email: 'a@example.com', password: 'x', otp: 123456 }, '"otp" must be a string'],
        [[], '"value" must be of type object'],
      ];
      for (const [body, reason] of cases) {
        const res = await login(body);
        const error = await expectOnlyError(res, 400, 'INVALID_PAYLOAD');
        expect(error.errors[0]?.extensions['reason'], JSON.stringify(body)).to.equal(reason);
      }
    });

    it('works with a stale or invalid Authorization header (auth routes ignore tokens)', async () => {
      const user = await createUser(ctx().server.db);
      const res = await login(
        { email: user.email, password: user.password },
        { Authorization: 'Bearer garbage.token.here' },
      );
      expect(res.status).to.equal(200);
    });
  },
  { env: FAST },
);

describeEachDatabase(
  'login attempts (settings.auth_login_attempts)',
  (ctx) => {
    const login = (body: unknown) => postJson(ctx().api, '/auth/login', body);

    before(async () => {
      await ctx().server.db('svc_settings').update({ auth_login_attempts: 3 });
    });

    it('suspends the user after that many consecutive failures; the right password then fails', async () => {
      const user = await createUser(ctx().server.db);
      for (let i = 0; i < 3; i++) {
        await expectOnlyError(await login({ email: user.email, password: 'wrong' }), 401, 'INVALID_CREDENTIALS');
      }
      const row = await ctx().server.db('svc_users').where('id', user.id).first('status');
      expect(row.status).to.equal('suspended');
      await expectOnlyError(await login({ email: user.email, password: user.password }), 401, 'INVALID_CREDENTIALS');
    });

    it('a success resets the run of failures', async () => {
      const user = await createUser(ctx().server.db);
      for (let i = 0; i < 2; i++) await login({ email: user.email, password: 'wrong' });
      expect((await login({ email: user.email, password: user.password })).status).to.equal(200);
      for (let i = 0; i < 2; i++) await login({ email: user.email, password: 'wrong' });
      const row = await ctx().server.db('svc_users').where('id', user.id).first('status');
      expect(row.status).to.equal('active');
    });

    it("one user's failures do not suspend another", async () => {
      const victim = await createUser(ctx().server.db);
      const other = await createUser(ctx().server.db);
      for (let i = 0; i < 3; i++) await login({ email: victim.email, password: 'wrong' });
      expect((await login({ email: other.email, password: other.password })).status).to.equal(200);
    });

    it('holds the last active administrator (429) instead of suspending them (README, Security notes)', async () => {
      const db = ctx().server.db;
      const admin = await db('svc_users').where('email', TEST_ADMIN.email).first<{ id: string }>('id');
      for (let i = 0; i < 3; i++) {
        await expectOnlyError(await login({ email: TEST_ADMIN.email, password: 'wrong' }), 401, 'INVALID_CREDENTIALS');
      }
      expect((await db('svc_users').where('id', admin.id).first('status')).status).to.equal('active');
      // No more guesses for the window, the right password included; the account itself works.
      const held = await login({ email: TEST_ADMIN.email, password: TEST_ADMIN.password });
      const error = await expectOnlyError(held, 429, 'REQUESTS_EXCEEDED');
      expect(error.errors[0]?.extensions['limit']).to.equal(3);
      expect(Number(held.headers.get('retry-after'))).to.be.within(800, 900);
      const me = await ctx().api('/users/me', { headers: { Authorization: `Bearer ${TEST_ADMIN.token}` } });
      expect(me.status).to.equal(200);
    });

    it('null turns the limit off', async () => {
      await ctx().server.db('svc_settings').update({ auth_login_attempts: null });
      try {
        const user = await createUser(ctx().server.db);
        for (let i = 0; i < 4; i++) await login({ email: user.email, password: 'wrong' });
        const row = await ctx().server.db('svc_users').where('id', user.id).first('status');
        expect(row.status).to.equal('active');
      } finally {
        await ctx().server.db('svc_settings').update({ auth_login_attempts: 3 });
      }
    });
  },
  { env: FAST },
);

describeEachDatabase(
  'LOGIN_STALL_TIME',
  (ctx) => {
    it('failures take at least LOGIN_STALL_TIME, whichever check failed', async () => {
      const user = await createUser(ctx().server.db);
      for (const body of [
        { email: 'nobody@example.com', password: 'x' },
        { email: user.email, password: 'wrong' },
      ]) {
        const started = performance.now();
        const res = await postJson(ctx().api, '/auth/login', body);
        expect(res.status).to.equal(401);
        expect(performance.now() - started).to.be.at.least(300);
      }
    });
  },
  { env: { LOGIN_STALL_TIME: '300' } },
);

describeEachDatabase(
  'role ip_access (INVALID_IP)',
  (ctx) => {
    const fromIp = (ip: string, headers: Record<string, string> = {}) => ({ 'X-Forwarded-For': ip, ...headers });

    it('refuses a login from outside the list and accepts one from inside (CIDR)', async () => {
      const role = await createRole(ctx().server.db, { ip_access: '10.0.0.0/8,192.168.1.7' });
      const user = await createUser(ctx().server.db, { role });
      const outside = await postJson(
        ctx().api,
        '/auth/login',
        { email: user.email, password: user.password },
        fromIp('11.0.0.1'),
      );
      const error = await expectOnlyError(outside, 401, 'INVALID_IP');
      expect(error.errors[0]?.message).to.equal('Invalid IP address.');
      expect(await ctx().server.db('svc_sessions').where('user', user.id)).to.have.length(0);
      for (const ip of ['10.200.3.4', '192.168.1.7']) {
        const inside = await postJson(
          ctx().api,
          '/auth/login',
          { email: user.email, password: user.password },
          fromIp(ip),
        );
        expect(inside.status, ip).to.equal(200);
      }
    });

    it('checks every request made with an access token or a static token', async () => {
      const role = await createRole(ctx().server.db, { ip_access: '10.0.0.0/8' });
      const user = await createUser(ctx().server.db, { role, token: `static-${role}` });
      const res = await postJson(
        ctx().api,
        '/auth/login',
        { email: user.email, password: user.password },
        fromIp('10.0.0.5'),
      );
      const { data } = (await res.json()) as { data: { access_token: string } };
      for (const auth of [`Bearer ${data.access_token}`, `Bearer static-${role}`]) {
        expect(await isAuthenticated(ctx().api, { headers: fromIp('10.9.9.9', { Authorization: auth }) })).to.equal(
          true,
        );
        await expectOnlyError(
          await ctx().api('/server/info', { headers: fromIp('172.16.0.1', { Authorization: auth }) }),
          401,
          'INVALID_IP',
        );
      }
    });

    it('supports IPv6 ranges', async () => {
      const role = await createRole(ctx().server.db, { ip_access: '2001:db8::/32' });
      const user = await createUser(ctx().server.db, { role, token: `static6-${role}` });
      const auth = { Authorization: `Bearer static6-${role}` };
      expect(await isAuthenticated(ctx().api, { headers: fromIp('2001:db8::1', auth) })).to.equal(true);
      await expectOnlyError(
        await ctx().api('/server/info', { headers: fromIp('2001:db9::1', auth) }),
        401,
        'INVALID_IP',
      );
      expect(user.id).to.be.a('string');
    });

    it('an empty ip_access allows any address', async () => {
      const role = await createRole(ctx().server.db, { ip_access: '' });
      const user = await createUser(ctx().server.db, { role });
      const res = await postJson(
        ctx().api,
        '/auth/login',
        { email: user.email, password: user.password },
        fromIp('203.0.113.9'),
      );
      expect(res.status).to.equal(200);
    });
  },
  // The tests name the client in X-Forwarded-For: one proxy hop (the test itself) is trusted.
  { env: { ...FAST, IP_TRUST_PROXY: 'true' } },
);

describeEachDatabase(
  'GET /auth',
  (ctx) => {
    it('lists no providers and disableDefault false by default', async () => {
      const res = await ctx().api('/auth');
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ data: [], disableDefault: false });
    });
  },
  { env: FAST },
);

describeEachDatabase(
  'GET /auth with AUTH_PROVIDERS and AUTH_DISABLE_DEFAULT',
  (ctx) => {
    it('lists each configured provider with driver, icon and label', async () => {
      const res = await ctx().api('/auth');
      expect(await res.json()).to.deep.equal({
        data: [
          { name: 'github', driver: 'oauth2', icon: 'github', label: 'GitHub' },
          { name: 'corp', driver: 'openid' },
        ],
        disableDefault: true,
      });
    });

    it('AUTH_DISABLE_DEFAULT makes POST /auth/login a 404 ROUTE_NOT_FOUND', async () => {
      const res = await postJson(ctx().api, '/auth/login', { email: TEST_ADMIN.email, password: TEST_ADMIN.password });
      const error = await expectOnlyError(res, 404, 'ROUTE_NOT_FOUND');
      expect(error.errors[0]?.extensions['path']).to.equal('/auth/login');
    });
  },
  {
    env: {
      ...FAST,
      PUBLIC_URL: 'https://data.example',
      AUTH_PROVIDERS: 'github,corp',
      AUTH_GITHUB_DRIVER: 'oauth2',
      AUTH_GITHUB_CLIENT_ID: 'github-client',
      AUTH_GITHUB_CLIENT_SECRET: 'github-secret',
      AUTH_GITHUB_AUTHORIZE_URL: 'https://github.com/login/oauth/authorize',
      AUTH_GITHUB_ACCESS_URL: 'https://github.com/login/oauth/access_token',
      AUTH_GITHUB_PROFILE_URL: 'https://api.github.com/user',
      AUTH_GITHUB_ICON: 'github',
      AUTH_GITHUB_LABEL: 'GitHub',
      AUTH_CORP_DRIVER: 'openid',
      AUTH_CORP_CLIENT_ID: 'corp-client',
      AUTH_CORP_CLIENT_SECRET: 'corp-secret',
      AUTH_CORP_ISSUER_URL: 'https://login.corp.example/realms/staff',
      AUTH_DISABLE_DEFAULT: 'true',
    },
  },
);
