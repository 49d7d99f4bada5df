import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { createGuardrails, generate } from 'otplib';
import { asAdmin, call, dataOf } from '../integration/access/permission-helpers.js';
import { createRole, createUser } from '../integration/auth/helpers.js';
import { TEST_ADMIN } from '../support/server.js';
import { SmtpInbox } from '../support/smtp-inbox.js';
import { defaultList } from '../support/studio-browser.js';
import { studioSuite } from '../support/studio-suite.js';

const ARTICLES = 60;
const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 });
const otpOf = (secret: string) => generate({ secret, guardrails, epoch: Math.floor(Date.now() / 1000) });
/** Opt-in: where to save the README's screenshot of the console (e.g. docs/console.png). */
const README_SCREENSHOT = process.env['CONSOLE_README_SCREENSHOT'];

/**
 * The web console (/admin) in headless Chromium against a real server (SQLite: the console
 * speaks only HTTP), with mail caught by a real SMTP receiver. Screenshots of each page go to a
 * temporary folder, printed at the end. Every page must run without console errors.
 */
describe('web console in Chromium', function () {
  this.timeout(180_000);
  const inbox = new SmtpInbox();
  const studio = studioSuite('console', { database: 'sqlite', services: [inbox], motion: 'no-preference' });
  const { shot, withRefusal, main, nav, helperOf, valueShown, navCountShown, expectAccessible } = studio;
  let page: Page;
  before(() => {
    page = studio.page;
  });

  studio.onDatabase(
    'console',
    (ctx) => {
      const { url } = studio;

      before(async () => {
        const key = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };
        const authors = [key, { field: 'name', type: 'string' }];
        const meta = { group: 'Blog', icon: 'person', display_template: '{{name}}' };
        dataOf(
          await asAdmin(ctx(), 'POST', '/collections', { collection: 'authors', schema: {}, meta, fields: authors }),
        );
        dataOf(await asAdmin(ctx(), 'POST', '/items/authors', [{ name: 'Ada Lovelace' }, { name: 'Grace Hopper' }]));
        const fields = [
          key,
          { field: 'title', type: 'string', meta: { required: true } },
          { field: 'body', type: 'text' },
          // The API checks it (meta.validation): its refusal shows at the field.
          { field: 'views', type: 'integer', meta: { validation: { views: { _gte: 0 } } } },
          { field: 'author', type: 'integer', meta: { interface: 'select-dropdown-m2o', special: ['m2o'] } },
        ];
        const group = { group: 'Blog', icon: 'article' };
        dataOf(
          await asAdmin(ctx(), 'POST', '/collections', { collection: 'articles', schema: {}, meta: group, fields }),
        );
        dataOf(
          await asAdmin(ctx(), 'POST', '/relations', {
            collection: 'articles',
            field: 'author',
            related_collection: 'authors',
          }),
        );
        const items = Array.from({ length: ARTICLES }, (_, i) => ({
          title: `Article ${String(i + 1).padStart(2, '0')}`,
          body: `The quick brown fox number ${i + 1}`,
          views: i * 10,
          // Ada wrote every other article from the first; the rest have no author.
          author: i % 2 === 0 ? 1 : null,
        }));
        dataOf(await asAdmin(ctx(), 'POST', '/items/articles', items));
      });

      it('serves the console with a self-only CSP, and every console path loads the app', async () => {
        for (const path of ['/admin', '/admin/content/articles/1/history', '/admin/accept-invite?token=x']) {
          const res = await fetch(url(path));
          expect(res.status, path).to.equal(200);
          expect(res.headers.get('content-type')).to.match(/^text\/html/);
          expect(res.headers.get('content-security-policy')).to.include("default-src 'self'");
          expect(res.headers.get('content-security-policy')).to.include("script-src 'self'");
          // Style elements only with this answer's nonce (MUI's emotion), never 'unsafe-inline'.
          const nonce = /style-src 'self' 'nonce-([^']+)'/.exec(res.headers.get('content-security-policy') ?? '')?.[1];
          expect(nonce, path).to.be.a('string');
          const html = await res.text();
          expect(html).to.include('/admin/app.js');
          expect(html).to.include(`<meta name="csp-nonce" content="${nonce}"`);
          expect(res.headers.get('content-security-policy')).to.not.include('unsafe-inline');
        }
        const script = await fetch(url('/admin/app.js'));
        expect(script.status).to.equal(200);
        expect(script.headers.get('cache-control')).to.equal('no-cache');
        expect(script.headers.get('etag')).to.be.a('string');
        expect((await fetch(url('/admin/missing.js'))).status).to.equal(404);
      });

      it('signs in (a wrong password is refused on the page) and lists the collections', async () => {
        await page.goto(url('/admin'));
        await page.waitForURL(/\/admin\/login/);
        await page.getByLabel('E-mail').fill(TEST_ADMIN.email);
        await page.getByLabel('Password').fill('wrong-password');
        await withRefusal(401, async () => {
          await page.getByRole('button', { name: 'Sign in' }).click();
          await page.getByText('Invalid user credentials').waitFor();
        });
        await expectAccessible('sign-in');
        await page.getByLabel('Password').fill(TEST_ADMIN.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Collections' }).waitFor();
        // The collections by folder, in the page and in the navigation, with their item counts.
        await main()
          .getByRole('link', { name: `articles ${ARTICLES} items` })
          .waitFor();
        await main()
          .getByRole('region', { name: 'Blog' })
          .getByRole('link', { name: /^authors/ })
          .waitFor();
        await page.getByRole('navigation', { name: 'Main' }).getByRole('list', { name: 'Blog' }).waitFor();
        await navCountShown('articles', `${ARTICLES} items`);
        await shot('collections');
        await expectAccessible('collections');
      });

      it('browses items: paging, sort by a column, search and the filter box', async () => {
        await main()
          .getByRole('link', { name: /^articles/ })
          .click();
        await page.getByText(`1-25 of ${ARTICLES}`).waitFor();
        const rows = page.locator('tbody tr');
        expect(await rows.count()).to.equal(25);
        // A cell by its column's name (the first column is the bulk checkbox).
        const headers = (await page.locator('thead th').allInnerTexts()).map((t) => t.trim());
        expect(headers.slice(1)).to.include.members(['id', 'title', 'body', 'views', 'author']);
        const column = (name: string) => headers.indexOf(name);
        const cell = (row: number, name: string) => rows.nth(row).locator('td').nth(column(name)).innerText();
        // A many-to-one shows the related item by its display template, not by its key.
        await rows.first().locator('td').nth(column('author')).filter({ hasText: 'Ada Lovelace' }).waitFor();
        expect(await cell(1, 'author')).to.equal('');
        await page.getByRole('button', { name: 'Go to next page' }).click();
        await page.getByText(`26-50 of ${ARTICLES}`).waitFor();
        // The rows follow the page (the old ones stay on screen while it loads).
        await rows.first().locator('td').nth(column('id')).filter({ hasText: /^26$/ }).waitFor();
        await page.locator('thead').getByText('views', { exact: true }).click();
        await page.getByText(`1-25 of ${ARTICLES}`).waitFor();
        const viewsHeader = page.locator('thead th').filter({ hasText: 'views' });
        await viewsHeader.locator('.Mui-active .MuiTableSortLabel-iconDirectionAsc').waitFor();
        await page.locator('thead').getByText('views', { exact: true }).click();
        await viewsHeader.locator('.Mui-active .MuiTableSortLabel-iconDirectionDesc').waitFor();
        await rows
          .first()
          .locator('td')
          .nth(column('views'))
          .filter({ hasText: String((ARTICLES - 1) * 10) })
          .waitFor();
        await page.getByLabel('Search').fill('Article 42');
        await page.getByText('1-1 of 1').waitFor();
        await page.getByLabel('Search').fill('');
        await page.getByText(`1-25 of ${ARTICLES}`).waitFor();
        // The filter builder's JSON switch: the raw filter.
        await page.getByRole('button', { name: /^Filter/ }).click();
        await page.getByLabel('Edit as JSON').check();
        await page.getByLabel('Filter (JSON)').fill('{"views":{"_lt":30}}');
        await page.getByText('1-3 of 3').waitFor();
        await shot('items');
        await expectAccessible('items');
        // The column picker: a column taken off the table, then put back.
        await page.getByRole('button', { name: 'Columns' }).click();
        const picker = page.locator('.MuiPopover-paper');
        await picker.getByLabel('body').click();
        await page
          .locator('thead th')
          .filter({ hasText: /^body$/ })
          .waitFor({ state: 'detached' });
        await picker.getByLabel('body').click();
        await page
          .locator('thead th')
          .filter({ hasText: /^body$/ })
          .waitFor();
        await page.keyboard.press('Escape');
        await page.getByLabel('Filter (JSON)').fill('');
        await page.getByText(`1-25 of ${ARTICLES}`).waitFor();
        await page.waitForLoadState('networkidle');
        if (README_SCREENSHOT !== undefined) await page.screenshot({ path: resolve(README_SCREENSHOT) });
      });

      it("edits an item: the form's and the API's validation errors show at their field, a good value saves", async () => {
        await page.goto(url('/admin/content/articles/1'));
        const title = page.getByRole('textbox', { name: 'title' });
        await title.waitFor();
        expect(await title.inputValue()).to.equal('Article 01');
        // Required in the catalogue: the form says so at the field before asking the API.
        await title.fill('');
        await page.getByRole('button', { name: 'Save' }).click();
        await (await helperOf(title)).filter({ hasText: 'Required' }).waitFor();
        expect(await title.getAttribute('aria-invalid')).to.equal('true');
        await title.fill('Article one, rewritten');
        // The API's meta.validation refusal (FAILED_VALIDATION naming the field) lands at the field.
        const views = page.getByLabel('views');
        await views.fill('-5');
        await withRefusal(400, async () => {
          await page.getByRole('button', { name: 'Save' }).click();
          await (await helperOf(views)).filter({ hasText: /validation|_gte|0/i }).waitFor();
        });
        expect(await views.getAttribute('aria-invalid')).to.equal('true');
        await shot('item-invalid');
        await views.fill('5');
        await page.getByRole('button', { name: 'Save' }).click();
        await page.getByText('Saved.').waitFor();
        expect(await title.getAttribute('aria-invalid')).to.not.equal('true');
        const saved = dataOf<{ title: string; views: number }>(await asAdmin(ctx(), 'GET', '/items/articles/1'));
        expect(saved).to.include({ title: 'Article one, rewritten', views: 5 });
        await expectAccessible('item');
      });

      it('creates an item with its author picked by name, edits and deletes it', async () => {
        await page.goto(url('/admin/content/articles'));
        await page.getByRole('link', { name: 'Create' }).click();
        await page.waitForURL(/\/create$/);
        await page.getByRole('textbox', { name: 'title' }).fill('Picked author');
        const author = page.getByRole('combobox', { name: 'author' });
        await author.click();
        await author.fill('Grace');
        await page.getByRole('option', { name: 'Grace Hopper' }).click();
        await page.getByRole('button', { name: 'Save' }).click();
        await page.getByText('Created.').waitFor();
        await page.waitForURL(/\/admin\/content\/articles\/\d+$/);
        await navCountShown('articles', `${ARTICLES + 1} items`);
        const id = Number(new URL(page.url()).pathname.split('/').pop());
        const grace = dataOf<{ id: number }[]>(
          await asAdmin(ctx(), 'GET', '/items/authors?filter[name][_eq]=Grace Hopper'),
        );
        const created = dataOf<{ author: number; title: string }>(await asAdmin(ctx(), 'GET', `/items/articles/${id}`));
        expect(created).to.include({ title: 'Picked author', author: grace[0]?.id });
        // The form shows the relation by the related collection's display template.
        await valueShown(author, 'Grace Hopper');
        await shot('item-created');
        await page.getByRole('textbox', { name: 'body' }).fill('Written in the Studio');
        await page.getByRole('button', { name: 'Save' }).click();
        await page.getByText('Saved.').waitFor();
        const edited = dataOf<{ body: string }>(await asAdmin(ctx(), 'GET', `/items/articles/${id}`));
        expect(edited.body).to.equal('Written in the Studio');

        // The list shows the author by name, not by key.
        await page.goto(url(`/admin/content/articles?filter=${encodeURIComponent(JSON.stringify({ q: 'Picked' }))}`));
        await page
          .locator('tbody tr')
          .filter({ hasText: 'Picked author' })
          .filter({ hasText: 'Grace Hopper' })
          .waitFor();
        await page.locator('tbody tr').filter({ hasText: 'Picked author' }).getByText('Picked author').click();
        await page.waitForURL(new RegExp(`/admin/content/articles/${id}$`));

        await page.getByRole('button', { name: 'Delete' }).click();
        await page.getByRole('dialog').waitFor();
        // This suite's browser has no motion preference: the dialog fades in, as most readers see it.
        expect(await studio.dialogTransition()).to.match(/^0\.[1-9]\d*s$/);
        await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
        await page.getByText('Deleted.').waitFor();
        await page.waitForURL(/\/admin\/content\/articles(\?|$)/);
        const gone = await asAdmin(ctx(), 'GET', `/items/articles/${id}`);
        expect(gone.status).to.equal(403);
        await navCountShown('articles', `${ARTICLES} items`);
      });

      it("shows the item's history with who and when, the diff of a revision, and reverts", async () => {
        await page.goto(url('/admin/content/articles/1'));
        await page.getByRole('link', { name: 'History' }).click();
        const revisions = page.locator('li.revision');
        await revisions.first().waitFor();
        expect(await revisions.count()).to.equal(2);
        expect(await revisions.first().innerText()).to.match(/updated by .*admin|updated by Admin/i);
        await revisions.first().getByRole('button', { name: 'Show changes' }).click();
        const diff = revisions.first().locator('table.diff-table');
        await diff.waitFor();
        expect(await diff.locator('del').allInnerTexts()).to.include.members(['01']);
        expect((await diff.locator('ins').allInnerTexts()).join('')).to.include('one, rewritten');
        await shot('history');
        await revisions.nth(1).getByRole('button', { name: 'Revert to this' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
        await page.locator('li.revision').nth(2).waitFor();
        const reverted = dataOf<{ title: string }>(await asAdmin(ctx(), 'GET', '/items/articles/1'));
        expect(reverted.title).to.equal('Article 01');
      });

      it('runs an export, watches the bar reach 100 % and downloads the file', async () => {
        await nav().getByRole('link', { name: 'Export / import' }).click();
        await page.getByRole('heading', { name: 'Export', exact: true }).waitFor();
        await page.locator('#export-collection').selectOption('articles');
        await page.locator('#export-format').selectOption('csv');
        await page.getByLabel('Fields (comma separated, empty for all)').fill('id,title');
        // Nothing runs yet: neither bar shows (a class's display must not beat `hidden`).
        const bars = page.locator('.progress');
        expect(await bars.count()).to.equal(2);
        expect([await bars.nth(0).isVisible(), await bars.nth(1).isVisible()]).to.deep.equal([false, false]);
        const bar = page.getByRole('progressbar', { name: 'Export progress', includeHidden: true });
        // Every value the bar shows, as the page changes it.
        const barId = (await bar.getAttribute('id')) ?? '';
        // Browser code as text: the test files are type-checked without the DOM library.
        await page.evaluate(`(() => {
          const element = document.getElementById(${JSON.stringify(barId)});
          const seen = (globalThis.seenProgress = []);
          const note = () => seen.push(element.getAttribute('value') ?? 'indeterminate');
          new MutationObserver(note).observe(element, { attributes: true, attributeFilter: ['value'] });
        })()`);
        await page.getByRole('button', { name: 'Start export' }).click();
        await page.getByText('Export done').waitFor();
        expect(await bar.getAttribute('value')).to.equal('100');
        const seen = await page.evaluate('globalThis.seenProgress');
        const values = (seen as string[]).filter((v) => v !== 'indeterminate').map(Number);
        expect(values.at(-1)).to.equal(100);
        expect(values, 'the bar never goes back').to.deep.equal([...values].sort((a, b) => a - b));
        expect(await page.locator('.progress-text').first().innerText()).to.equal(`100 % (${ARTICLES} / ${ARTICLES})`);
        await shot('export');
        await expectAccessible('export');
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('link', { name: /^Download/ }).click(),
        ]);
        const file = await download.path();
        const lines = readFileSync(file, 'utf8').trim().split(/\r?\n/);
        expect(lines[0]).to.match(/^"?id"?,"?title"?$/);
        expect(lines).to.have.length(ARTICLES + 1);
      });

      it('imports a file with an upload progress bar', async () => {
        await page.locator('#import-collection').selectOption('articles');
        await page.getByLabel('File (CSV or JSON)').setInputFiles({
          name: 'more.json',
          mimeType: 'application/json',
          buffer: Buffer.from(JSON.stringify([{ title: 'Imported A' }, { title: 'Imported B' }])),
        });
        await page.getByRole('button', { name: 'Import' }).click();
        await page.getByText('Imported more.json into articles.').waitFor();
        expect(await page.getByRole('progressbar', { name: 'Upload progress' }).getAttribute('value')).to.equal('100');
        await expectAccessible('import');
        const imported = dataOf<unknown[]>(
          await asAdmin(ctx(), 'GET', '/items/articles?filter[title][_starts_with]=Imported'),
        );
        expect(imported).to.have.length(2);
      });

      it('shows the server health and clears the caches', async () => {
        await nav().getByRole('link', { name: 'Operations' }).click();
        // ok, or warn when a round trip passed its threshold on a busy machine; never an error.
        await page.locator('[data-health="ok"], [data-health="warn"]').waitFor();
        await page.getByRole('button', { name: 'Clear caches' }).click();
        await page.getByText(/^Caches cleared at/).waitFor();
        await shot('admin');
        await expectAccessible('admin');
      });

      it('opens GraphiQL and runs a query with the session, on /graphql and /graphql/system', async () => {
        await nav().getByRole('link', { name: 'GraphQL' }).click();
        for (const [endpoint, query, expected] of [
          ['/graphql', '{ articles(limit: 1, sort: ["id"]) { id title } }', '"title": "Article 01"'],
          ['/graphql/system', '{ users_me { email } }', `"email": "${TEST_ADMIN.email}"`],
        ] as const) {
          if (endpoint === '/graphql/system') await page.getByRole('link', { name: '/graphql/system' }).click();
          const editor = page.locator('.graphiql-query-editor');
          // Ready once it shows the starting query; then the typed one replaces it.
          await editor.filter({ hasText: '__typename' }).waitFor();
          await editor.locator('.CodeMirror-lines').first().click();
          await page.keyboard.press('Control+A');
          await page.keyboard.press('Delete');
          await page.keyboard.insertText(query);
          await editor.filter({ hasText: query.slice(2, 12) }).waitFor();
          await page.locator('.graphiql-execute-button').click();
          await page.locator('.graphiql-response').filter({ hasText: expected }).waitFor();
        }
        await shot('graphiql');
        await expectAccessible('graphiql');
      });

      it('runs a subscription in GraphiQL: a REST write shows up in the result pane', async () => {
        await page.goto(url('/admin/graphql?endpoint=%2Fgraphql'));
        const editor = page.locator('.graphiql-query-editor');
        await editor.locator('.CodeMirror-lines').first().waitFor();
        await editor.locator('.CodeMirror-lines').first().click();
        await page.keyboard.press('Control+A');
        await page.keyboard.press('Delete');
        const subscription = 'subscription { articles_mutated(event: create) { event data { title } } }';
        await page.keyboard.insertText(subscription);
        await editor.filter({ hasText: 'articles_mutated' }).waitFor();
        await page.locator('.graphiql-execute-button').click();
        // The socket connects at the first subscription: write until an event arrives (at most 20 s).
        const response = page.locator('.graphiql-response');
        for (let attempt = 1; ; attempt++) {
          dataOf(await asAdmin(ctx(), 'POST', '/items/articles', { title: `Live ${attempt}` }));
          const arrived = await response
            .filter({ hasText: /"title": "Live \d+"/ })
            .waitFor({ timeout: 1000 })
            .then(() => true)
            .catch(() => false);
          if (arrived) break;
          expect(attempt, 'no event in the result pane').to.be.below(20);
        }
        await response.filter({ hasText: '"event": "create"' }).waitFor();
        await shot('graphiql-subscription');
        // Stop it: the same button ends the subscription.
        await page.locator('.graphiql-execute-button').click();
      });

      it('accepts an invitation from the mailed link, then the new user signs in', async () => {
        const role = await createRole(ctx().server.db);
        const email = 'invitee@example.com';
        expect((await asAdmin(ctx(), 'POST', '/users/invite', { email, role })).status).to.equal(204);
        const link = await inbox.nextLink(email);
        expect(link.pathname).to.equal('/admin/accept-invite');
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
        await page.goto(link.href);
        await page.getByLabel('New password').fill('invited-password-1');
        await page.getByLabel('Repeat the password').fill('invited-password-1');
        await page.getByRole('button', { name: 'Create account' }).click();
        await page.getByText('Done.').waitFor();
        await shot('accept-invite');
        await expectAccessible('accept-invite');
        await page.getByRole('link', { name: 'Sign in' }).click();
        await page.getByLabel('E-mail').fill(email);
        await page.getByLabel('Password').fill('invited-password-1');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Collections' }).waitFor();
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      });

      it('resets a password and verifies a registration from the mailed links', async () => {
        const email = 'invitee@example.com';
        const reset = await fetch(url('/auth/password/request'), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email }),
        });
        expect(reset.status).to.equal(204);
        const resetLink = await inbox.nextLink(email);
        expect(resetLink.pathname).to.equal('/admin/reset-password');
        await page.goto(resetLink.href);
        await page.getByLabel('New password').waitFor();
        await expectAccessible('reset-password');
        await page.getByLabel('New password').fill('reset-password-2');
        await page.getByLabel('Repeat the password').fill('reset-password-2');
        await page.getByRole('button', { name: 'Set password' }).click();
        await page.getByText('Done.').waitFor();

        dataOf(
          await asAdmin(ctx(), 'PATCH', '/settings', {
            public_registration: true,
            public_registration_verify_email: true,
          }),
        );
        const newcomer = 'newcomer@example.com';
        const registered = await fetch(url('/users/register'), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: newcomer, password: 'newcomer-password-1' }),
        });
        expect(registered.status).to.equal(204);
        const verifyLink = await inbox.nextLink(newcomer);
        await page.goto(verifyLink.href);
        await page.waitForURL(/\/admin\/verify-email\?token=/);
        await page.getByText('Your e-mail address is verified.').waitFor();
        await shot('verify-email');
        await expectAccessible('verify-email');
        const row = await ctx().server.db('svc_users').where({ email: newcomer }).first<{ status: string }>('status');
        expect(row?.status).to.equal('active');
      });

      it('asks for the TFA code when the account has two-factor authentication on', async () => {
        const email = 'invitee@example.com';
        const password = 'reset-password-2';
        const login = await fetch(url('/auth/login'), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password }),
        });
        const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
        const secret = dataOf<{ secret: string }>(
          await call(ctx(), token, 'POST', '/users/me/tfa/generate', { password }),
        ).secret;
        const enabled = await call(ctx(), token, 'POST', '/users/me/tfa/enable', { secret, otp: await otpOf(secret) });
        expect(enabled.status, JSON.stringify(enabled.body)).to.equal(204);

        await page.goto(url('/admin/login'));
        await page.getByLabel('E-mail').fill(email);
        await page.getByLabel('Password').fill(password);
        const code = page.getByLabel('One-time code');
        await withRefusal(401, async () => {
          await page.getByRole('button', { name: 'Sign in' }).click();
          await code.waitFor();
        });
        await expectAccessible('tfa-code');
        await code.fill(await otpOf(secret));
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Collections' }).waitFor();
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      });

      it('offers a read-only role neither Create, Delete, bulk selection nor Save: its fields are read-only', async () => {
        const role = await createRole(ctx().server.db);
        for (const collection of ['articles', 'authors'])
          dataOf(await asAdmin(ctx(), 'POST', '/permissions', { role, collection, action: 'read', fields: ['*'] }));
        const reader = await createUser(ctx().server.db, { role, password: 'reader-password-1' });
        await page.goto(url('/admin/login'));
        await page.getByLabel('E-mail').fill(reader.email);
        await page.getByLabel('Password').fill(reader.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await main()
          .getByRole('link', { name: /^articles/ })
          .click();
        // More than ARTICLES by now: the import and the subscription wrote some.
        await page.getByText(/^1-25 of \d+$/).waitFor();
        expect(await page.getByRole('link', { name: 'Create' }).count()).to.equal(0);
        expect(await page.locator('tbody input[type="checkbox"]').count()).to.equal(0);
        await page.goto(url('/admin/content/articles/2'));
        const title = page.getByRole('textbox', { name: 'title' });
        await valueShown(title, 'Article 02');
        expect(await title.isDisabled()).to.equal(true);
        expect(await page.getByRole('button', { name: 'Save' }).count()).to.equal(0);
        expect(await page.getByRole('button', { name: 'Delete' }).count()).to.equal(0);
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      });

      it('fits a 360 px wide screen: no sideways scrolling on sign-in and the item list', async () => {
        await page.setViewportSize({ width: 360, height: 740 });
        await page.goto(url('/admin/login'));
        await page.getByLabel('E-mail').fill(TEST_ADMIN.email);
        await page.getByLabel('Password').fill(TEST_ADMIN.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('button', { name: 'Sign out' }).waitFor();
        await page.goto(url(defaultList('articles')));
        await page.getByText('Article 01').waitFor();
        const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
        expect(overflow).to.be.at.most(0);
        await shot('items-360');
        await expectAccessible('items-360');
      });
    },
    {
      extraEnv: () => ({
        ...inbox.env(),
        // Small batches: the export's status row moves in several steps.
        EXPORT_BATCH_SIZE: '10',
        // GraphiQL's subscriptions.
        WEBSOCKETS_ENABLED: 'true',
        // The operations page reads /server/metrics (404 without it).
        METRICS_ENABLED: 'true',
      }),
    },
  );
});
