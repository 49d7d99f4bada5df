import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { asAdmin, dataOf } from '../integration/access/permission-helpers.js';
import { createRole, createUser } from '../integration/auth/helpers.js';
import { TEST_ADMIN } from '../support/server.js';
import { defaultList } from '../support/studio-browser.js';
import { studioSuite } from '../support/studio-suite.js';

const ARTICLES = 12;

/** `date` as an <input type="datetime-local"> value (local time, to the second). */
function localMoment(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())}T${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}`;
}

/** Waits until the clock has passed `ms` after `since` (revisions are told apart by their time). */
async function clockPast(since: number, ms: number): Promise<void> {
  while (Date.now() < since + ms) await new Promise((r) => setTimeout(r, since + ms - Date.now()));
}

/**
 * The Studio's item list (/admin/content/<collection>): the filter builder, bookmarks (svc_presets),
 * the cards layout, archived items, bulk edit with Undo, bulk export, the list as it was at a
 * moment, and where a limited role lands; axe-core on each page, and a 390 px screen.
 */
describe('Studio list in Chromium', function () {
  this.timeout(180_000);
  const studio = studioSuite('studio-list', { database: 'sqlite' });
  const { browser, shot, expectAccessible, main, nav } = studio;
  let page: Page;
  before(() => {
    page = studio.page;
  });

  studio.onDatabase('studio list', (ctx) => {
    const { url } = studio;
    let moment = new Date();
    const items = async (query: string) =>
      dataOf<Record<string, unknown>[]>(await asAdmin(ctx(), 'GET', `/items/articles?${query}`));
    const row = (title: string) =>
      page.locator('tbody tr').filter({ has: page.locator('td.column-title', { hasText: new RegExp(`^${title}$`) }) });
    const rowTitles = async () =>
      (await page.locator('tbody tr td.column-title').allInnerTexts()).map((t) => t.trim()).sort();

    before(async () => {
      const key = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };
      dataOf(
        await asAdmin(ctx(), 'POST', '/collections', {
          collection: 'authors',
          schema: {},
          meta: { display_template: '{{name}}' },
          fields: [
            key,
            { field: 'name', type: 'string' },
            // Each author's articles: a one-to-many for the filter builder's _some / _none.
            { field: 'articles', type: 'alias', meta: { special: ['o2m'], interface: 'list-o2m' } },
          ],
        }),
      );
      dataOf(await asAdmin(ctx(), 'POST', '/items/authors', [{ name: 'Ada Lovelace' }, { name: 'Grace Hopper' }]));
      const choices = ['draft', 'published', 'archived'].map((value) => ({ text: value, value }));
      dataOf(
        await asAdmin(ctx(), 'POST', '/collections', {
          collection: 'articles',
          schema: {},
          meta: {
            display_template: '{{title}}',
            archive_field: 'status',
            archive_value: 'archived',
            unarchive_value: 'draft',
          },
          fields: [
            key,
            { field: 'title', type: 'string' },
            { field: 'status', type: 'string', meta: { interface: 'select-dropdown', options: { choices } } },
            { field: 'views', type: 'integer' },
            { field: 'author', type: 'integer', meta: { interface: 'select-dropdown-m2o', special: ['m2o'] } },
            { field: 'cover', type: 'uuid', meta: { interface: 'file-image', special: ['file'] } },
          ],
        }),
      );
      for (const [field, related, meta] of [
        ['author', 'authors', { one_field: 'articles' }],
        ['cover', 'svc_files', {}],
      ] as const)
        dataOf(
          await asAdmin(ctx(), 'POST', '/relations', {
            collection: 'articles',
            field,
            related_collection: related,
            meta,
          }),
        );
      const png = await sharp({ create: { width: 640, height: 400, channels: 3, background: '#1565c0' } })
        .png()
        .toBuffer();
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'cover.png');
      const uploaded = await ctx().api('/files', {
        method: 'POST',
        body: form,
        headers: { Authorization: `Bearer ${TEST_ADMIN.token}` },
      });
      const cover = ((await uploaded.json()) as { data: { id: string } }).data.id;
      const rows = Array.from({ length: ARTICLES }, (_, i) => ({
        title: `Article ${String(i + 1).padStart(2, '0')}`,
        // The last one is archived.
        status: i === ARTICLES - 1 ? 'archived' : 'draft',
        views: i * 10,
        // Grace wrote the first two, Ada the rest.
        author: i < 2 ? 2 : 1,
        cover: i === 0 ? cover : null,
      }));
      dataOf(await asAdmin(ctx(), 'POST', '/items/articles', rows));
      // A moment between the articles' creation and an edit of one: the list as it was then.
      await clockPast(Date.now(), 1100);
      moment = new Date();
      await clockPast(moment.getTime(), 1100);
      dataOf(await asAdmin(ctx(), 'PATCH', '/items/articles/5', { title: 'Article 05 (edited)' }));
    });

    it('filters with the builder: two conditions in an or group, one on a related field', async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      await browser().signIn(url(''), TEST_ADMIN);
      // The page's rows without their count (one more row tells a next page), the count apart.
      const rowsAsked = page.waitForRequest((r) => /\/items\/articles\?.*limit=26/.test(r.url()));
      const countAsked = page.waitForRequest((r) => /\/items\/articles\?.*limit=0.*meta=filter_count/.test(r.url()));
      await page.goto(url('/admin/content/articles'));
      expect((await rowsAsked).url()).to.not.include('meta=');
      await countAsked;
      // Archived items are hidden: ARTICLES - 1 shown.
      await page.getByText(`1-${ARTICLES - 1} of ${ARTICLES - 1}`).waitFor();
      await page.getByRole('button', { name: /^Filter/ }).click();
      const builder = page.getByRole('group', { name: 'Filter the items' });
      await builder.getByRole('button', { name: 'Any (or)' }).click();
      await builder.getByRole('button', { name: 'Add condition' }).click();
      await builder.getByRole('button', { name: 'Add condition' }).click();
      const rules = builder.getByTestId('filter-rule');
      await rules.nth(0).getByRole('combobox', { name: 'Field' }).click();
      await page.getByRole('option', { name: 'views', exact: true }).click();
      await rules.nth(0).getByRole('combobox', { name: 'Operator' }).click();
      await page.getByRole('option', { name: 'greater than or equal' }).click();
      await rules.nth(0).getByLabel('Value').fill('90');
      await rules.nth(1).getByRole('combobox', { name: 'Field' }).click();
      await page.getByRole('option', { name: 'author → name' }).click();
      await rules.nth(1).getByLabel('Value').fill('Grace Hopper');
      // views ≥ 90: 10 and 11 (12 is archived); Grace: 1 and 2.
      await page.getByText('1-4 of 4').waitFor();
      expect(await rowTitles()).to.deep.equal(['Article 01', 'Article 02', 'Article 10', 'Article 11']);
      const filter = { _or: [{ views: { _gte: 90 } }, { author: { name: { _eq: 'Grace Hopper' } } }] };
      const expected = await items(
        `filter=${encodeURIComponent(JSON.stringify({ _and: [filter, { status: { _neq: 'archived' } }] }))}&fields=title`,
      );
      expect(expected.map((i) => i['title']).sort()).to.deep.equal(await rowTitles());
      // The JSON is the same filter; invalid JSON is shown, not applied.
      await builder.getByLabel('Edit as JSON').check();
      const json = builder.getByLabel('Filter (JSON)');
      expect(JSON.parse(await json.inputValue())).to.deep.equal(filter);
      await json.fill('{"views": ');
      await builder.getByText(/Not applied, the JSON is invalid/).waitFor();
      await page.getByText('1-4 of 4').waitFor();
      await json.fill(JSON.stringify(filter));
      await builder.getByLabel('Edit as JSON').uncheck();
      await shot('filter-builder');
      await expectAccessible('filter-builder');
    });

    it('saves the view as a bookmark, which opens from the navigation after a reload', async () => {
      await page.getByRole('button', { name: 'Column widths' }).click();
      await page.getByRole('dialog', { name: 'Column widths' }).getByLabel('title').fill('320');
      await page.getByRole('dialog', { name: 'Column widths' }).getByRole('button', { name: 'Close' }).click();
      const width = await page.locator('thead th.column-title').evaluate((th) => th.getBoundingClientRect().width);
      expect(width).to.be.within(318, 322);
      await page.getByRole('button', { name: 'Save as bookmark' }).click();
      const dialog = page.getByRole('dialog', { name: 'Save as bookmark' });
      await dialog.getByLabel('Name').fill('Popular or Grace');
      await expectAccessible('bookmark-dialog');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Bookmark: Popular or Grace').waitFor();
      const presets = dataOf<Record<string, unknown>[]>(
        await asAdmin(ctx(), 'GET', '/presets?filter[bookmark][_eq]=Popular%20or%20Grace'),
      );
      expect(presets).to.have.length(1);
      expect(presets[0]).to.include({ collection: 'articles', layout: 'tabular', role: null });
      expect(presets[0]?.['filter']).to.deep.equal({
        _or: [{ views: { _gte: 90 } }, { author: { name: { _eq: 'Grace Hopper' } } }],
      });
      expect(presets[0]?.['layout_query']).to.have.nested.property('tabular.limit', 25);
      expect(presets[0]?.['layout_options']).to.have.nested.property('tabular.widths.title', 320);
      await page.goto(url('/admin/content/articles?filter=%7B%7D'));
      await page.getByText(`1-${ARTICLES - 1} of ${ARTICLES - 1}`).waitFor();
      await nav().getByRole('link', { name: 'Popular or Grace' }).click();
      await page.getByText('Bookmark: Popular or Grace').waitFor();
      await page.getByText('1-4 of 4').waitFor();
      // Renamed, then closed: the user's last view (the preset without bookmark) is kept.
      await page.getByRole('button', { name: 'Rename the bookmark' }).click();
      await page.getByRole('dialog').getByLabel('Name').fill('Busy ones');
      await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
      await nav().getByRole('link', { name: 'Busy ones' }).waitFor();
      await shot('bookmark');
      await expectAccessible('bookmark');
    });

    it('saves a changed view into the open bookmark, as a new bookmark, or reverts to it', async function () {
      this.timeout(300_000);
      const chip = (text: string) => page.getByText(text, { exact: true });
      const saveInto = page.getByRole('button', { name: 'Save the bookmark' });
      const search = page.getByRole('textbox', { name: 'Search' });
      const bookmark = async (name: string) =>
        dataOf<Record<string, unknown>[]>(
          await asAdmin(ctx(), 'GET', `/presets?filter[bookmark][_eq]=${encodeURIComponent(name)}`),
        );
      await chip('Bookmark: Busy ones').waitFor();
      expect(await saveInto.count()).to.equal(0);
      // A search: the bookmark is changed; reverting brings its view back.
      await search.fill('Article 1');
      await page.getByText('1-2 of 2').waitFor();
      await chip('Bookmark: Busy ones (changed)').waitFor();
      await shot('bookmark-changed');
      await expectAccessible('bookmark-changed');
      await page.getByRole('button', { name: 'Revert to the bookmark' }).click();
      await page.getByText('1-4 of 4').waitFor();
      await chip('Bookmark: Busy ones').waitFor();
      await browser().valueShown(search, '');
      // Sorted by views, descending: saved into the bookmark.
      const sortedBy = (order: string) => (u: URL) =>
        u.searchParams.get('sort') === 'views' && u.searchParams.get('order') === order;
      const views = page.locator('thead th.column-views').getByRole('button');
      await views.click();
      await page.waitForURL(sortedBy('ASC'));
      await views.click();
      await page.waitForURL(sortedBy('DESC'));
      await chip('Bookmark: Busy ones (changed)').waitFor();
      await saveInto.click();
      await page.getByText('Bookmark saved.').waitFor();
      await chip('Bookmark: Busy ones').waitFor();
      const [saved] = await bookmark('Busy ones');
      expect(saved?.['layout_query']).to.have.nested.property('tabular.sort').that.deep.equals(['-views']);
      expect(saved?.['filter']).to.deep.equal({
        _or: [{ views: { _gte: 90 } }, { author: { name: { _eq: 'Grace Hopper' } } }],
      });
      // Searched again, saved as a new bookmark: the first one keeps its view.
      await search.fill('Article 1');
      await page.getByText('1-2 of 2').waitFor();
      await page.getByRole('button', { name: 'Save as new bookmark' }).click();
      const dialog = page.getByRole('dialog', { name: 'Save as new bookmark' });
      await dialog.getByLabel('Name').fill('Busy tens');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await chip('Bookmark: Busy tens').waitFor();
      await nav().getByRole('link', { name: 'Busy tens' }).waitFor();
      expect((await bookmark('Busy tens'))[0]).to.include({ search: 'Article 1', user: saved?.['user'] });
      expect((await bookmark('Busy ones'))[0]).to.include({ search: null });
      await page.getByRole('button', { name: 'Delete the bookmark' }).click();
      await page.getByText('Bookmark deleted.').waitFor();
      await page.goto(url(`/admin/content/articles?bookmark=${String(saved?.['id'])}`));
      await chip('Bookmark: Busy ones').waitFor();
      await page.getByText('1-4 of 4').waitFor();
    });

    it('shows cards, and archived items only when asked', async () => {
      await page.getByRole('button', { name: 'Cards' }).click();
      const cards = page.getByTestId('cards');
      await cards.getByText('Article 01').waitFor();
      expect(await cards.locator('.MuiCard-root').count()).to.equal(4);
      // The image field's thumbnail, 320 px wide from /assets/<id>?width=320.
      const thumbnail = cards.getByRole('img', { name: 'Article 01' });
      await thumbnail.waitFor();
      await page.waitForFunction(
        (img) => ((img as { naturalWidth?: number } | null)?.naturalWidth ?? 0) > 0,
        await thumbnail.elementHandle(),
      );
      expect(await thumbnail.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).to.equal(
        320,
      );
      await shot('cards');
      await expectAccessible('cards');
      await page.getByRole('button', { name: 'Table' }).click();
      await page.getByRole('button', { name: 'Close the bookmark' }).click();
      await page.getByRole('button', { name: /^Filter/ }).click();
      await page.getByRole('group', { name: 'Filter the items' }).getByLabel('Edit as JSON').check();
      await page.getByLabel('Filter (JSON)').fill('');
      await page.getByText(`1-${ARTICLES - 1} of ${ARTICLES - 1}`).waitFor();
      expect(await rowTitles()).to.not.include(`Article ${ARTICLES}`);
      await page.getByLabel('Show archived').check();
      await page.getByText(`1-${ARTICLES} of ${ARTICLES}`).waitFor();
      await page.locator('tbody td.column-title', { hasText: `Article ${ARTICLES}` }).waitFor();
      await page.getByLabel('Show archived').uncheck();
      await page.getByText(`1-${ARTICLES - 1} of ${ARTICLES - 1}`).waitFor();
    });

    it('sets the status of two selected items at once, then Undo puts them back', async () => {
      const select = (title: string) => row(title).getByRole('checkbox').check();
      await select('Article 03');
      await select('Article 04');
      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit 2 items' });
      await dialog.getByRole('combobox', { name: 'Fields to set' }).click();
      await page.getByRole('option', { name: 'status' }).click();
      await page.keyboard.press('Escape');
      await dialog.getByRole('combobox', { name: 'status', exact: true }).click();
      await page.getByRole('option', { name: 'published' }).click();
      await expectAccessible('bulk-edit');
      await dialog.getByRole('button', { name: 'Apply' }).click();
      await page.getByText('2 items saved.').waitFor();
      const statuses = async () => (await items('filter[id][_in]=3,4&fields=status&sort=id')).map((i) => i['status']);
      expect(await statuses()).to.deep.equal(['published', 'published']);
      await shot('bulk-edited');
      await page.getByRole('button', { name: 'Undo' }).click();
      await page.getByText('Undone.').waitFor();
      expect(await statuses()).to.deep.equal(['draft', 'draft']);
      // A bulk delete, undone likewise.
      await select('Article 06');
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.getByRole('dialog', { name: 'Delete 1 item?' }).getByRole('button', { name: 'Delete' }).click();
      await page.getByText('1 item deleted.').waitFor();
      expect(await items('filter[id][_eq]=6&fields=title')).to.deep.equal([]);
      await page.getByRole('button', { name: 'Undo' }).click();
      await page.getByText('Undone.').waitFor();
      expect(await items('filter[id][_eq]=6&fields=title')).to.deep.equal([{ title: 'Article 06' }]);
      await row('Article 06').waitFor();
    });

    it('exports the selected items', async () => {
      await row('Article 01').getByRole('checkbox').check();
      await row('Article 02').getByRole('checkbox').check();
      await page.getByRole('button', { name: 'Export selected' }).click();
      const dialog = page.getByRole('dialog', { name: 'Export selected' });
      await dialog.getByRole('combobox', { name: 'Format' }).click();
      await page.getByRole('option', { name: 'JSON' }).click();
      const download = page.waitForEvent('download');
      await dialog.getByRole('button', { name: 'Export' }).click();
      const file = await (await download).path();
      const exported = JSON.parse(readFileSync(file, 'utf8')) as { title: string }[];
      expect(exported.map((i) => i.title).sort()).to.deep.equal(['Article 01', 'Article 02']);
      await page.getByText('Exported.').waitFor();
      await page
        .getByRole('button', { name: 'Unselect' })
        .click()
        .catch(() => undefined);
    });

    it('shows the list as it was at a moment, read-only', async () => {
      await page.locator('tbody td.column-title', { hasText: 'Article 05 (edited)' }).waitFor();
      await page.getByLabel('As it was at').fill(localMoment(moment));
      await page.getByText(/read-only/).waitFor();
      await page.locator('tbody td.column-title', { hasText: /^Article 05$/ }).waitFor();
      expect(await page.locator('tbody td.column-title', { hasText: 'edited' }).count()).to.equal(0);
      // Read-only: no bulk selection, no Create.
      expect(await page.locator('thead').getByRole('checkbox').count()).to.equal(0);
      expect(await page.getByRole('link', { name: 'Create' }).count()).to.equal(0);
      await shot('as-of');
      await expectAccessible('as-of');
      await page.getByRole('button', { name: 'Back to now' }).click();
      await page.locator('tbody td.column-title', { hasText: 'Article 05 (edited)' }).waitFor();

      // The time slider, by keyboard: its left end is the collection's first recorded change,
      // its right end now.
      const rows = dataOf<{ min: { timestamp: string } }[]>(
        await asAdmin(ctx(), 'GET', '/activity?filter[collection][_eq]=articles&aggregate[min]=timestamp'),
      );
      const first = localMoment(new Date(String(rows[0]?.min.timestamp)));
      const slider = page.getByRole('slider', { name: 'Move through time' });
      expect(await slider.getAttribute('aria-valuetext')).to.equal('Now');
      await slider.focus();
      await page.keyboard.press('Home');
      await page.getByText(/read-only/).waitFor();
      expect(await page.getByLabel('As it was at').inputValue()).to.equal(first);
      // The list before its items: its controls stay, and the slider keeps the focus.
      expect(await studio.isFocused(slider)).to.equal(true);
      await shot('as-of-slider');
      // Read out as the moment, not "Now".
      expect(await slider.getAttribute('aria-valuetext')).to.include(String(new Date(first).getFullYear()));
      await page.keyboard.press('End');
      await page.locator('tbody td.column-title', { hasText: 'Article 05 (edited)' }).waitFor();
      expect(await page.getByLabel('As it was at').inputValue()).to.equal('');
    });

    it('filters on a one-to-many with _some, then _none, of a condition on the related items', async () => {
      await page.goto(url('/admin/content/authors'));
      await page.getByText('1-2 of 2').waitFor();
      await page.getByRole('button', { name: /^Filter/ }).click();
      const builder = page.getByRole('group', { name: 'Filter the items' });
      await builder.getByRole('button', { name: 'Add condition' }).click();
      // The outer condition holds the related one: its own controls are the first of their name.
      const outer = builder.getByTestId('filter-rule').first();
      await outer.getByRole('combobox', { name: 'Field' }).first().click();
      await page.getByRole('option', { name: 'articles', exact: true }).click();
      const related = builder.getByRole('group', { name: 'Conditions on the items of articles' });
      const inner = related.getByTestId('filter-rule');
      await inner.getByRole('combobox', { name: 'Field' }).click();
      await page.getByRole('option', { name: 'views', exact: true }).click();
      await inner.getByRole('combobox', { name: 'Operator' }).click();
      await page.getByRole('option', { name: 'greater than or equal' }).click();
      await inner.getByLabel('Value').fill('90');
      // Ada wrote the articles with 90 and more views; Grace none of them.
      await page.getByText('1-1 of 1').waitFor();
      const names = () => page.locator('tbody tr td.column-name').allInnerTexts();
      expect(await names()).to.deep.equal(['Ada Lovelace']);
      await outer.getByRole('combobox', { name: 'Operator' }).first().click();
      await page.getByRole('option', { name: 'has none that match' }).click();
      await page.locator('tbody tr td.column-name', { hasText: 'Grace Hopper' }).waitFor();
      expect(await names()).to.deep.equal(['Grace Hopper']);
      const filter = { articles: { _none: { views: { _gte: 90 } } } };
      const answer = dataOf<Record<string, unknown>[]>(
        await asAdmin(ctx(), 'GET', `/items/authors?filter=${encodeURIComponent(JSON.stringify(filter))}&fields=name`),
      );
      expect(answer.map((a) => a['name'])).to.deep.equal(['Grace Hopper']);
      await builder.getByLabel('Edit as JSON').check();
      expect(JSON.parse(await builder.getByLabel('Filter (JSON)').inputValue())).to.deep.equal(filter);
      await builder.getByLabel('Edit as JSON').uncheck();
      await shot('filter-some');
      await expectAccessible('filter-some');
    });

    it("shares a bookmark with everyone or with a role; the navigation lists only the user's own, their role's and everyone's", async () => {
      const role = await createRole(ctx().server.db, { name: 'Readers' });
      const reader = await createUser(ctx().server.db, { role });
      dataOf(
        await asAdmin(ctx(), 'POST', '/presets', { collection: 'articles', bookmark: 'Not yours', user: reader.id }),
      );
      await page.goto(url('/admin/content/articles?filter=%7B%7D'));
      const save = async (name: string, owner: string, roleName?: string) => {
        await page.getByRole('button', { name: 'Save as bookmark' }).click();
        const dialog = page.getByRole('dialog', { name: 'Save as bookmark' });
        await dialog.getByLabel('Name').fill(name);
        await dialog.getByRole('radio', { name: owner }).check();
        if (roleName !== undefined) {
          await dialog.getByRole('combobox', { name: 'Role' }).click();
          await page.getByRole('option', { name: roleName, exact: true }).click();
          await expectAccessible('bookmark-share');
        }
        await dialog.getByRole('button', { name: 'Save' }).click();
        await page.getByText(`Bookmark: ${name}`).waitFor();
        await page.getByRole('button', { name: 'Close the bookmark' }).click();
      };
      await save('For all', 'Everyone');
      await save('For readers', 'A role', 'Readers');
      const filter = encodeURIComponent(JSON.stringify({ bookmark: { _in: ['For all', 'For readers'] } }));
      const rows = dataOf<Record<string, unknown>[]>(
        await asAdmin(ctx(), 'GET', `/presets?filter=${filter}&fields=bookmark,user,role&sort=bookmark`),
      );
      expect(rows).to.deep.equal([
        { bookmark: 'For all', user: null, role: null },
        { bookmark: 'For readers', user: null, role },
      ]);
      await nav().getByRole('link', { name: 'For all' }).waitFor();
      expect(await nav().getByRole('link', { name: 'For readers' }).count()).to.equal(0);
      expect(await nav().getByRole('link', { name: 'Not yours' }).count()).to.equal(0);
    });

    it('fits a 390 px wide screen', async () => {
      await page.setViewportSize({ width: 390, height: 800 });
      await page.goto(url(defaultList('articles')));
      await page.getByText('Article 01').waitFor();
      await page.getByRole('button', { name: /^Filter/ }).click();
      await page.getByRole('group', { name: 'Filter the items' }).waitFor();
      const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow).to.be.at.most(0);
      await shot('list-390');
      await expectAccessible('list-390');
      // Scrolled to the end, the create button floating at the bottom right covers no other control.
      await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
      expect(await page.evaluate('window.scrollY')).to.be.above(0);
      const covered = await page.evaluate(`(() => {
        const fab = document.querySelector('main a[aria-label="Create"]');
        if (fab === null) return ['no create button'];
        const f = fab.getBoundingClientRect();
        return [...document.querySelectorAll('main button, main a, main input')]
          .filter((el) => el !== fab && !fab.contains(el))
          .filter((el) => {
            const r = el.getBoundingClientRect();
            return r.width > 0 && r.left < f.right && r.right > f.left && r.top < f.bottom && r.bottom > f.top;
          })
          .map((el) => el.getAttribute('aria-label') || el.textContent);
      })()`);
      expect(covered).to.deep.equal([]);
      await shot('list-390-end');
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    it('keeps a search made just before leaving the list as the last view its next visit opens', async () => {
      await page.goto(url(defaultList('articles')));
      await page.getByText('Article 01').waitFor();
      await page.getByRole('textbox', { name: 'Search' }).fill('Article 07');
      await page.getByText('1-1 of 1').waitFor();
      // Straight on, within the pause after which a change is written.
      await nav().getByRole('link', { name: 'Collections', exact: true }).click();
      await nav().getByRole('link', { name: 'articles', exact: true }).click();
      await browser().valueShown(page.getByRole('textbox', { name: 'Search' }), 'Article 07');
      await page.getByText('1-1 of 1').waitFor();
    });

    it('lands a limited role on the collections it may read; a role without app access is told who grants it', async function () {
      this.timeout(300_000);
      const role = await createRole(ctx().server.db);
      dataOf(
        await asAdmin(ctx(), 'POST', '/permissions', { role, collection: 'articles', action: 'read', fields: ['*'] }),
      );
      const reader = await createUser(ctx().server.db, { role, password: 'reader-password-1' });
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await browser().signIn(url(''), reader);
      await page.goto(url('/admin'));
      await page.getByRole('heading', { name: 'Collections' }).waitFor();
      await main()
        .getByRole('link', { name: /^articles/ })
        .waitFor();
      expect(
        await main()
          .getByRole('link', { name: /^authors/ })
          .count(),
      ).to.equal(0);
      await shot('limited-landing');
      await expectAccessible('limited-landing');
      // A bookmark of the role (an administrator's): this user may save it only as a new one.
      const shared = dataOf<{ id: number }>(
        await asAdmin(ctx(), 'POST', '/presets', {
          collection: 'articles',
          bookmark: 'Team picks',
          role,
          user: null,
          layout: 'tabular',
          filter: { views: { _gte: 50 } },
        }),
      );
      await page.goto(url(`/admin/content/articles?bookmark=${String(shared.id)}`));
      await page.getByText('Bookmark: Team picks', { exact: true }).waitFor();
      await page.getByRole('textbox', { name: 'Search' }).fill('Article 1');
      await page.getByText('Bookmark: Team picks (changed)', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Save as new bookmark' }).waitFor();
      await page.getByRole('button', { name: 'Revert to the bookmark' }).waitFor();
      for (const name of ['Save the bookmark', 'Rename the bookmark', 'Delete the bookmark'])
        expect(await page.getByRole('button', { name }).count(), name).to.equal(0);
      await page.goto(url('/admin'));
      await page.getByRole('heading', { name: 'Collections' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      const outsider = await createRole(ctx().server.db, { app_access: false });
      const user = await createUser(ctx().server.db, { role: outsider, password: 'outsider-password-1' });
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await browser().signIn(url(''), user);
      await page.getByText(/Your role has no access to the Studio; an administrator/).waitFor();
      // The API refuses the catalogue's reads: Chromium logs each refusal, the last ones
      // possibly after the message shows (on a busy machine), so once every one is answered.
      await browser().requestsDone();
      browser().takeProblems([/status of 40[13]/]);
      await shot('no-app-access');
      await expectAccessible('no-app-access');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    });
  });
});
