import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createGuardrails, generate } from 'otplib';
import { asAdmin, call, dataOf } from '../integration/access/permission-helpers.js';
import { chromiumUnavailable } from '../support/chromium.js';
import { ensureConsoleBuilt } from '../support/console-build.js';
import { pngHeader } from '../support/png-header.js';
import { freePort } from '../support/ports.js';
import { describeEachDatabase, TEST_ADMIN } from '../support/server.js';
import { DATABASE_TARGETS, requireOrSkip } from '../support/services.js';
import { SmtpInbox } from '../support/smtp-inbox.js';
import { StudioBrowser } from '../support/studio-browser.js';

type Row = Record<string, unknown>;
const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 });
const otpOf = (secret: string) => generate({ secret, guardrails, epoch: Math.floor(Date.now() / 1000) });

/**
 * The Studio's access pages against a real server: a role made in the app (its permissions
 * matrix and rule editor), a user invited from the app who then sees what that role allows
 * (and the API refuses the rest), view as role, suspension, and the profile (name, TFA, a
 * static token used against the API); axe-core on each page, a 390 px screen.
 */
describe('Studio: roles, users and profile in Chromium', function () {
  this.timeout(60_000);
  const inbox = new SmtpInbox();
  let port = 0;
  let studio: StudioBrowser | undefined;
  let page: Page;

  before(async function () {
    requireOrSkip(this, chromiumUnavailable());
    port = await freePort();
    await Promise.all([inbox.start(), ensureConsoleBuilt()]);
    studio = await StudioBrowser.open('studio-access');
    page = studio.page;
  });
  after(async () => {
    await studio?.close();
    await inbox.stop();
  });
  afterEach(async function () {
    await studio?.afterEach(this.currentTest);
  });

  const browser = (): StudioBrowser => {
    if (studio === undefined) throw new Error('Chromium not started');
    return studio;
  };
  const shot = (name: string) => browser().shot(name);
  const expectAccessible = (name: string) => browser().expectAccessible(name);
  const main = () => browser().main();

  describeEachDatabase(
    'access',
    (ctx) => {
      const base = () => `http://127.0.0.1:${port}`;
      const editor = { email: 'editor@example.com', password: 'editor-password-1' };
      let role = '';
      let editorId = '';
      let own = 0;
      let others = 0;

      before(async () => {
        const fields = [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'title', type: 'string' },
          { field: 'body', type: 'text' },
          { field: 'user_created', type: 'uuid', meta: { special: ['user-created'], readonly: true } },
        ];
        dataOf(await asAdmin(ctx(), 'POST', '/collections', { collection: 'articles', schema: {}, meta: {}, fields }));
        const items = dataOf<Row[]>(
          await asAdmin(ctx(), 'POST', '/items/articles', [
            { title: 'Mine to edit', body: 'First body' },
            { title: 'Not mine', body: 'Second body' },
          ]),
        );
        own = Number(items[0]?.['id']);
        others = Number(items[1]?.['id']);
      });

      const select = async (label: string, option: string) => {
        await page.getByRole('combobox', { name: label }).click();
        await page.getByRole('option', { name: option, exact: true }).click();
      };
      const permissionsOf = async () =>
        (await ctx()
          .server.db('svc_permissions')
          .where({ role })
          .select('collection', 'action', 'permissions', 'fields')) as Row[];

      it('makes an Editors role: app access, read all articles, update own items on some fields', async () => {
        await browser().signIn(base(), TEST_ADMIN);
        await browser().nav().getByRole('link', { name: 'Roles' }).click();
        await page.getByRole('button', { name: 'Create role' }).click();
        await page.getByRole('dialog').getByLabel('Name').fill('Editors');
        await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
        await page.waitForURL(/\/admin\/settings\/roles\/[0-9a-f-]{36}$/);
        role = /roles\/([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? '';
        await page.getByLabel('Description').fill('Writes articles');
        await page.getByRole('button', { name: 'Save' }).click();
        await page.getByText('Saved.').waitFor();
        const row = (await ctx().server.db('svc_roles').where({ id: role }).first()) as Row;
        expect([
          row['name'],
          row['description'],
          Boolean(row['app_access']),
          Boolean(row['admin_access']),
        ]).to.deep.equal(['Editors', 'Writes articles', true, false]);

        await select('articles read', 'All');
        await page.getByRole('combobox', { name: 'articles read' }).filter({ hasText: 'All' }).waitFor();
        await select('articles update', 'Custom');
        const dialog = page.getByRole('dialog');
        // The item rule through the filter builder: user_created equals $CURRENT_USER.
        const rule = dialog.getByRole('group', { name: 'Item rule' });
        await rule.getByRole('button', { name: 'Condition' }).click();
        await select('Field', 'user_created');
        await select('Operator', 'equals');
        await select('Variable', '$CURRENT_USER');
        await dialog.getByLabel('All fields').uncheck();
        await dialog.getByLabel('title', { exact: true }).check();
        await shot('rule-editor');
        await expectAccessible('rule-editor');
        await dialog.getByRole('button', { name: 'Save' }).click();
        await dialog.waitFor({ state: 'detached' });
        await page.getByRole('button', { name: 'Add the app access minimum' }).click();
        await page.getByText('The app access minimum is granted.').waitFor();
        await shot('role');
        await expectAccessible('role');

        const rows = await permissionsOf();
        const parse = (v: unknown) => (typeof v === 'string' ? (JSON.parse(v) as unknown) : v);
        const articles = rows
          .filter((r) => r['collection'] === 'articles')
          .map((r): Row => ({ ...r, permissions: parse(r['permissions']) }));
        expect(articles.find((r) => r['action'] === 'read')).to.deep.include({ permissions: {}, fields: '*' });
        expect(articles.find((r) => r['action'] === 'update')).to.deep.include({
          permissions: { user_created: { _eq: '$CURRENT_USER' } },
          fields: 'title',
        });
        expect(articles.map((r) => r['action']).sort()).to.deep.equal(['read', 'update']);
        expect(rows.filter((r) => r['action'] === 'read').map((r) => r['collection'])).to.include.members([
          'svc_collections',
          'svc_fields',
          'svc_users',
        ]);
      });

      it('invites a user from the app; the mailed link accepts; they see what the role allows and the API agrees', async () => {
        await page.goto(`${base()}/admin/users`);
        await page.getByRole('button', { name: 'Invite user' }).click();
        const dialog = page.getByRole('dialog');
        await dialog.getByLabel('E-mail').fill(editor.email);
        await select('Role', 'Editors');
        await dialog.getByRole('button', { name: 'Invite user' }).click();
        await page.getByText('Invitation sent.').waitFor();
        const link = await inbox.nextLink(editor.email);
        expect(link.pathname).to.equal('/admin/accept-invite');
        await main().getByText(editor.email).waitFor();
        await shot('users');
        await expectAccessible('users');

        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
        await page.goto(link.href);
        await page.getByLabel('New password').fill(editor.password);
        await page.getByLabel('Repeat the password').fill(editor.password);
        await page.getByRole('button', { name: 'Create account' }).click();
        await page.getByText('Done.').waitFor();
        const user = (await ctx().server.db('svc_users').where({ email: editor.email }).first()) as Row;
        expect([user['status'], user['role']]).to.deep.equal(['active', role]);
        editorId = String(user['id']);
        await ctx().server.db('articles').where({ id: own }).update({ user_created: editorId });

        await browser().signIn(base(), editor);
        await browser().nav().getByRole('link', { name: 'My profile' }).waitFor();
        expect(await browser().nav().getByRole('link', { name: 'Roles' }).count()).to.equal(0);
        await page.goto(`${base()}/admin/content/articles/${own}`);
        const title = main().getByLabel('Title');
        await browser().valueShown(title, 'Mine to edit');
        expect(await title.isEditable()).to.equal(true);
        expect(await main().getByLabel('Body').isEditable()).to.equal(false);
        expect(await main().getByRole('button', { name: 'Delete' }).count()).to.equal(0);
        await shot('editor-own-item');
        await expectAccessible('editor-own-item');
        await title.fill('Mine, edited');
        await main().getByRole('button', { name: 'Save' }).click();
        await page.getByText('Saved.').first().waitFor();
        expect(await ctx().server.db('articles').where({ id: own }).first('title')).to.deep.equal({
          title: 'Mine, edited',
        });

        await page.goto(`${base()}/admin/content/articles/${others}`);
        const otherTitle = main().getByLabel('Title');
        await browser().valueShown(otherTitle, 'Not mine');
        await page.waitForFunction('document.querySelector(\'#main-content button[type="submit"]\') === null');
        expect(await otherTitle.isEditable()).to.equal(false);
        await shot('editor-other-item');

        // The API refuses what the app hides.
        const login = dataOf<{ access_token: string }>(await call(ctx(), undefined, 'POST', '/auth/login', editor));
        const token = login.access_token;
        expect((await call(ctx(), token, 'PATCH', `/items/articles/${others}`, { title: 'x' })).status).to.equal(403);
        expect((await call(ctx(), token, 'PATCH', `/items/articles/${own}`, { body: 'x' })).status).to.equal(403);
        expect((await call(ctx(), token, 'DELETE', `/items/articles/${own}`)).status).to.equal(403);
        expect((await call(ctx(), token, 'PATCH', `/items/articles/${own}`, { title: 'By the API' })).status).to.equal(
          200,
        );
        expect(dataOf<Row[]>(await call(ctx(), token, 'GET', '/items/articles')).length).to.equal(2);
      });

      it('views as the role: its collections and its items, read-only; then suspends the user, who is refused', async () => {
        await browser().signIn(base(), TEST_ADMIN);
        await page.goto(`${base()}/admin/settings/roles/${role}`);
        await page.getByRole('link', { name: 'View as this role' }).click();
        await page.getByRole('heading', { name: 'View as Editors' }).waitFor();
        await main().getByText('articles: Read, Update').waitFor();
        await select('Collection', 'articles');
        await main().getByText('Not mine').waitFor();
        await select('As user ($CURRENT_USER)', editor.email);
        await main().getByText('By the API').waitFor();
        await shot('view-as-role');
        await expectAccessible('view-as-role');
        const previews = await ctx()
          .server.db('svc_activity')
          .where({ action: 'preview', item: role })
          .count({ n: '*' });
        expect(Number(previews[0]?.['n'])).to.be.greaterThan(0);

        await page.goto(`${base()}/admin/users`);
        await page.getByRole('button', { name: `Manage ${editor.email}` }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Suspend' }).click();
        await page.getByText('Saved.').waitFor();
        expect(await ctx().server.db('svc_users').where({ id: editorId }).first('status')).to.deep.equal({
          status: 'suspended',
        });
        expect((await call(ctx(), undefined, 'POST', '/auth/login', editor)).status).to.equal(401);
      });

      it('profile: changes the name, turns TFA on and off, makes a static token that the API takes', async () => {
        await browser().nav().getByRole('link', { name: 'My profile' }).click();
        await main().getByLabel('First name').fill('Ada');
        await main().getByRole('button', { name: 'Save' }).click();
        await page.getByText('Saved.').waitFor();
        const admin = () => ctx().server.db('svc_users').where({ email: TEST_ADMIN.email }).first() as Promise<Row>;
        expect((await admin())['first_name']).to.equal('Ada');
        await main()
          .locator('input[type="file"]')
          .setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: pngHeader(8, 8) });
        await page.getByText('Avatar saved.').waitFor();
        const avatar = (await admin())['avatar'];
        expect(await ctx().server.db('svc_files').where({ id: avatar }).first('filename_download')).to.deep.equal({
          filename_download: 'me.png',
        });

        await main().getByLabel('Current password').fill(TEST_ADMIN.password);
        await main().getByRole('button', { name: 'Set up' }).click();
        const secret = await main().getByLabel('Secret').inputValue();
        await main()
          .getByLabel('One-time code')
          .fill(await otpOf(secret));
        await main().getByRole('button', { name: 'Turn on' }).click();
        await main().getByText('On: signing in asks').waitFor();
        expect((await admin())['tfa_secret']).to.be.a('string');
        await shot('profile-tfa-on');
        await expectAccessible('profile');
        await main()
          .getByLabel('One-time code')
          .fill(await otpOf(secret));
        await main().getByRole('button', { name: 'Turn off' }).click();
        await main().getByText('Off.').waitFor();
        expect((await admin())['tfa_secret']).to.equal(null);

        await main().getByRole('button', { name: 'Generate token' }).click();
        const token = await main().getByRole('textbox', { name: 'Static token' }).inputValue();
        expect(token).to.have.length(32);
        const me = await call(ctx(), token, 'GET', '/users/me?fields=email');
        expect(dataOf(me)).to.deep.equal({ email: TEST_ADMIN.email });
        await shot('profile-token');
      });

      it('fits a 390 px wide screen: the roles, a role, the users and the profile', async () => {
        await page.setViewportSize({ width: 390, height: 800 });
        try {
          // axe-core on the pages the desktop steps did not check (the roles list, the users' phone list).
          const pages = [
            { path: '/admin/settings/roles', axe: true },
            { path: `/admin/settings/roles/${role}`, axe: false },
            { path: '/admin/users', axe: true },
            { path: '/admin/profile', axe: false },
          ];
          for (const { path, axe } of pages) {
            await page.goto(`${base()}${path}`);
            await main().getByRole('button').first().waitFor();
            // The roles list counts each role's users (the suspended editor too).
            if (path === '/admin/settings/roles')
              await main().getByText('Writes articles · 1 user · App access').waitFor();
            await page.waitForLoadState('networkidle');
            const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
            expect(overflow, path).to.be.at.most(0);
            await shot(`390${path.replace(/\W+/g, '-')}`);
            if (axe) await expectAccessible(`390 ${path}`);
          }
        } finally {
          await page.setViewportSize({ width: 1280, height: 800 });
        }
      });
    },
    {
      targets: DATABASE_TARGETS.filter((t) => t.dialect === 'sqlite' || t.dialect === 'postgres'),
      beforeStop: async () => studio?.leave(),
      env: () => ({
        ...inbox.env(),
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        REFRESH_TOKEN_COOKIE_SECURE: 'false',
      }),
    },
  );
});
