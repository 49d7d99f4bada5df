import { expect } from 'chai';
import type { Knex } from 'knex';
import { Browser, type Hop } from '../../support/browser.js';
import { TEST_CLIENT, TestIdentityProvider, type TestAccount } from '../../support/identity-provider.js';
import { freePort } from '../../support/ports.js';
import { describeEachDatabase } from '../../support/server.js';
import { createUser, type ErrorBody } from '../auth/helpers.js';

/*
 * Issue 36, item 8: with the e-mail as the SSO identifier (IDENTIFIER_KEY=email, the oauth2
 * default), a provider account that merely claims the victim's address, `email_verified: false`,
 * must not sign in as the victim, nor create a user: the e-mail identifies only when the
 * provider says it is verified. Against a real OpenID provider (oidc-provider).
 */

const PROVIDERS = ['mailid', 'mailoauth'] as const;

/** 401 INVALID_CREDENTIALS and nothing else; the only cookie is the spent SSO state, cleared. */
async function expectRefused(res: Response): Promise<void> {
  const body = (await res.json()) as ErrorBody;
  expect(res.status, JSON.stringify(body)).to.equal(401);
  expect(Object.keys(body)).to.deep.equal(['errors']);
  expect(body.errors.map((e) => e.extensions['code'])).to.deep.equal(['INVALID_CREDENTIALS']);
  for (const cookie of res.headers.getSetCookie())
    expect(cookie).to.match(/^svc_sso_state=;.*Expires=Thu, 01 Jan 1970/);
}

describe('SSO by an unverified e-mail address', function () {
  this.timeout(120_000);
  const ports: number[] = [];
  let idp: TestIdentityProvider | undefined;
  let next = 0;
  let suites = 0;
  const provider = (): TestIdentityProvider => {
    if (idp === undefined) throw new Error('provider not started');
    return idp;
  };

  before(async () => {
    for (let i = 0; i < 3; i++) ports.push(await freePort());
    idp = await TestIdentityProvider.start(
      ports.flatMap((port) => PROVIDERS.map((name) => `http://127.0.0.1:${port}/auth/login/${name}/callback`)),
    );
  });

  after(async () => {
    await idp?.close();
  });

  afterEach(() => {
    provider().loginAs = undefined;
  });

  function serviceEnv(port: number): Record<string, string> {
    const issuer = provider().issuer;
    const common = {
      CLIENT_ID: TEST_CLIENT.id,
      CLIENT_SECRET: TEST_CLIENT.secret,
      ALLOW_INSECURE_REQUESTS: 'true',
      ALLOW_PUBLIC_REGISTRATION: 'true',
    };
    const settings = (name: string, values: Record<string, string>): Record<string, string> =>
      Object.fromEntries(
        Object.entries({ ...common, ...values }).map(([key, value]) => [`AUTH_${name}_${key}`, value]),
      );
    return {
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOGIN_STALL_TIME: '0',
      AUTH_PROVIDERS: PROVIDERS.join(','),
      ...settings('MAILID', { DRIVER: 'openid', ISSUER_URL: issuer, IDENTIFIER_KEY: 'email' }),
      ...settings('MAILOAUTH', {
        DRIVER: 'oauth2',
        AUTHORIZE_URL: `${issuer}/auth`,
        ACCESS_URL: `${issuer}/token`,
        PROFILE_URL: `${issuer}/profile`,
        SCOPE: 'email profile',
      }),
    };
  }

  describeEachDatabase(
    'SSO identifier e-mail',
    (ctx) => {
      const db = (): Knex => ctx().server.db;

      function account(input: Partial<TestAccount>): TestAccount {
        const created = provider().addAccount({ given_name: 'Mallory', ...input });
        provider().loginAs = created.sub;
        return created;
      }

      async function login(name: string): Promise<Hop> {
        const hops = await new Browser().navigate(`${ctx().server.url}/auth/login/${name}`);
        const last = hops.at(-1);
        if (last === undefined) throw new Error('no hop');
        return last;
      }

      async function state(): Promise<unknown> {
        return {
          users: await db()('svc_users')
            .orderBy('id')
            .select('id', 'email', 'provider', 'external_identifier', 'status'),
          sessions: await db()('svc_sessions').orderBy('token').select('token', 'user'),
          logins: await db()('svc_activity').where('action', 'login').orderBy('id').select('id'),
        };
      }

      for (const name of PROVIDERS) {
        describe(`${name} (IDENTIFIER_KEY: email)`, () => {
          it("a provider account claiming the victim's address unverified: 401 INVALID_CREDENTIALS, nothing changes", async () => {
            const victim = await createUser(db(), {
              email: `victim-${++next}@corp.example`,
              password: null,
              provider: name,
            });
            await db()('svc_users').where('id', victim.id).update({ external_identifier: victim.email });
            const before = await state();
            account({ email: victim.email, email_verified: false });
            await expectRefused((await login(name)).response);
            expect(await state()).to.deep.equal(before);
          });

          it('a stranger with an unverified address is not registered', async () => {
            const before = await state();
            account({ email: `stranger-${++next}@corp.example`, email_verified: false });
            await expectRefused((await login(name)).response);
            expect(await state()).to.deep.equal(before);
          });

          it('a profile without email_verified is refused too', async () => {
            const before = await state();
            account({ email: `silent-${++next}@corp.example` });
            await expectRefused((await login(name)).response);
            expect(await state()).to.deep.equal(before);
          });

          it('the verified owner of the address signs in as that user (control)', async () => {
            const owner = await createUser(db(), {
              email: `owner-${++next}@corp.example`,
              password: null,
              provider: name,
            });
            await db()('svc_users').where('id', owner.id).update({ external_identifier: owner.email });
            account({ email: owner.email, email_verified: true });
            const hop = await login(name);
            const body = (await hop.response.json()) as { data: { access_token: string } };
            expect(hop.response.status, JSON.stringify(body)).to.equal(200);
            const me = await ctx().api('/users/me', { headers: { Authorization: `Bearer ${body.data.access_token}` } });
            expect(((await me.json()) as { data: { id: string } }).data.id).to.equal(owner.id);
          });
        });
      }
    },
    { env: () => serviceEnv(ports[suites++ % 3] ?? 0) },
  );
});
