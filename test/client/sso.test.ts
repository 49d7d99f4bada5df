import { expect } from 'chai';
import { ContentClient } from '../../src/client/index.js';
import { Browser } from '../support/browser.js';
import { freePort } from '../support/ports.js';
import { TEST_CLIENT, TestIdentityProvider } from '../support/identity-provider.js';
import { describeEachDatabase } from '../support/server.js';
import { SQLITE_ONLY } from './support.js';

const APP = 'https://app.example/done';

describe('client single sign-on', () => {
  let port = 0;
  let idp: TestIdentityProvider | undefined;
  const provider = (): TestIdentityProvider => {
    if (idp === undefined) throw new Error('provider not started');
    return idp;
  };

  before(async () => {
    port = await freePort();
    idp = await TestIdentityProvider.start([`http://127.0.0.1:${port}/auth/login/corp/callback`]);
  });

  after(async () => {
    await idp?.close();
  });

  describeEachDatabase(
    'client auth: SSO',
    (ctx) => {
      it('auth.providers lists what GET /auth lists', async () => {
        const client = new ContentClient(ctx().server.url);
        expect(await client.auth.providers()).to.deep.equal({
          data: [{ name: 'corp', driver: 'openid', label: 'Corp' }],
          disableDefault: false,
        });
      });

      it('auth.loginUrl leads a browser through the provider back to the app, where refresh() in cookie mode gets the tokens', async () => {
        const who = provider().addAccount({ email: 'client-sso@corp.example' });
        provider().loginAs = who.sub;
        const client = new ContentClient(ctx().server.url, { auth: { mode: 'cookie' } });
        const url = client.auth.loginUrl('corp', APP);
        expect(url).to.equal(`${ctx().server.url}/auth/login/corp?redirect=${encodeURIComponent(APP)}`);

        const browser = new Browser();
        const last = (await browser.navigate(url)).at(-1);
        expect(last?.response.headers.get('location')).to.equal(APP);
        const cookie = browser.cookie(ctx().server.url, 'svc_refresh_token');
        expect(cookie).to.be.a('string');

        // The app's page: the browser sends the refresh cookie along with the client's requests.
        const app = new ContentClient(ctx().server.url, {
          auth: { mode: 'cookie' },
          transport: { headers: { cookie: `svc_refresh_token=${cookie ?? ''}` } },
        });
        expect(app.storage.auth_token).to.equal(null);
        const result = await app.auth.refresh();
        expect(app.storage.auth_token).to.equal(result.access_token);
        expect(result).to.not.have.property('refresh_token');
        // A user without role reads only its id of itself.
        const row = await ctx().server.db('svc_users').where({ email: who.email, provider: 'corp' }).first('id');
        expect(await app.users.me.read()).to.deep.equal({ id: row.id });
      });

      it('auth.loginUrl needs the service URL', () => {
        const client = new ContentClient(ctx().server.url);
        expect(client.auth.loginUrl('a b')).to.equal(`${ctx().server.url}/auth/login/a%20b`);
      });
    },
    {
      ...SQLITE_ONLY,
      env: () => ({
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        REFRESH_TOKEN_COOKIE_SECURE: 'false',
        AUTH_PROVIDERS: 'corp',
        AUTH_CORP_DRIVER: 'openid',
        AUTH_CORP_LABEL: 'Corp',
        AUTH_CORP_CLIENT_ID: TEST_CLIENT.id,
        AUTH_CORP_CLIENT_SECRET: TEST_CLIENT.secret,
        AUTH_CORP_ISSUER_URL: provider().issuer,
        AUTH_CORP_ALLOW_INSECURE_REQUESTS: 'true',
        AUTH_CORP_ALLOW_PUBLIC_REGISTRATION: 'true',
        AUTH_CORP_REDIRECT_ALLOW_LIST: APP,
      }),
    },
  );
});
