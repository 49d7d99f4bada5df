import { expect } from 'chai';
import { ContentClient, MemoryStorage, type TransportError } from '../../src/client/index.js';
import { describeEachDatabase, TEST_ADMIN } from '../support/server.js';
import { adminClient, expectServerError, rejection, SQLITE_ONLY } from './support.js';

describeEachDatabase(
  'client auth',
  (ctx) => {
    /** Whether the server still accepts `refresh_token` (rotating it if so). */
    async function isRefreshTokenAlive(refresh_token: string | null): Promise<boolean> {
      const res = await ctx().api('/auth/refresh', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ refresh_token }),
      });
      return res.status === 200;
    }

    it('login stores the token pair and its expiry, and requests carry the token', async () => {
      const storage = new MemoryStorage({ prefix: 'one_' });
      const client = new ContentClient(ctx().server.url, { storage });
      const result = await client.auth.login({ email: TEST_ADMIN.email, password: TEST_ADMIN.password });
      expect(result.expires).to.equal(900000);
      expect(storage.auth_token).to.equal(result.access_token);
      expect(storage.get('auth_refresh_token')).to.equal(result.refresh_token);
      expect(storage.auth_expires).to.equal(900000);
      expect(storage.auth_expires_at).to.be.a('number').and.above(Date.now());
      expect(await client.auth.token).to.equal(result.access_token);
      expect((await client.users.me.read({ fields: ['email'] }))?.email).to.equal(TEST_ADMIN.email);
    });

    it('a wrong password is INVALID_CREDENTIALS and leaves nothing stored', async () => {
      const client = new ContentClient(ctx().server.url);
      const error = await rejection(client.auth.login({ email: TEST_ADMIN.email, password: 'wrong' }));
      expectServerError(error, 401, 'INVALID_CREDENTIALS');
      expect([client.storage.auth_token, client.storage.auth_refresh_token]).to.deep.equal([null, null]);
    });

    it('a static token from the options is sent as the bearer and never refreshed', async () => {
      const client = new ContentClient(ctx().server.url, {
        auth: { staticToken: TEST_ADMIN.token, msRefreshBeforeExpires: Number.MAX_SAFE_INTEGER },
      });
      expect(client.storage.auth_token).to.equal(TEST_ADMIN.token);
      expect(client.storage.auth_expires).to.equal(null);
      expect((await client.users.me.read())?.email).to.equal(TEST_ADMIN.email);
      expect(client.storage.auth_token).to.equal(TEST_ADMIN.token);
    });

    it('auth.static checks the token with the server before storing it', async () => {
      const client = new ContentClient(ctx().server.url);
      expect(await client.auth.static(TEST_ADMIN.token)).to.equal(true);
      expect(client.storage.auth_token).to.equal(TEST_ADMIN.token);
      expect((await client.users.me.read())?.email).to.equal(TEST_ADMIN.email);

      const other = new ContentClient(ctx().server.url);
      expectServerError(await rejection(other.auth.static('not-a-token')), 401, 'INVALID_CREDENTIALS');
      expect(other.storage.auth_token).to.equal(null);
    });

    it('refresh rotates the pair: new tokens stored, the old refresh token is dead', async () => {
      const client = await adminClient(ctx());
      const first = { access: client.storage.auth_token, refresh: client.storage.auth_refresh_token };
      const next = await client.auth.refresh();
      expect(next.refresh_token).to.be.a('string').and.not.equal(first.refresh);
      expect(client.storage.auth_refresh_token).to.equal(next.refresh_token);
      expect(client.storage.auth_token).to.equal(next.access_token);
      expect(await isRefreshTokenAlive(first.refresh)).to.equal(false);
      expect((await client.users.me.read())?.email).to.equal(TEST_ADMIN.email);
    });

    it('autoRefresh refreshes an expired token before a GET, once for concurrent requests', async () => {
      const client = await adminClient(ctx());
      const oldRefresh = client.storage.auth_refresh_token;
      client.storage.auth_expires_at = Date.now() - 1;
      const [me, info] = await Promise.all([client.users.me.read(), client.server.info()]);
      expect(me?.email).to.equal(TEST_ADMIN.email);
      expect(info?.['version']).to.be.a('string');
      expect(client.storage.auth_refresh_token).to.be.a('string').and.not.equal(oldRefresh);
      expect(client.storage.auth_expires_at).to.be.above(Date.now());
      expect(await isRefreshTokenAlive(oldRefresh)).to.equal(false);
    });

    it('autoRefresh refreshes a token about to expire (within msRefreshBeforeExpires)', async () => {
      const client = await adminClient(ctx(), { auth: { msRefreshBeforeExpires: 900000 + 60000 } });
      const oldRefresh = client.storage.auth_refresh_token;
      await client.server.info();
      expect(client.storage.auth_refresh_token).to.be.a('string').and.not.equal(oldRefresh);
    });

    it('an autoRefresh the server refuses (the session ended) fails the request with its error, not sent without a token', async () => {
      const client = await adminClient(ctx());
      const ended = await ctx().api('/auth/logout', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ refresh_token: client.storage.auth_refresh_token }),
      });
      expect(ended.status).to.equal(204);
      client.storage.auth_expires_at = Date.now() - 1;
      const [me, info] = await Promise.allSettled([client.users.me.read(), client.server.info()]);
      for (const result of [me, info]) {
        expect(result.status).to.equal('rejected');
        expectServerError((result as PromiseRejectedResult).reason as TransportError, 401, 'INVALID_CREDENTIALS');
      }
      expect(client.storage.auth_token).to.equal(null);
    });

    it('requests that carry no token (static, providers, public server info) do not refresh first: a dead session does not stop them', async () => {
      const client = await adminClient(ctx());
      await client.auth.logout();
      client.storage.auth_refresh_token = 'ended';
      client.storage.auth_expires_at = Date.now() - 1;
      expect((await client.auth.providers()).data).to.be.an('array');
      // What anyone is told: the project, not the version an authenticated caller gets.
      const info = await client.server.info({ public: true });
      expect(info?.project).to.be.an('object');
      expect(info?.['version']).to.equal(undefined);
      expect(await client.auth.static(TEST_ADMIN.token)).to.equal(true);
      expect((await client.users.me.read())?.email).to.equal(TEST_ADMIN.email);
    });

    it('POST requests and autoRefresh: false do not refresh', async () => {
      const client = await adminClient(ctx(), { auth: { msRefreshBeforeExpires: 900000 + 60000 } });
      const refresh = client.storage.auth_refresh_token;
      await client.utils.hash.generate('x');
      expect(client.storage.auth_refresh_token).to.equal(refresh);

      const lazy = await adminClient(ctx(), { auth: { autoRefresh: false, msRefreshBeforeExpires: 900000 + 60000 } });
      const lazyRefresh = lazy.storage.auth_refresh_token;
      await lazy.server.info();
      expect(lazy.storage.auth_refresh_token).to.equal(lazyRefresh);
    });

    it('logout with a static token (no session to end) clears it without asking the server', async () => {
      const client = new ContentClient(ctx().server.url, { auth: { staticToken: TEST_ADMIN.token } });
      await client.auth.logout();
      expect(client.storage.auth_token).to.equal(null);
      expect(await client.auth.token).to.equal(null);
      expect((await client.server.info())?.['version']).to.equal(undefined);
    });

    it('logout ends the session on the server and clears the stored tokens', async () => {
      const client = await adminClient(ctx());
      const refresh = client.storage.auth_refresh_token;
      await client.auth.logout();
      expect([
        client.storage.auth_token,
        client.storage.auth_refresh_token,
        client.storage.auth_expires_at,
      ]).to.deep.equal([null, null, null]);
      expect(await isRefreshTokenAlive(refresh)).to.equal(false);
      const info = await client.server.info();
      expect(info?.['version']).to.equal(undefined);
    });
  },
  SQLITE_ONLY,
);
