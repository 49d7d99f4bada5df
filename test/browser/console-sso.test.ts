import { expect } from 'chai';
import { chromiumUnavailable, launchChromium, type RunningChromium } from '../support/chromium.js';
import { ensureConsoleBuilt } from '../support/console-build.js';
import { TEST_CLIENT, TestIdentityProvider } from '../support/identity-provider.js';
import { freePort } from '../support/ports.js';
import { describeEachDatabase } from '../support/server.js';
import { DATABASE_TARGETS, requireOrSkip } from '../support/services.js';

/**
 * Single sign-on from the console's sign-in page in Chromium: the provider GET /auth lists is
 * a button; through a real OpenID provider and back, the console has a session.
 */
describe('web console in Chromium: single sign-on', function () {
  this.timeout(180_000);
  let port = 0;
  let idp: TestIdentityProvider | undefined;
  let chromium: RunningChromium | undefined;

  before(async function () {
    requireOrSkip(this, chromiumUnavailable());
    port = await freePort();
    // One after the other: a provider started beside a failing build would be left running.
    await ensureConsoleBuilt();
    idp = await TestIdentityProvider.start([`http://127.0.0.1:${port}/auth/login/corp/callback`]);
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    await idp?.close();
  });

  describeEachDatabase(
    'console SSO',
    () => {
      it('lists the provider on the sign-in page and signs in through it', async () => {
        if (idp === undefined || chromium === undefined) throw new Error('not started');
        const who = idp.addAccount({ email: 'console-sso@corp.example', given_name: 'Sso' });
        idp.loginAs = who.sub;
        const page = await chromium.newPage();
        await page.goto(`http://127.0.0.1:${port}/admin/login`);
        const button = page.getByRole('link', { name: 'Corp' });
        await button.waitFor();
        expect(await page.getByRole('navigation', { name: 'Single sign-on' }).isVisible()).to.equal(true);
        await button.click();
        await page.waitForURL(`http://127.0.0.1:${port}/admin/content?sso`);
        await page.getByRole('heading', { name: 'Collections' }).waitFor();
        await page.getByRole('button', { name: 'Sign out' }).waitFor();
        // A new user without a role has no app access: the page says so, and who can grant it.
        await page
          .getByRole('alert')
          .filter({ hasText: /no access to the Studio; an administrator .*can grant it/ })
          .waitFor();
        expect(chromium.problems.filter((p) => !p.includes('status of 403'))).to.deep.equal([]);
      });
    },
    {
      targets: DATABASE_TARGETS.filter((t) => t.dialect === 'sqlite'),
      env: () => ({
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        REFRESH_TOKEN_COOKIE_SECURE: 'false',
        AUTH_PROVIDERS: 'corp',
        AUTH_CORP_DRIVER: 'openid',
        AUTH_CORP_LABEL: 'Corp',
        AUTH_CORP_CLIENT_ID: TEST_CLIENT.id,
        AUTH_CORP_CLIENT_SECRET: TEST_CLIENT.secret,
        AUTH_CORP_ISSUER_URL: idp?.issuer ?? '',
        AUTH_CORP_ALLOW_INSECURE_REQUESTS: 'true',
        AUTH_CORP_ALLOW_PUBLIC_REGISTRATION: 'true',
        AUTH_CORP_REDIRECT_ALLOW_LIST: `http://127.0.0.1:${port}/admin/content`,
      }),
    },
  );
});
