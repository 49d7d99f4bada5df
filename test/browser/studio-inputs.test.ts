import { expect } from 'chai';
import type { Dialog, Page } from 'playwright-core';
import { asAdmin, dataOf } from '../integration/access/permission-helpers.js';
import { TEST_ADMIN } from '../support/server.js';
import { studioSuite } from '../support/studio-suite.js';

const choices = (...names: string[]) => names.map((name) => ({ text: name, value: name.toLowerCase() }));

/** One field of each interface the Studio edits, in the order the form and the list show them. */
const FIELDS = [
  { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
  { field: 'title', type: 'string', meta: { interface: 'input', required: true, width: 'half' } },
  {
    field: 'status',
    type: 'string',
    meta: {
      interface: 'select-dropdown',
      options: { choices: choices('Draft', 'Published') },
      display: 'labels',
      display_options: {
        choices: [
          { text: 'Draft', value: 'draft', foreground: '#000000', background: '#e0e0e0' },
          { text: 'Published', value: 'published', foreground: '#ffffff', background: '#1b5e20' },
        ],
      },
      width: 'half',
    },
  },
  { field: 'published_at', type: 'dateTime', meta: { interface: 'datetime', width: 'half' } },
  { field: 'body', type: 'text', meta: { interface: 'input-rich-text-html' } },
  { field: 'colour', type: 'string', meta: { interface: 'select-color', display: 'color', width: 'half' } },
  { field: 'summary', type: 'text', meta: { interface: 'input-multiline', note: 'Two lines at most.' } },
  { field: 'notes', type: 'text', meta: { interface: 'input-rich-text-md' } },
  { field: 'data', type: 'json', meta: { interface: 'input-code', options: { language: 'json' } } },
  {
    field: 'rating',
    type: 'integer',
    meta: { interface: 'input', options: { min: 1, max: 5, step: 1 }, width: 'half' },
  },
  { field: 'featured', type: 'boolean', meta: { interface: 'boolean', width: 'half' } },
  {
    field: 'review_note',
    type: 'string',
    meta: {
      interface: 'input',
      // Shown for featured items only, and required once a featured item is published.
      conditions: [
        { name: 'Not featured', rule: { featured: { _neq: true } }, hidden: true },
        {
          name: 'Featured and published',
          rule: { _and: [{ featured: { _eq: true } }, { status: { _in: ['published'] } }] },
          required: true,
        },
      ],
    },
  },
  {
    field: 'layout',
    type: 'string',
    meta: { interface: 'select-radio', options: { choices: choices('Wide', 'Narrow') } },
  },
  {
    field: 'topics',
    type: 'json',
    meta: { interface: 'select-multiple-checkbox', options: { choices: choices('Science', 'Art', 'Sport') } },
  },
  { field: 'tags', type: 'json', meta: { interface: 'tags' } },
  {
    field: 'regions',
    type: 'json',
    meta: { interface: 'select-multiple-dropdown', options: { choices: choices('North', 'South', 'East') } },
  },
  { field: 'opens', type: 'time', meta: { interface: 'datetime', width: 'half' } },
  { field: 'slug', type: 'string', meta: { interface: 'input', options: { slug: true } } },
  { field: 'secret', type: 'hash', meta: { interface: 'input-hash' } },
].map((f, i) => (f.meta === undefined ? f : { ...f, meta: { ...f.meta, sort: i } }));

/**
 * The Studio's item form with each interface of the catalogue (Chromium, SQLite and PostgreSQL):
 * an item created through every input and read back through the API, conditions, the
 * unsaved-changes guard, Ctrl+S, the list's displays, a 390 px screen, axe-core on each page.
 */
describe('Studio inputs in Chromium', function () {
  this.timeout(180_000);
  const studio = studioSuite('studio-inputs', { database: 'sqlite' });
  const { browser, shot, expectAccessible, helperOf } = studio;
  let page: Page;
  before(() => {
    page = studio.page;
  });

  studio.onDatabase('studio inputs', (ctx) => {
    const { url } = studio;
    let id = 0;
    const item = async () => dataOf<Record<string, unknown>>(await asAdmin(ctx(), 'GET', `/items/specimens/${id}`));
    const field = (name: string) => page.locator(`[data-field="${name}"]`);

    before(async () => {
      const meta = { display_template: '{{title}}' };
      dataOf(
        await asAdmin(ctx(), 'POST', '/collections', { collection: 'specimens', schema: {}, meta, fields: FIELDS }),
      );
      await browser().signIn(studio.url(''), TEST_ADMIN);
    });

    it('creates an item through every input: the API holds what each one means', async () => {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(url('/admin/content/specimens/create'));
      const title = page.getByRole('textbox', { name: 'title' });
      await title.fill('My first specimen');
      // Half-width fields share a row on a wide screen.
      const [titleBox, statusBox] = [await field('title').boundingBox(), await field('status').boundingBox()];
      expect(statusBox?.y).to.equal(titleBox?.y);
      expect(statusBox?.x).to.be.above((titleBox?.x ?? 0) + (titleBox?.width ?? 0) - 1);
      // The note under its field; the required mark on its label.
      await field('summary').getByText('Two lines at most.').waitFor();
      expect(await field('title').locator('label').innerText()).to.match(/title\s*\*/);

      // Rich text: TipTap, bold from its toolbar.
      const body = field('body').locator('.ProseMirror');
      await body.click();
      await page.keyboard.type('Hello ');
      await field('body').getByRole('button', { name: 'Bold' }).click();
      // The toolbar gives the focus back to the editor after the click: keys typed before that
      // go to the button (on a busy machine the first letter was lost).
      await browser().until(
        () => body.evaluate((editor) => editor.contains(editor.ownerDocument.activeElement)),
        'the editor has the focus back after Bold',
      );
      await page.keyboard.type('bold');
      // Markdown and JSON: CodeMirror.
      await page.getByRole('textbox', { name: 'notes' }).fill('# Notes\n\nSome *markdown*');
      const data = page.getByRole('textbox', { name: 'data' });
      await data.fill('{"a": 1,');
      const rating = page.getByRole('spinbutton', { name: 'rating' });
      await rating.fill('9');
      await page.getByLabel('published_at').fill('2024-05-06T07:08');
      await page.getByRole('textbox', { name: 'colour', exact: true }).fill('#ff8800');
      await page.getByRole('radio', { name: 'Narrow' }).check();
      await page.getByRole('checkbox', { name: 'Science' }).check();
      await page.getByRole('checkbox', { name: 'Sport' }).check();
      const tags = page.getByRole('combobox', { name: 'tags' });
      await tags.fill('alpha');
      await tags.press('Enter');
      await tags.fill('beta');
      await tags.press('Enter');
      await page.getByRole('combobox', { name: 'regions' }).click();
      await page.getByRole('option', { name: 'North' }).click();
      await page.getByRole('option', { name: 'East' }).click();
      await page.keyboard.press('Escape');
      await page.getByLabel('opens').fill('09:30');
      const slug = page.getByRole('textbox', { name: 'slug' });
      await slug.pressSequentially('Hello World Again');
      expect(await slug.inputValue()).to.equal('hello-world-again');
      expect(await field('secret').locator('input').getAttribute('type')).to.equal('password');

      // Conditions: the review note shows for a featured item, and is required once published.
      expect(await page.getByRole('textbox', { name: 'review_note' }).count()).to.equal(0);
      await page.getByLabel('featured').check();
      const note = page.getByRole('textbox', { name: 'review_note' });
      await note.waitFor();
      await page.getByRole('combobox', { name: 'status' }).click();
      await page.getByRole('option', { name: 'Published' }).click();
      await field('review_note').locator('label').filter({ hasText: /\*/ }).waitFor();

      // Refused in the form: not JSON, over the maximum, the required note. Nothing is sent.
      await page.getByRole('button', { name: 'Save' }).click();
      await field('data')
        .getByText(/Not valid JSON/)
        .waitFor();
      await (await helperOf(rating)).filter({ hasText: /5 or less/ }).waitFor();
      await (await helperOf(note)).filter({ hasText: 'Required' }).waitFor();
      expect(await data.getAttribute('aria-invalid')).to.equal('true');
      await shot('create-refused');
      await expectAccessible('create-refused');
      expect(dataOf<unknown[]>(await asAdmin(ctx(), 'GET', '/items/specimens'))).to.deep.equal([]);

      await data.fill('{"a": 1, "b": [true]}');
      await rating.fill('3');
      await note.fill('Checked twice');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Created.').waitFor();
      await page.waitForURL(/\/admin\/content\/specimens\/\d+$/);
      id = Number(new URL(page.url()).pathname.split('/').pop());
      // The title by the collection's display template.
      await page.getByText('specimens: My first specimen').first().waitFor();
      const saved = await item();
      expect(saved).to.deep.include({
        title: 'My first specimen',
        status: 'published',
        body: '<p>Hello <strong>bold</strong></p>',
        colour: '#ff8800',
        notes: '# Notes\n\nSome *markdown*',
        data: { a: 1, b: [true] },
        rating: 3,
        featured: true,
        review_note: 'Checked twice',
        layout: 'narrow',
        topics: ['science', 'sport'],
        tags: ['alpha', 'beta'],
        regions: ['north', 'east'],
        slug: 'hello-world-again',
      });
      expect(String(saved['published_at'])).to.match(/^2024-05-06T07:08/);
      expect(String(saved['opens'])).to.match(/^09:30/);
      await shot('created');
      await expectAccessible('edit');
    });

    it('edits: conditions follow the values, the unsaved-changes guard asks, Ctrl+S saves', async () => {
      await page.goto(url(`/admin/content/specimens/${id}`));
      const title = page.getByRole('textbox', { name: 'title' });
      await browser().valueShown(title, 'My first specimen');
      // The editors show the stored values.
      await field('body').getByText('bold').waitFor();
      await page.getByRole('textbox', { name: 'data' }).getByText('"b"').waitFor();
      const note = page.getByRole('textbox', { name: 'review_note' });
      await note.waitFor();
      await page.getByLabel('featured').uncheck();
      await note.waitFor({ state: 'detached' });
      await page.getByLabel('featured').check();
      await note.waitFor();

      // Leaving with unsaved changes asks first; cancelling stays with the changes.
      await title.fill('Renamed specimen');
      const asked: string[] = [];
      page.removeAllListeners('dialog');
      page.on('dialog', (dialog) => {
        asked.push(dialog.message());
        void (asked.length === 1 ? dialog.dismiss() : dialog.accept());
      });
      try {
        await browser().nav().getByRole('link', { name: 'specimens' }).click();
        await browser().until(() => asked.length > 0, 'no confirmation');
        expect(asked[0]).to.include("weren't saved");
        expect(new URL(page.url()).pathname).to.equal(`/admin/content/specimens/${id}`);
        expect(await title.inputValue()).to.equal('Renamed specimen');
      } finally {
        page.removeAllListeners('dialog');
        page.on('dialog', (dialog) => void dialog.accept());
      }

      // Ctrl+S submits the form.
      await title.press('Control+s');
      await page.getByText('Saved.').waitFor();
      await page.getByText('specimens: Renamed specimen').first().waitFor();
      expect((await item())['title']).to.equal('Renamed specimen');
      // Saved: leaving asks nothing.
      await browser().nav().getByRole('link', { name: 'specimens' }).click();
      await page.waitForURL(/\/admin\/content\/specimens(\?|$)/);
      expect(asked).to.have.length(1);
    });

    it("lists items with each field's display (an untouched form leaves without a question)", async () => {
      // Loading a record into the editors does not count as a change.
      await page.goto(url(`/admin/content/specimens/${id}`));
      await browser().valueShown(page.getByRole('textbox', { name: 'title' }), 'Renamed specimen');
      await field('body').getByText('bold').waitFor();
      await page.getByRole('textbox', { name: 'data' }).getByText('"b"').waitFor();
      await page.getByRole('textbox', { name: 'notes' }).getByText('markdown').waitFor();
      const asked: string[] = [];
      const record = (dialog: Dialog) => asked.push(dialog.message());
      page.on('dialog', record);
      await browser().nav().getByRole('link', { name: 'specimens' }).click();
      await page.waitForURL(/\/admin\/content\/specimens(\?|$)/);
      page.off('dialog', record);
      expect(asked).to.deep.equal([]);
      const row = page.locator('tbody tr').first();
      await row.getByText('Renamed specimen').waitFor();
      // The status by its label, in its colours.
      const label = row.locator('.MuiChip-root', { hasText: 'Published' });
      await label.waitFor();
      const background = await page.evaluate(
        `getComputedStyle(document.querySelector('tbody tr .MuiChip-root')).backgroundColor`,
      );
      expect(background).to.equal('rgb(27, 94, 32)');
      // A date in the browser's locale; rich text as plain text; a colour with its swatch.
      const when = (await page.evaluate(`new Date(2024, 4, 6, 7, 8).toLocaleString()`)) as string;
      await row.getByText(when).waitFor();
      await row.getByText('Hello bold', { exact: true }).waitFor();
      await row.getByText('#ff8800').waitFor();
      await shot('list');
      await expectAccessible('list');
    });

    it('fits a 390 px screen: one field per row, no sideways scrolling', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        await page.goto(url(`/admin/content/specimens/${id}`));
        await browser().valueShown(page.getByRole('textbox', { name: 'title' }), 'Renamed specimen');
        await field('body').getByText('bold').waitFor();
        const [titleBox, statusBox] = [await field('title').boundingBox(), await field('status').boundingBox()];
        expect(statusBox?.y).to.be.above((titleBox?.y ?? 0) + (titleBox?.height ?? 0) - 1);
        const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
        expect(overflow).to.be.at.most(0);
        await shot('edit-390');
        await expectAccessible('edit-390');
      } finally {
        await page.setViewportSize({ width: 1280, height: 800 });
      }
    });
  });
});
