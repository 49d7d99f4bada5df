import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { asAdmin, dataOf } from '../integration/access/permission-helpers.js';
import { TEST_ADMIN } from '../support/server.js';
import { studioSuite } from '../support/studio-suite.js';

/**
 * The Studio's longer flows with the keyboard alone (Chromium, SQLite): a bulk edit of rows
 * picked by their checkboxes, a sorted view saved as a bookmark and opened again from the
 * navigation, a content version created, edited and promoted, and a conflicting save resolved
 * in its dialog. Fixtures come through the API; in the page, only key presses (`tabTo` checks
 * each control is reached by Tab and shows its focus).
 */
describe('Studio flows with the keyboard in Chromium', function () {
  // Each test is a few dozen key presses, each checked in the page: long on a busy machine.
  this.timeout(180_000);
  const studio = studioSuite('studio-keyboard', { database: 'sqlite', viewport: { width: 1280, height: 900 } });
  const { browser, shot, nav, tabTo, isFocused } = studio;
  let page: Page;
  before(() => {
    page = studio.page;
  });

  studio.onDatabase('studio keyboard', (ctx) => {
    const { url } = studio;
    const get = async <T>(path: string) => dataOf<T>(await asAdmin(ctx(), 'GET', path));
    const row = (title: string) =>
      page.locator('tbody tr').filter({ has: page.locator('td.column-title', { hasText: new RegExp(`^${title}$`) }) });
    const rowTitles = async () => (await page.locator('tbody tr td.column-title').allInnerTexts()).map((t) => t.trim());
    const firstRowIs = (title: string) =>
      page
        .locator('tbody tr')
        .first()
        .locator('td.column-title', { hasText: new RegExp(`^${title}$`) })
        .waitFor();
    const sidebar = () => page.getByRole('complementary', { name: 'History, comments and versions' });
    const title = () => page.getByRole('textbox', { name: 'title' });

    /** Opens a select (MUI's menu) from the keyboard and picks `option` by typing its start. */
    async function choose(select: Locator, option: string): Promise<void> {
      await tabTo(select);
      await page.keyboard.press('ArrowDown');
      await page.getByRole('option', { name: option, exact: true }).waitFor();
      await page.keyboard.type(option);
      await page.keyboard.press('Enter');
    }

    before(async () => {
      const key = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };
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
          ],
        }),
      );
      dataOf(
        await asAdmin(ctx(), 'POST', '/items/articles', [
          { title: 'First', status: 'draft', views: 5 },
          { title: 'Second', status: 'draft', views: 50 },
          { title: 'Third', status: 'draft', views: 500 },
          { title: 'Fourth', status: 'draft', views: 20 },
        ]),
      );
      dataOf(
        await asAdmin(ctx(), 'POST', '/collections', {
          collection: 'posts',
          schema: {},
          meta: { versioning: true, display_template: '{{title}}' },
          fields: [key, { field: 'title', type: 'string' }, { field: 'body', type: 'text' }],
        }),
      );
      dataOf(
        await asAdmin(ctx(), 'POST', '/items/posts', [
          { title: 'First post', body: 'The quick brown fox' },
          { title: 'Second post', body: 'Jumps over' },
        ]),
      );
      // Signed in from the keyboard too.
      await page.goto(url('/admin/login'));
      await tabTo(page.getByLabel('E-mail'));
      await page.keyboard.type(TEST_ADMIN.email);
      await tabTo(page.getByLabel('Password'));
      await page.keyboard.type(TEST_ADMIN.password);
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
    });

    it('sets the status of two rows picked by their checkboxes', async () => {
      const keys = page.keyboard;
      await page.goto(url('/admin/content/articles'));
      await page.getByText('1-4 of 4').waitFor();
      for (const picked of ['Second', 'Fourth']) {
        const box = row(picked).getByRole('checkbox');
        await tabTo(box);
        await keys.press('Space');
        await box.and(page.locator(':checked')).waitFor();
      }
      // The bulk actions sit above the rows: back up to them.
      await tabTo(page.getByRole('button', { name: 'Edit', exact: true }), true);
      await keys.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Edit 2 items' });
      await dialog.waitFor();
      const fieldsToSet = dialog.getByRole('combobox', { name: 'Fields to set' });
      // A multiple choice: Enter toggles the option and the menu stays open until Escape.
      await choose(fieldsToSet, 'status');
      await keys.press('Escape');
      await fieldsToSet.filter({ hasText: 'status' }).waitFor();
      expect(await isFocused(fieldsToSet), 'Escape gives the focus back to the choice').to.equal(true);
      // Named by its label and then its value too ("status published").
      const status = dialog.getByRole('combobox', { name: /^status/ });
      await choose(status, 'published');
      await status.filter({ hasText: 'published' }).waitFor();
      await shot('bulk-edit');
      await tabTo(dialog.getByRole('button', { name: 'Apply' }));
      await keys.press('Enter');
      await page.getByText('2 items saved.').waitFor();
      await dialog.waitFor({ state: 'detached' });
      const statuses = await get<{ title: string; status: string }[]>('/items/articles?fields=title,status&sort=id');
      expect(statuses).to.deep.equal([
        { title: 'First', status: 'draft' },
        { title: 'Second', status: 'published' },
        { title: 'Third', status: 'draft' },
        { title: 'Fourth', status: 'published' },
      ]);
    });

    it('saves a sorted view as a bookmark and opens it again from the navigation', async () => {
      const keys = page.keyboard;
      const name = 'Most read';
      await page.goto(url('/admin/content/articles'));
      await page.getByText('1-4 of 4').waitFor();
      // Sorted by views, descending: Enter on the column's header twice.
      const sortedBy = (field: string, order: string) => (u: URL) =>
        u.searchParams.get('sort') === field && u.searchParams.get('order') === order;
      const views = page.locator('thead th.column-views').getByRole('button');
      await tabTo(views);
      await keys.press('Enter');
      await page.waitForURL(sortedBy('views', 'ASC'));
      // The header offers the other order once the rows are read again.
      await firstRowIs('First');
      await tabTo(views);
      await keys.press('Enter');
      await page.waitForURL(sortedBy('views', 'DESC'));
      await firstRowIs('Third');

      await tabTo(page.getByRole('button', { name: 'Save as bookmark' }), true);
      await keys.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Save as bookmark' });
      await dialog.waitFor();
      expect(await isFocused(dialog.getByLabel('Name')), 'the dialog opens on its Name').to.equal(true);
      await keys.type(name);
      await keys.press('Enter');
      await dialog.waitFor({ state: 'detached' });
      await page.getByText(`Bookmark: ${name}`, { exact: true }).waitFor();
      // The button that opened the dialog is gone: the focus goes to the new bookmark's controls.
      const rename = page.getByRole('button', { name: 'Rename the bookmark' });
      await rename.and(page.locator(':focus-visible')).waitFor();
      const presets = await get<Record<string, unknown>[]>(
        `/presets?filter[bookmark][_eq]=${encodeURIComponent(name)}`,
      );
      expect(presets).to.have.length(1);
      expect(presets[0]).to.include({ collection: 'articles', layout: 'tabular' });
      expect(presets[0]?.['layout_query']).to.have.nested.property('tabular.sort').that.deep.equals(['-views']);

      // Another order (the bookmark shows as changed), then the bookmark from the navigation.
      await tabTo(page.locator('thead th.column-title').getByRole('button'));
      await keys.press('Enter');
      await page.waitForURL(sortedBy('title', 'ASC'));
      await page.getByText(`Bookmark: ${name} (changed)`, { exact: true }).waitFor();
      const link = nav().getByRole('link', { name });
      await tabTo(link, true);
      await keys.press('Enter');
      // The bookmark's view again: its order, and no longer changed.
      await page.waitForURL(sortedBy('views', 'DESC'));
      await page.getByText(`Bookmark: ${name}`, { exact: true }).waitFor();
      await firstRowIs('Third');
      expect(await rowTitles()).to.deep.equal(['Third', 'Second', 'Fourth', 'First']);
      await shot('bookmark-opened');
    });

    it('creates a draft of an item, edits it, saves with Ctrl+S and promotes its title', async () => {
      const keys = page.keyboard;
      await page.goto(url('/admin/content/posts/1'));
      await browser().valueShown(title(), 'First post');
      // The sidebar's tabs: Tab reaches the selected one, the arrows the others, Enter opens.
      const tabs = sidebar().getByRole('tablist');
      await tabTo(tabs.getByRole('tab', { selected: true }));
      const versionsTab = tabs.getByRole('tab', { name: 'Versions' });
      for (let presses = 0; !(await isFocused(versionsTab)); presses++) {
        expect(presses, 'the arrows never reached Versions').to.be.below(3);
        await keys.press('ArrowRight');
      }
      await keys.press('Enter');
      await page.waitForURL((u) => u.searchParams.get('panel') === 'versions');

      await tabTo(sidebar().getByLabel('Draft name'));
      await keys.type('Summer');
      await tabTo(sidebar().getByRole('button', { name: 'Create draft' }));
      await keys.press('Enter');
      await page.waitForURL(/version=Summer/);
      await sidebar().getByText('The form edits the draft "Summer"').waitFor();
      await browser().valueShown(title(), 'First post');
      await tabTo(title(), true);
      await keys.press('ControlOrMeta+A');
      await keys.type('First post, drafted');
      await keys.press('ControlOrMeta+S');
      await page.getByText('Saved to the draft "Summer".').waitFor();
      expect((await get<{ title: string }>('/items/posts/1')).title).to.equal('First post');
      expect((await get<{ title: string }>('/items/posts/1?version=Summer')).title).to.equal('First post, drafted');

      await tabTo(sidebar().getByRole('button', { name: 'Compare with live' }));
      await keys.press('Enter');
      const compare = sidebar().locator('.version-compare');
      const promoteTitle = compare.getByRole('checkbox', { name: 'Promote title' });
      await tabTo(promoteTitle);
      await keys.press('Space');
      await compare.getByRole('button', { name: 'Promote selected' }).and(page.locator(':enabled')).waitFor();
      await shot('version-compare');
      await tabTo(compare.getByRole('button', { name: 'Promote selected' }));
      await keys.press('Enter');
      await page.getByText('Promoted 1 field to the live item.').waitFor();
      await page.waitForURL((u) => !u.search.includes('version='));
      expect(await get<{ title: string; body: string }>('/items/posts/1?fields=title,body')).to.deep.equal({
        title: 'First post, drafted',
        body: 'The quick brown fox',
      });
      await browser().valueShown(title(), 'First post, drafted');
    });

    it('resolves a conflicting save with "Keep mine" from the keyboard', async () => {
      const keys = page.keyboard;
      await page.goto(url('/admin/content/posts/2'));
      await browser().valueShown(title(), 'Second post');
      // Someone else saves the item meanwhile.
      dataOf(await asAdmin(ctx(), 'PATCH', '/items/posts/2', { title: 'Second post, theirs' }));
      await tabTo(title());
      await keys.press('ControlOrMeta+A');
      await keys.type('Second post, mine');
      await keys.press('ControlOrMeta+S');
      const dialog = page.getByRole('dialog', { name: 'This item changed since you opened it' });
      await dialog.locator('tr[data-field="title"]').getByText('Second post, theirs').waitFor();
      // The dialog takes the focus (its container), and Tab stays in it up to its buttons.
      await page.locator('.MuiDialog-root :focus').waitFor();
      await tabTo(dialog.getByRole('button', { name: 'Keep mine' }));
      await shot('conflict');
      await keys.press('Enter');
      await dialog.waitFor({ state: 'detached' });
      await page.getByText('Saved.').first().waitFor();
      expect((await get<{ title: string }>('/items/posts/2')).title).to.equal('Second post, mine');
      // The focus goes back to where the editor was typing.
      await title().and(page.locator(':focus')).waitFor();
      await browser().valueShown(title(), 'Second post, mine');
    });
  });
});
