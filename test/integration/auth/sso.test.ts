import { expect } from 'chai';
import type { Knex } from 'knex';
import { hashPassword } from '../../../src/access/passwords.js';
import { Browser, type Hop } from '../../support/browser.js';
import { freePort } from '../../support/ports.js';
import { TEST_CLIENT, TestIdentityProvider, type Forgery, type TestAccount } from '../../support/identity-provider.js';
import { pino } from 'pino';
import { startServer, type RunningServer } from '../../../src/server.js';
import { describeEachDatabase, testConfig } from '../../support/server.js';
import { sqliteTarget, type TestDatabase } from '../../support/services.js';
import { createUser, expectOnlyError, postJson, type ErrorBody } from './helpers.js';

// The roles of the providers' users: DEFAULT_ROLE_ID, and ROLE_MAPPING's "editors".
const STAFF_ROLE = '0b6f1f3e-4c52-4a8e-9d6e-5a0c1d2e3f40';
const EDITOR_ROLE = '7d1c2b3a-9e8f-4d6c-8b5a-1f2e3d4c5b6a';
const APP = 'https://app.example/done';
const PROVIDERS = ['corp', 'plain', 'linked'] as const;

interface Tokens {
  readonly access_token: string;
  readonly refresh_token?: string;
  readonly expires: number;
}

describe('single sign-on against a real OpenID provider', function () {
  this.timeout(60_000);
  // One service per database, each with its callback URLs registered at the provider.
  const ports: number[] = [];
  let idp: TestIdentityProvider | undefined;
  let closedPort = 0;
  let logPort = 0;
  const provider = (): TestIdentityProvider => {
    if (idp === undefined) throw new Error('provider not started');
    return idp;
  };

  before(async () => {
    for (let i = 0; i < 3; i++) ports.push(await freePort());
    logPort = await freePort();
    closedPort = await freePort();
    const callbacks = [...ports, logPort].flatMap((port) =>
      PROVIDERS.map((name) => `http://127.0.0.1:${port}/auth/login/${name}/callback`),
    );
    idp = await TestIdentityProvider.start(callbacks);
  });

  after(async () => {
    await idp?.close();
  });

  afterEach(() => {
    provider().forgery = undefined;
    provider().loginAs = undefined;
  });

  /** The service's settings: four providers at the test provider (one down), callbacks on `port`. */
  function serviceEnv(port: number): Record<string, string> {
    const issuer = provider().issuer;
    const client = {
      CLIENT_ID: TEST_CLIENT.id,
      CLIENT_SECRET: TEST_CLIENT.secret,
      ALLOW_INSECURE_REQUESTS: 'true',
      ALLOW_PUBLIC_REGISTRATION: 'true',
      DEFAULT_ROLE_ID: STAFF_ROLE,
      REDIRECT_ALLOW_LIST: APP,
    };
    const settings = (name: string, values: Record<string, string>): Record<string, string> =>
      Object.fromEntries(
        Object.entries({ ...client, ...values }).map(([key, value]) => [`AUTH_${name}_${key}`, value]),
      );
    return {
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      REFRESH_TOKEN_COOKIE_SECURE: 'false',
      LOGIN_STALL_TIME: '0',
      AUTH_PROVIDERS: 'corp,plain,down,linked',
      ...settings('CORP', {
        DRIVER: 'openid',
        ISSUER_URL: issuer,
        SCOPE: 'openid profile email groups',
        FIRST_NAME_KEY: 'given_name',
        LAST_NAME_KEY: 'family_name',
        ROLE_MAPPING: JSON.stringify({ editors: EDITOR_ROLE }),
        ICON: 'key',
        LABEL: 'Corp login',
      }),
      ...settings('PLAIN', {
        DRIVER: 'oauth2',
        AUTHORIZE_URL: `${issuer}/auth`,
        ACCESS_URL: `${issuer}/token`,
        PROFILE_URL: `${issuer}/profile`,
        SCOPE: 'email profile',
      }),
      ...settings('DOWN', { DRIVER: 'openid', ISSUER_URL: `http://127.0.0.1:${closedPort}` }),
      ...settings('LINKED', {
        DRIVER: 'openid',
        ISSUER_URL: issuer,
        ALLOW_PUBLIC_REGISTRATION: 'false',
        LINK_VERIFIED_EMAIL: 'true',
        MODE: 'session',
      }),
    };
  }

  describeEachDatabase(
    'SSO',
    (ctx) => {
      const db = (): Knex => ctx().server.db;
      const base = (): string => ctx().server.url;

      before(async () => {
        await db()('svc_roles').insert([
          { id: STAFF_ROLE, name: 'Staff', admin_access: false, app_access: true },
          { id: EDITOR_ROLE, name: 'Editors', admin_access: false, app_access: true },
        ]);
      });

      /** A new account at the provider, the one its login page will log in. */
      function account(input: Partial<TestAccount> = {}): TestAccount {
        const tag = Math.random().toString(36).slice(2, 10);
        const created = provider().addAccount({
          email: `sso-${tag}@corp.example`,
          email_verified: true,
          given_name: 'Ada',
          family_name: `Lovelace-${tag}`,
          ...input,
        });
        provider().loginAs = created.sub;
        return created;
      }

      function loginPath(name: string, redirect?: string): string {
        return `/auth/login/${name}${redirect === undefined ? '' : `?redirect=${encodeURIComponent(redirect)}`}`;
      }

      /** The whole dance; the browser stops at the first URL off the loopback (the app). */
      async function login(browser: Browser, name: string, redirect?: string): Promise<Hop> {
        const hops = await browser.navigate(base() + loginPath(name, redirect));
        const last = hops.at(-1);
        if (last === undefined) throw new Error('no hop');
        return last;
      }

      /** The dance up to the provider's redirect back: the callback URL, not yet visited. */
      async function callbackOf(browser: Browser, name: string, redirect?: string): Promise<string> {
        const hops = await browser.navigate(
          base() + loginPath(name, redirect),
          (url) => url.hostname === '127.0.0.1' && !url.pathname.endsWith('/callback'),
        );
        const location = hops.at(-1)?.response.headers.get('location');
        if (location == null || !location.includes('/callback'))
          throw new Error(`stopped at ${hops.at(-1)?.url ?? '?'}`);
        return new URL(location, base()).href;
      }

      async function tokensOf(hop: Hop): Promise<Tokens> {
        const body = (await hop.response.json()) as { data: Tokens } & ErrorBody;
        expect(hop.response.status, JSON.stringify(body)).to.equal(200);
        return body.data;
      }

      async function me(accessToken: string): Promise<Record<string, unknown>> {
        const res = await ctx().api('/users/me?fields=*', { headers: { Authorization: `Bearer ${accessToken}` } });
        const body = (await res.json()) as { data: Record<string, unknown> };
        expect(res.status, JSON.stringify(body)).to.equal(200);
        return body.data;
      }

      async function counts(): Promise<{ users: number; sessions: number; logins: number }> {
        const count = async (query: Knex.QueryBuilder): Promise<number> =>
          Number((await query.count({ n: '*' }).first<{ n: unknown }>())?.n);
        return {
          users: await count(db()('svc_users')),
          sessions: await count(db()('svc_sessions')),
          logins: await count(db()('svc_activity').where('action', 'login')),
        };
      }

      /** Runs `attempt` and asserts it logged nobody in and created no user. */
      async function expectNothingChanged(attempt: () => Promise<void>): Promise<void> {
        const before = await counts();
        await attempt();
        expect(await counts()).to.deep.equal(before);
      }

      describe('GET /auth', () => {
        it('lists the configured providers with driver, icon and label, and disableDefault', async () => {
          const res = await ctx().api('/auth');
          expect(res.status).to.equal(200);
          expect(await res.json()).to.deep.equal({
            data: [
              { name: 'corp', driver: 'openid', icon: 'key', label: 'Corp login' },
              { name: 'plain', driver: 'oauth2' },
              { name: 'down', driver: 'openid' },
              { name: 'linked', driver: 'openid' },
            ],
            disableDefault: false,
          });
        });
      });

      describe('openid driver', () => {
        it('a browser logs in without redirect: JSON tokens, a new user of DEFAULT_ROLE_ID, /users/me', async () => {
          const who = account();
          const before = await counts();
          const tokens = await tokensOf(await login(new Browser(), 'corp'));
          expect(tokens.refresh_token).to.be.a('string');
          const user = await me(tokens.access_token);
          expect(user).to.include({
            email: who.email,
            first_name: 'Ada',
            last_name: who.family_name,
            provider: 'corp',
            external_identifier: who.sub,
            role: STAFF_ROLE,
            status: 'active',
          });
          expect(await counts()).to.deep.equal({
            users: before.users + 1,
            sessions: before.sessions + 1,
            logins: before.logins + 1,
          });
        });

        it('with an allowed redirect: the refresh cookie is set, the browser lands on the app, and refreshes from the cookie', async () => {
          const who = account();
          const browser = new Browser();
          const last = await login(browser, 'corp', `${APP}?tab=1`);
          expect(last.response.status).to.equal(302);
          expect(last.response.headers.get('location')).to.equal(`${APP}?tab=1`);
          const refreshCookie = browser.cookie(base(), 'svc_refresh_token');
          expect(refreshCookie).to.be.a('string');
          // The state cookie is spent.
          expect(browser.cookie(base(), 'svc_sso_state')).to.equal(undefined);
          const res = await browser.request(`${base()}/auth/refresh`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          });
          const body = (await res.json()) as { data: Tokens };
          expect(res.status, JSON.stringify(body)).to.equal(200);
          expect((await me(body.data.access_token))['email']).to.equal(who.email);
          expect(browser.cookie(base(), 'svc_refresh_token')).to.not.equal(refreshCookie);
        });

        it('a second login finds the same user by external_identifier; ROLE_MAPPING sets the mapped role', async () => {
          const who = account({ groups: ['staff', 'editors'] });
          const first = await me((await tokensOf(await login(new Browser(), 'corp'))).access_token);
          expect(first['role']).to.equal(EDITOR_ROLE);
          const before = await counts();
          const second = await me((await tokensOf(await login(new Browser(), 'corp'))).access_token);
          expect(second['id']).to.equal(first['id']);
          expect((await counts()).users).to.equal(before.users);
          expect(await db()('svc_users').where('external_identifier', who.sub).select('id')).to.have.length(1);
        });

        it('a user of a provider cannot log in with a password, and a password reset request changes nothing', async () => {
          const who = account();
          const { id } = await me((await tokensOf(await login(new Browser(), 'corp'))).access_token);
          await db()('svc_users')
            .where('id', String(id))
            .update({ password: await hashPassword('a-password-1') });
          await expectNothingChanged(async () => {
            const res = await postJson(ctx().api, '/auth/login', { email: who.email, password: 'a-password-1' });
            await expectOnlyError(res, 401, 'INVALID_CREDENTIALS');
            const reset = await postJson(ctx().api, '/auth/password/request', { email: who.email });
            expect(reset.status).to.equal(204);
          });
        });
      });

      describe('oauth2 driver', () => {
        it('a browser logs in through explicit endpoints and a profile URL (identifier: the e-mail)', async () => {
          const who = account();
          const before = await counts();
          const tokens = await tokensOf(await login(new Browser(), 'plain'));
          expect(await me(tokens.access_token)).to.include({
            email: who.email,
            provider: 'plain',
            external_identifier: who.email,
            role: STAFF_ROLE,
          });
          expect((await counts()).users).to.equal(before.users + 1);
        });
      });

      describe('LINK_VERIFIED_EMAIL, no public registration, session mode', () => {
        it('links a password user whose e-mail the provider says is verified; the password no longer logs in', async () => {
          const holder = await createUser(db());
          const who = account({ email: holder.email.toUpperCase(), email_verified: true });
          const before = await counts();
          const browser = new Browser();
          const last = await login(browser, 'linked', APP);
          expect(last.response.headers.get('location')).to.equal(APP);
          const session = browser.cookie(base(), 'svc_session_token');
          expect(session).to.be.a('string');
          expect(browser.cookie(base(), 'svc_refresh_token')).to.equal(undefined);
          const res = await browser.request(`${base()}/users/me?fields=id`);
          expect(((await res.json()) as { data: unknown }).data).to.deep.equal({ id: holder.id });
          const row = await db()('svc_users').where('id', holder.id).first('provider', 'external_identifier');
          expect(row).to.deep.equal({ provider: 'linked', external_identifier: who.sub });
          expect(await counts()).to.deep.equal({
            users: before.users,
            sessions: before.sessions + 1,
            logins: before.logins + 1,
          });
          const password = await postJson(ctx().api, '/auth/login', { email: holder.email, password: holder.password });
          await expectOnlyError(password, 401, 'INVALID_CREDENTIALS');
        });

        it('does not link when the provider does not say the e-mail is verified', async () => {
          const holder = await createUser(db());
          account({ email: holder.email, email_verified: false });
          await expectNothingChanged(async () => {
            expect((await login(new Browser(), 'linked')).response.status).to.equal(401);
          });
          const row = await db()('svc_users').where('id', holder.id).first('provider', 'external_identifier');
          expect(row).to.deep.equal({ provider: 'default', external_identifier: null });
        });

        it('does not link a password user whose e-mail differs in an accent from the verified one', async () => {
          const tag = Math.random().toString(36).slice(2, 10);
          const holder = await createUser(db(), { email: `ana-${tag}@bücher.example` });
          account({ email: `ana-${tag}@bucher.example`, email_verified: true });
          await expectNothingChanged(async () => {
            expect((await login(new Browser(), 'linked')).response.status).to.equal(401);
          });
          const row = await db()('svc_users').where('id', holder.id).first('provider', 'external_identifier');
          expect(row).to.deep.equal({ provider: 'default', external_identifier: null });
        });

        it('does not link a user of another provider', async () => {
          const who = account();
          await tokensOf(await login(new Browser(), 'corp'));
          await expectNothingChanged(async () => {
            expect((await login(new Browser(), 'linked')).response.status).to.equal(401);
          });
          expect(await db()('svc_users').where('email', who.email).select('provider')).to.deep.equal([
            { provider: 'corp' },
          ]);
        });

        it('refuses a stranger when public registration is off', async () => {
          account();
          await expectNothingChanged(async () => {
            const last = await login(new Browser(), 'linked');
            expect(last.response.status).to.equal(401);
          });
        });
      });

      describe('refused', () => {
        it('an unknown provider: 403 INVALID_PROVIDER, at login and at callback', async () => {
          await expectOnlyError(await ctx().api('/auth/login/nobody'), 403, 'INVALID_PROVIDER');
          await expectOnlyError(await ctx().api('/auth/login/nobody/callback?code=x&state=y'), 403, 'INVALID_PROVIDER');
        });

        const badRedirects = [
          'https://evil.example/done',
          '//evil.example/done',
          'https://app.example.evil.example/done',
          'https://app.example@evil.example/done',
          'https:\\\\evil.example\\done',
          '\\\\evil.example/done',
          'https%3A%2F%2Fevil.example%2Fdone',
          'https://app.example/done/../elsewhere',
          'https://app.example/other',
          'http://app.example/done',
          'javascript:alert(1)',
          '/done',
        ];
        for (const redirect of badRedirects) {
          it(`a redirect off the allow-list: ${redirect} → 400 INVALID_PAYLOAD, no redirect, no state`, async () => {
            const res = await ctx().api(loginPath('corp', redirect), { redirect: 'manual' });
            expect(res.headers.get('location')).to.equal(null);
            await expectOnlyError(res, 400, 'INVALID_PAYLOAD');
          });
        }

        it('a redirect given twice is refused', async () => {
          const res = await ctx().api(
            `/auth/login/corp?redirect=${encodeURIComponent(APP)}&redirect=https://evil.example`,
            { redirect: 'manual' },
          );
          await expectOnlyError(res, 400, 'INVALID_PAYLOAD');
        });

        it('a callback without the state cookie', async () => {
          account();
          const callback = await callbackOf(new Browser(), 'corp');
          await expectNothingChanged(async () => {
            const res = await new Browser().request(callback);
            expect(((await res.json()) as ErrorBody).errors[0]?.extensions['code']).to.equal('INVALID_CREDENTIALS');
            expect(res.status).to.equal(401);
          });
        });

        it('a callback whose state is not the one sent', async () => {
          account();
          const browser = new Browser();
          const callback = new URL(await callbackOf(browser, 'corp'));
          callback.searchParams.set('state', 'forged-state');
          await expectNothingChanged(async () => {
            const res = await browser.request(callback.href);
            expect(res.status).to.equal(401);
            expect(((await res.json()) as ErrorBody).errors[0]?.extensions['code']).to.equal('INVALID_CREDENTIALS');
          });
        });

        it('a callback without state', async () => {
          account();
          const browser = new Browser();
          const callback = new URL(await callbackOf(browser, 'corp'));
          callback.searchParams.delete('state');
          await expectNothingChanged(async () => {
            const res = await browser.request(callback.href);
            expect(res.status).to.equal(401);
          });
        });

        it('a replayed callback (same state cookie and code) after a good login', async () => {
          account();
          const browser = new Browser();
          const callback = await callbackOf(browser, 'corp');
          const stateCookie = browser.cookie(base(), 'svc_sso_state');
          expect(stateCookie).to.be.a('string');
          const first = await browser.request(callback);
          expect(first.status).to.equal(200);
          await expectNothingChanged(async () => {
            browser.setCookie(base(), 'svc_sso_state', stateCookie ?? '', '/auth/login/corp');
            const res = await browser.request(callback);
            expect(res.status).to.equal(401);
            expect(((await res.json()) as ErrorBody).errors[0]?.extensions['code']).to.equal('INVALID_CREDENTIALS');
          });
        });

        it('a state cookie of another provider', async () => {
          account();
          const browser = new Browser();
          await callbackOf(browser, 'plain');
          const plainState = browser.cookie(base(), 'svc_sso_state') ?? '';
          const corp = new Browser();
          const callback = await callbackOf(corp, 'corp');
          corp.setCookie(base(), 'svc_sso_state', plainState, '/auth/login/corp');
          await expectNothingChanged(async () => {
            expect((await corp.request(callback)).status).to.equal(401);
          });
        });

        it('a forged ID token built right is accepted (the control of the cases below)', async () => {
          account();
          provider().forgery = 'valid';
          const tokens = await tokensOf(await login(new Browser(), 'corp'));
          expect(tokens.access_token).to.be.a('string');
        });

        const forgeries: Forgery[] = [
          'other-nonce',
          'other-key',
          'alg-none',
          'expired',
          'other-audience',
          'other-issuer',
        ];
        for (const forgery of forgeries) {
          it(`an ID token with ${forgery}: 401 INVALID_CREDENTIALS, nobody logged in, no user`, async () => {
            account();
            provider().forgery = forgery;
            await expectNothingChanged(async () => {
              const last = await login(new Browser(), 'corp');
              const body = (await last.response.json()) as ErrorBody;
              expect(last.response.status, JSON.stringify(body)).to.equal(401);
              expect(body.errors[0]?.extensions['code']).to.equal('INVALID_CREDENTIALS');
              expect(last.response.headers.getSetCookie().some((c) => c.startsWith('svc_refresh_token='))).to.equal(
                false,
              );
            });
          });
        }

        it('a failure with a redirect lands on the app with ?reason=, and no refresh cookie', async () => {
          account();
          provider().forgery = 'other-key';
          await expectNothingChanged(async () => {
            const browser = new Browser();
            const last = await login(browser, 'corp', APP);
            expect(last.response.status).to.equal(302);
            expect(last.response.headers.get('location')).to.equal(`${APP}?reason=INVALID_CREDENTIALS`);
            expect(browser.cookie(base(), 'svc_refresh_token')).to.equal(undefined);
          });
        });

        it('a provider that is down: 503 SERVICE_UNAVAILABLE, and the service keeps serving', async () => {
          const res = await ctx().api('/auth/login/down', { redirect: 'manual' });
          const body = await expectOnlyError(res, 503, 'SERVICE_UNAVAILABLE');
          expect(body.errors[0]?.extensions['service']).to.equal('down');
          expect((await ctx().api('/server/ping')).status).to.equal(200);
          expect((await ctx().api(loginPath('corp'), { redirect: 'manual' })).status).to.equal(302);
        });

        it('a user suspended after linking', async () => {
          const who = account();
          await tokensOf(await login(new Browser(), 'corp'));
          await db()('svc_users').where('external_identifier', who.sub).update({ status: 'suspended' });
          await expectNothingChanged(async () => {
            const last = await login(new Browser(), 'corp');
            expect(last.response.status).to.equal(401);
          });
        });

        it('a second provider claiming the e-mail of a user of the first', async () => {
          const who = account();
          await tokensOf(await login(new Browser(), 'corp'));
          await expectNothingChanged(async () => {
            const last = await login(new Browser(), 'plain');
            expect(last.response.status).to.equal(401);
          });
          const rows = await db()('svc_users').where('email', who.email).select('provider');
          expect(rows).to.deep.equal([{ provider: 'corp' }]);
        });

        it('an e-mail of an existing password user is not taken over', async () => {
          const holder = await createUser(db());
          account({ email: holder.email, email_verified: true });
          await expectNothingChanged(async () => {
            const last = await login(new Browser(), 'corp');
            expect(last.response.status).to.equal(401);
          });
          const row = await db()('svc_users').where('id', holder.id).first('provider', 'external_identifier');
          expect(row).to.deep.equal({ provider: 'default', external_identifier: null });
          const res = await postJson(ctx().api, '/auth/login', { email: holder.email, password: holder.password });
          expect(res.status).to.equal(200);
        });
      });
    },
    {
      env: () => {
        const port = ports.shift();
        if (port === undefined) throw new Error('no port reserved');
        return serviceEnv(port);
      },
    },
  );

  describe('SSO logs [sqlite]', () => {
    const lines: string[] = [];
    let running: { server: RunningServer; database: TestDatabase } | undefined;

    before(async () => {
      const database = await sqliteTarget.create();
      const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
      running = { database, server: await startServer(testConfig(database, serviceEnv(logPort)), { logger }) };
    });

    after(async () => {
      await running?.server.close();
      await running?.database.drop();
    });

    it("a refused login is logged with the provider's reason; no line holds a token, code, state or secret", async () => {
      const base = running?.server.url ?? '';
      await running?.server
        .db('svc_roles')
        .insert({ id: STAFF_ROLE, name: 'Staff', admin_access: false, app_access: true });
      provider().loginAs = provider().addAccount({ email: 'logged@corp.example' }).sub;
      // A good login, through the callback with its code and state: the secrets to look for.
      const browser = new Browser();
      const hops = await browser.navigate(`${base}/auth/login/corp?redirect=${encodeURIComponent(APP)}`);
      const callback = new URL(hops.find((hop) => hop.url.includes('/callback'))?.url ?? '');
      const secrets = [
        TEST_CLIENT.secret,
        callback.searchParams.get('code') ?? 'no code',
        callback.searchParams.get('state') ?? 'no state',
        browser.cookie(base, 'svc_refresh_token') ?? 'no refresh token',
      ];
      const refreshed = await browser.request(`${base}/auth/refresh`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      const accessToken = ((await refreshed.json()) as { data: Tokens }).data.access_token;
      secrets.push(accessToken, browser.cookie(base, 'svc_refresh_token') ?? 'no rotated token');
      await fetch(`${base}/users/me?access_token=${accessToken}`);
      // A refused one: an ID token signed by another key.
      provider().forgery = 'other-key';
      const refused = (await new Browser().navigate(`${base}/auth/login/corp`)).at(-1);
      expect(refused?.response.status).to.equal(401);

      const refusal = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((entry) => entry['msg'] === 'SSO login refused');
      expect(refusal).to.include({ provider: 'corp', step: 'login' });
      expect(refusal?.['reason']).to.match(/signature/i);
      expect(lines.some((line) => line.includes('/auth/login/corp/callback'))).to.equal(true);
      for (const secret of secrets) {
        expect(
          lines.filter((line) => line.includes(secret)),
          secret,
        ).to.deep.equal([]);
      }
    });
  });
});
