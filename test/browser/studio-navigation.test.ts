import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { asAdmin, dataOf } from '../integration/access/permission-helpers.js';
import { createRole, createUser } from '../integration/auth/helpers.js';
import { TEST_ADMIN } from '../support/server.js';
import { studioSuite } from '../support/studio-suite.js';

/**
 * Getting around the Studio (Chromium, SQLite and PostgreSQL): an editor's round with the keyboard
 * alone (sign in, open a collection and an item, edit a text, a dropdown and a many-to-one, Ctrl+S,
 * back to the list, a filter condition, a dialog that gives focus back), and what a role that
 * reads some collections (one of them partly) finds in the navigation and at other addresses.
 */
describe('Studio navigation in Chromium', function () {
  this.timeout(180_000);
  const studio = studioSuite('studio-navigation', { database: 'sqlite', viewport: { width: 1280, height: 900 } });
  const { browser, shot, expectAccessible, nav, tabTo, isFocused } = studio;
  let page: Page;
  before(() => {
    page = studio.page;
  });

  studio.onDatabase('studio navigation', (ctx) => {
    const { url } = studio;
    const article = async (id: number) =>
      dataOf<Record<string, unknown>>(await asAdmin(ctx(), 'GET', `/items/articles/${id}?fields=title,status,author`));

    before(async () => {
      const key = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };
      dataOf(
        await asAdmin(ctx(), 'POST', '/collections', {
          collection: 'authors',
          schema: {},
          meta: { display_template: '{{name}}' },
          fields: [key, { field: 'name', type: 'string' }, { field: 'email', type: 'string' }],
        }),
      );
      dataOf(
        await asAdmin(ctx(), 'POST', '/items/authors', [
          { name: 'Ada Lovelace', email: 'ada@example.com' },
          { name: 'Grace Hopper', email: 'grace@example.com' },
        ]),
      );
      const choices = ['draft', 'published'].map((value) => ({ text: value, value }));
      dataOf(
        await asAdmin(ctx(), 'POST', '/collections', {
          collection: 'articles',
          schema: {},
          meta: { display_template: '{{title}}' },
          fields: [
            key,
            { field: 'title', type: 'string', meta: { interface: 'input', sort: 1 } },
            {
              field: 'status',
              type: 'string',
              meta: { interface: 'select-dropdown', options: { choices }, sort: 2 },
            },
            { field: 'views', type: 'integer', meta: { sort: 3 } },
            {
              field: 'author',
              type: 'integer',
              meta: { interface: 'select-dropdown-m2o', special: ['m2o'], sort: 4 },
            },
          ],
        }),
      );
      dataOf(
        await asAdmin(ctx(), 'POST', '/relations', {
          collection: 'articles',
          field: 'author',
          related_collection: 'authors',
        }),
      );
      dataOf(
        await asAdmin(ctx(), 'POST', '/items/articles', [
          { title: 'First', status: 'draft', views: 5, author: 1 },
          { title: 'Second', status: 'draft', views: 50, author: 1 },
          { title: 'Third', status: 'published', views: 500, author: 2 },
        ]),
      );
      dataOf(
        await asAdmin(ctx(), 'POST', '/collections', {
          collection: 'secrets',
          schema: {},
          fields: [key, { field: 'note', type: 'string' }],
        }),
      );
    });

    it('takes an editor through a round with the keyboard alone', async function () {
      // Some hundred key presses, each checked in the page: long on a busy machine.
      this.timeout(300_000);
      await page.goto(url('/admin/login'));
      const keys = page.keyboard;
      await tabTo(page.getByLabel('E-mail'));
      await keys.type(TEST_ADMIN.email);
      await tabTo(page.getByLabel('Password'));
      await keys.type(TEST_ADMIN.password);
      await keys.press('Enter');
      await page.getByRole('button', { name: 'Sign out' }).waitFor();

      // A collection from the navigation, an item from its list.
      await tabTo(nav().getByRole('link', { name: 'articles', exact: true }));
      await keys.press('Enter');
      await page.getByText('1-3 of 3').waitFor();
      const secondRow = page.locator('tbody tr').filter({ hasText: 'Second' });
      await tabTo(secondRow);
      await keys.press('Enter');
      const title = page.getByRole('textbox', { name: 'title' });
      await browser().valueShown(title, 'Second');

      // A text field, a dropdown and a many-to-one, then Ctrl+S.
      await tabTo(title);
      await keys.press('ControlOrMeta+A');
      await keys.type('Second, edited');
      await tabTo(page.getByRole('combobox', { name: 'status' }));
      await keys.press('ArrowDown');
      await page.getByRole('option', { name: 'published' }).waitFor();
      await keys.press('ArrowDown');
      await keys.press('Enter');
      await page.getByRole('combobox', { name: 'status' }).filter({ hasText: 'published' }).waitFor();
      const author = page.getByRole('combobox', { name: 'author' });
      await tabTo(author);
      await keys.press('ControlOrMeta+A');
      // The options settle once the search for all of "Grace" is answered. Until then the list
      // may hold Ada, or the answer to a search for fewer letters (on a busy machine the keys
      // come further apart than the search's debounce): a later answer moves the highlight.
      const searched = page.waitForResponse(
        (response) =>
          response.url().includes('/items/authors?') && new URL(response.url()).searchParams.get('search') === 'Grace',
      );
      await keys.type('Grace');
      await searched;
      // The arrows move to the author (the list may start highlighted, and offers "Create" too).
      const grace = page.getByRole('option', { name: 'Grace Hopper' });
      await grace.waitFor();
      await page.getByRole('option', { name: 'Ada Lovelace' }).waitFor({ state: 'detached' });
      // The answer is shown once react-query has passed it on (a timer) and React rendered it.
      await page.evaluate(`new Promise((resolve) => setTimeout(() => requestAnimationFrame(() => resolve()), 0))`);
      for (let presses = 0; !((await grace.getAttribute('class')) ?? '').includes('Mui-focused'); presses++) {
        expect(presses, 'the arrows never reached Grace Hopper').to.be.below(5);
        await keys.press('ArrowDown');
      }
      await keys.press('Enter');
      await browser().valueShown(author, 'Grace Hopper');
      await shot('keyboard-edit');
      await keys.press('ControlOrMeta+S');
      await page.getByText('Saved.').waitFor();
      expect(await article(2)).to.deep.equal({ title: 'Second, edited', status: 'published', author: 2 });

      // Back to the list, a condition with the filter builder.
      await tabTo(nav().getByRole('link', { name: 'articles', exact: true }), true);
      await keys.press('Enter');
      await page.getByText('1-3 of 3').waitFor();
      const filterButton = page.getByRole('button', { name: /^Filter/ });
      await tabTo(filterButton);
      await keys.press('Enter');
      const builder = page.getByRole('group', { name: 'Filter the items' });
      await tabTo(builder.getByRole('button', { name: 'Add condition' }));
      await keys.press('Enter');
      const rule = builder.getByTestId('filter-rule').first();
      await tabTo(rule.getByRole('combobox', { name: 'Field' }));
      await keys.press('ArrowDown');
      // The menu's type-ahead moves to the option, Enter picks it.
      await page.getByRole('option', { name: 'views', exact: true }).waitFor();
      await keys.type('views');
      await keys.press('Enter');
      await tabTo(rule.getByRole('combobox', { name: 'Operator' }));
      await keys.press('ArrowDown');
      await page.getByRole('option', { name: 'greater than', exact: true }).waitFor();
      await keys.type('greater than');
      await keys.press('Enter');
      await tabTo(rule.getByLabel('Value'));
      await keys.type('40');
      await page.getByText('1-2 of 2').waitFor();
      await shot('keyboard-filter');
      await expectAccessible('keyboard-filter');

      // A dialog opened from the keyboard takes the focus, and Escape gives it back.
      const save = page.getByRole('button', { name: 'Save as bookmark' });
      await tabTo(save);
      await keys.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Save as bookmark' });
      await dialog.waitFor();
      expect(await isFocused(dialog.getByLabel('Name'))).to.equal(true);
      // The browser asks for reduced motion (the suites' default): the dialog appears at once.
      expect(await studio.dialogTransition()).to.equal('0s');
      await keys.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await page.waitForFunction(`document.activeElement?.textContent === 'Save as bookmark'`);
      await keys.press('Tab');
      await page.getByRole('button', { name: 'Sign out' }).focus();
      await keys.press('Enter');
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    });

    it('shows a role only the collections it may read, and says so at the address of another', async function () {
      this.timeout(180_000);
      const role = await createRole(ctx().server.db);
      for (const [collection, fields] of [
        ['articles', ['*']],
        ['authors', ['id', 'name']],
      ] as const)
        dataOf(await asAdmin(ctx(), 'POST', '/permissions', { role, collection, action: 'read', fields }));
      const reader = await createUser(ctx().server.db, { role, password: 'reader-password-1' });
      await browser().signIn(url(''), reader);
      // The collections it may read, each with the count of what it may read of it.
      await studio.navCountShown('articles', '3 items');
      await studio.navCountShown('authors', '2 items');
      const links = (await nav().getByRole('link').allInnerTexts()).map((t) => t.trim().replace(/\s+/g, ' '));
      expect(links).to.deep.equal([
        'Collections',
        'articles 3',
        'authors 2',
        'Export / import',
        'My profile',
        'GraphQL',
      ]);
      // authors: only the fields it may read, as columns and in the filter.
      await nav().getByRole('link', { name: 'authors', exact: true }).click();
      await page.getByText('1-2 of 2').waitFor();
      const columns = (await page.locator('thead th').allInnerTexts()).map((t) => t.trim()).filter((t) => t !== '');
      expect(columns.join(' ')).to.not.include('email');
      expect(columns.join(' ')).to.include('name');
      await shot('restricted-list');
      await expectAccessible('restricted-list');
      for (const path of ['/admin/content/secrets', '/admin/content/secrets/1', '/admin/content/nothing-here']) {
        await page.goto(url(path));
        await page
          .getByRole('alert')
          .filter({ hasText: /your role may not read it/ })
          .waitFor();
        expect(await page.getByRole('link', { name: 'Back to the collections' }).count()).to.equal(1);
      }
      await shot('restricted-no-access');
      await expectAccessible('restricted-no-access');
      await page.goto(url('/admin/settings/roles'));
      await page.getByText('Only administrators may open this page.').waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    });
  });
});
