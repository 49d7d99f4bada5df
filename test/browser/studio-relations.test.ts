import { expect } from 'chai';
import type { Page, Request } from 'playwright-core';
import sharp from 'sharp';
import { asAdmin, dataOf } from '../integration/access/permission-helpers.js';
import { TEST_ADMIN, type ServerContext } from '../support/server.js';
import { studioSuite } from '../support/studio-suite.js';

type Row = Record<string, unknown>;

const key = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };
const alias = (field: string, special: string, ui: string) => ({
  field,
  type: 'alias',
  meta: { special: [special], interface: ui },
});

/**
 * Articles with an author (m2o), tags (m2m through articles_tags, sorted), comments (o2m), a
 * cover image (file) and a gallery (files), made through the API.
 */
async function createSchema(ctx: ServerContext): Promise<void> {
  const api = (method: string, path: string, body: unknown) => asAdmin(ctx, method, path, body).then(dataOf);
  const collection = (name: string, fields: unknown[], meta: Row = {}) =>
    api('POST', '/collections', { collection: name, schema: {}, meta, fields });
  await collection('authors', [key, { field: 'name', type: 'string' }], { display_template: '{{name}}' });
  await collection('tags', [key, { field: 'label', type: 'string' }], { display_template: '{{label}}' });
  await collection('articles', [
    key,
    { field: 'title', type: 'string', meta: { required: true } },
    { field: 'author', type: 'integer', meta: { interface: 'select-dropdown-m2o', special: ['m2o'] } },
    { field: 'cover', type: 'uuid', meta: { interface: 'file-image', special: ['file'] } },
    alias('tags', 'm2m', 'list-m2m'),
    alias('comments', 'o2m', 'list-o2m'),
    alias('gallery', 'files', 'files'),
    alias('sections', 'm2a', 'list-m2a'),
  ]);
  await collection('headings', [key, { field: 'title', type: 'string' }], { display_template: '{{title}}' });
  await collection('comments', [key, { field: 'text', type: 'string' }, { field: 'article', type: 'integer' }], {
    display_template: '{{text}}',
  });
  await collection(
    'articles_tags',
    [
      key,
      { field: 'articles_id', type: 'integer' },
      { field: 'tags_id', type: 'integer' },
      { field: 'sort', type: 'integer' },
    ],
    { hidden: true },
  );
  await collection(
    'articles_files',
    [key, { field: 'articles_id', type: 'integer' }, { field: 'svc_files_id', type: 'uuid' }],
    { hidden: true },
  );
  const relation = (collection: string, field: string, related: string, meta: Row = {}) =>
    api('POST', '/relations', { collection, field, related_collection: related, meta });
  await relation('articles', 'author', 'authors');
  await relation('articles', 'cover', 'svc_files');
  await relation('comments', 'article', 'articles', { one_field: 'comments', one_deselect_action: 'nullify' });
  await relation('articles_tags', 'articles_id', 'articles', {
    one_field: 'tags',
    junction_field: 'tags_id',
    sort_field: 'sort',
    one_deselect_action: 'delete',
  });
  await relation('articles_tags', 'tags_id', 'tags', { junction_field: 'articles_id' });
  await relation('articles_files', 'articles_id', 'articles', {
    one_field: 'gallery',
    junction_field: 'svc_files_id',
    one_deselect_action: 'delete',
  });
  await relation('articles_files', 'svc_files_id', 'svc_files', { junction_field: 'articles_id' });
  await collection(
    'articles_sections',
    [
      key,
      { field: 'articles_id', type: 'integer' },
      { field: 'item', type: 'string' },
      { field: 'collection', type: 'string' },
    ],
    { hidden: true },
  );
  await relation('articles_sections', 'articles_id', 'articles', { one_field: 'sections', junction_field: 'item' });
  await api('POST', '/relations', {
    collection: 'articles_sections',
    field: 'item',
    related_collection: null,
    meta: {
      one_allowed_collections: ['headings', 'tags'],
      one_collection_field: 'collection',
      junction_field: 'articles_id',
    },
  });
  await api('POST', '/items/authors', [{ name: 'Ada Lovelace' }]);
  await api('POST', '/items/tags', [{ label: 'news' }, { label: 'tech' }, { label: 'art' }]);
}

/** The app bar's top and transform, two frames after the last scroll. */
const BAR_PLACE = `new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => {
  const bar = document.querySelector('header');
  resolve([bar.getBoundingClientRect().top, getComputedStyle(bar).transform]);
})))`;

/**
 * The Studio's relational inputs in Chromium against a real server: many-to-one with inline
 * create, many-to-many (sorted), one-to-many, file and files, saved as one nested payload.
 */
describe('Studio relational inputs in Chromium', function () {
  this.timeout(180_000);
  const studio = studioSuite('relations', { database: 'postgres' });
  const { browser, shot, expectAccessible } = studio;
  let page: Page;
  before(() => {
    page = studio.page;
    page.setDefaultTimeout(10_000);
  });

  studio.onDatabase('relations', (ctx) => {
    const { url } = studio;
    const get = async <T>(path: string): Promise<T> => dataOf<T>(await asAdmin(ctx(), 'GET', path));
    let article = 0;
    let picture: Buffer;

    before(async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      picture = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c03030' } })
        .png()
        .toBuffer();
      await createSchema(ctx());
      await browser().signIn(url(''), TEST_ADMIN);
    });

    it('creates an article with its author, tags, comments and cover, saved in one request', async () => {
      await page.goto(url('/admin/content/articles/create'));
      await page.getByRole('textbox', { name: 'title' }).fill('Relational');
      // Many-to-one: search, then a new author created inline and selected.
      const author = page.getByRole('combobox', { name: 'author' });
      await author.click();
      await author.fill('Ada');
      await page.getByRole('option', { name: 'Ada Lovelace' }).waitFor();
      await author.fill('Bo Byte');
      await page.getByRole('option', { name: /Create.*Bo Byte/ }).click();
      const authorDialog = page.getByRole('dialog', { name: 'New item in authors' });
      expect(await authorDialog.getByRole('textbox', { name: 'name' }).inputValue()).to.equal('Bo Byte');
      await shot('author-inline');
      await expectAccessible('author-inline');
      await authorDialog.getByRole('button', { name: 'Done' }).click();
      await authorDialog.waitFor({ state: 'detached' });
      await browser().valueShown(author, 'Bo Byte');

      // Many-to-many: two existing tags picked, one created, then moved first.
      const tags = page.getByRole('group', { name: 'tags' });
      await tags.getByRole('button', { name: 'Add existing tags' }).click();
      const picker = page.getByRole('dialog', { name: 'Add from tags' });
      await picker.getByRole('searchbox', { name: 'Search' }).fill('e');
      await picker.getByRole('checkbox', { name: 'news' }).click();
      await picker.getByRole('checkbox', { name: 'tech' }).click();
      await shot('tags-picker');
      await expectAccessible('tags-picker');
      await picker.getByRole('button', { name: 'Add the 2 picked' }).click();
      await tags.getByRole('button', { name: 'Create new tags' }).click();
      const tagDialog = page.getByRole('dialog', { name: 'New item in tags' });
      await tagDialog.getByRole('textbox', { name: 'label' }).fill('fresh');
      await tagDialog.getByRole('button', { name: 'Done' }).click();
      const tagList = tags.getByRole('list', { name: 'tags' }).getByRole('listitem');
      await tags.getByRole('button', { name: 'Move fresh up' }).click();
      await tags.getByRole('button', { name: 'Move fresh up' }).focus();
      await page.keyboard.press('Enter');
      expect(await tagList.allInnerTexts()).to.satisfy((texts: string[]) =>
        ['fresh', 'news', 'tech'].every((label, i) => texts[i]?.startsWith(label)),
      );

      // One-to-many: two comments created.
      const comments = page.getByRole('group', { name: 'comments' });
      for (const text of ['First!', 'Second']) {
        await comments.getByRole('button', { name: 'Create new comments' }).click();
        const dialog = page.getByRole('dialog', { name: 'New item in comments' });
        // The field pointing back at the article is not offered.
        expect(await dialog.getByRole('textbox', { name: 'article' }).count()).to.equal(0);
        await dialog.getByRole('textbox', { name: 'text' }).fill(text);
        await dialog.getByRole('button', { name: 'Done' }).click();
        await dialog.waitFor({ state: 'detached' });
      }
      await comments.getByText('Second').waitFor();

      // File: an image uploaded through the dropzone, shown by its thumbnail.
      await page.getByRole('button', { name: 'Choose cover' }).click();
      const files = page.getByRole('dialog', { name: 'Choose a file' });
      await expectAccessible('file-dialog');
      await files.locator('input[type="file"]').setInputFiles({
        name: 'red-square.png',
        mimeType: 'image/png',
        buffer: picture,
      });
      await files.waitFor({ state: 'detached' });
      const cover = page.getByRole('group', { name: 'cover' }).getByRole('img', { name: 'red-square' });
      await cover.waitFor();
      expect(await cover.getAttribute('src')).to.match(/\/assets\/[\w-]+\?width=96&height=96&fit=cover/);
      await page.waitForFunction(
        (image) => (image as unknown as { naturalWidth: number }).naturalWidth === 96,
        await cover.elementHandle(),
      );

      // Files: the same image picked from the library into the gallery.
      const gallery = page.getByRole('group', { name: 'gallery' });
      await gallery.getByRole('button', { name: 'Add files to gallery' }).click();
      await page
        .getByRole('dialog', { name: 'Choose a file' })
        .getByRole('button', { name: 'From the file library' })
        .click();
      const library = page.getByRole('dialog', { name: 'From the file library' });
      await library.getByRole('checkbox', { name: 'red-square' }).click();
      await library.getByRole('button', { name: 'Add the one picked' }).click();
      await gallery.getByRole('img', { name: 'red-square' }).waitFor();
      await shot('article-filled');
      await expectAccessible('article-filled');

      const writes: string[] = [];
      const onRequest = (request: Request) => {
        if (request.method() !== 'GET' && request.url().includes('/items/')) writes.push(request.method());
      };
      page.on('request', onRequest);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Created.').waitFor();
      await page.waitForURL(/\/admin\/content\/articles\/\d+$/);
      page.off('request', onRequest);
      expect(writes).to.deep.equal(['POST']);
      article = Number(new URL(page.url()).pathname.split('/').pop());

      const saved = await get<Row>(
        `/items/articles/${article}?fields=*,author.name,tags.sort,tags.tags_id.label,comments.text,gallery.svc_files_id.id`,
      );
      expect(saved['title']).to.equal('Relational');
      expect(saved['author']).to.deep.equal({ name: 'Bo Byte' });
      const tagRows = (saved['tags'] as Row[]).map((t) => [(t['tags_id'] as Row)['label'], t['sort']]);
      expect(tagRows.sort((a, b) => Number(a[1]) - Number(b[1]))).to.deep.equal([
        ['fresh', 1],
        ['news', 2],
        ['tech', 3],
      ]);
      expect((saved['comments'] as Row[]).map((c) => c['text']).sort()).to.deep.equal(['First!', 'Second']);
      const file = await get<Row>(`/files/${String(saved['cover'])}`);
      expect(file).to.include({ type: 'image/png', width: 64, height: 48, filename_download: 'red-square.png' });
      expect((saved['gallery'] as Row[]).map((g) => (g['svc_files_id'] as Row)['id'])).to.deep.equal([file['id']]);
      // The edit page shows them back.
      await page.getByRole('group', { name: 'tags' }).getByText('fresh').waitFor();
      await page.getByRole('group', { name: 'comments' }).getByText('First!').waitFor();
    });

    it('removes a tag and a comment, edits one and reorders by drag: one request again', async () => {
      await page.goto(url(`/admin/content/articles/${article}`));
      const tags = page.getByRole('group', { name: 'tags' });
      const comments = page.getByRole('group', { name: 'comments' });
      await tags.getByText('news').waitFor();
      await comments.getByText('Second').waitFor();
      const [news] = await get<Row[]>(`/items/articles_tags?filter[articles_id][_eq]=${article}&sort=sort`).then(
        (rows) => rows.filter((_, i) => i === 1),
      );
      await tags.getByRole('button', { name: 'Remove news' }).click();
      await comments.getByRole('button', { name: 'Remove Second' }).click();
      await comments.getByRole('button', { name: 'Edit First!' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit First!' });
      await dialog.getByRole('textbox', { name: 'text' }).fill('First, edited');
      await dialog.getByRole('button', { name: 'Done' }).click();
      await comments.getByText('First, edited').waitFor();
      // Drag: tech above fresh.
      const items = tags.getByRole('listitem');
      await items.filter({ hasText: 'tech' }).dragTo(items.filter({ hasText: 'fresh' }));
      expect((await items.allInnerTexts()).map((t) => t.split('\n')[0])).to.deep.equal(['tech', 'fresh']);
      await shot('article-edited');

      const writes: string[] = [];
      const onRequest = (request: Request) => {
        if (request.method() !== 'GET' && request.url().includes('/items/')) writes.push(request.method());
      };
      page.on('request', onRequest);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').waitFor();
      page.off('request', onRequest);
      expect(writes).to.deep.equal(['PATCH']);

      const saved = await get<Row>(
        `/items/articles/${article}?fields=tags.sort,tags.tags_id.label,comments.id,comments.text`,
      );
      const tagRows = (saved['tags'] as Row[]).map((t) => [(t['tags_id'] as Row)['label'], t['sort']]);
      expect(tagRows.sort((a, b) => Number(a[1]) - Number(b[1]))).to.deep.equal([
        ['tech', 1],
        ['fresh', 2],
      ]);
      // m2m (one_deselect_action delete): the junction row is gone, the tag stays.
      expect(await get<Row[]>(`/items/articles_tags?filter[id][_eq]=${String(news?.['id'])}`)).to.deep.equal([]);
      expect(await get<Row[]>('/items/tags?filter[label][_eq]=news')).to.have.length(1);
      expect((saved['comments'] as Row[]).map((c) => c['text'])).to.deep.equal(['First, edited']);
      // o2m (nullify): the comment stays, unlinked.
      const second = await get<Row[]>('/items/comments?filter[text][_eq]=Second');
      expect(second.map((c) => c['article'])).to.deep.equal([null]);
      // After the save the form shows what the API holds.
      await tags.getByRole('button', { name: 'Remove news' }).waitFor({ state: 'detached' });
      expect(await items.count()).to.equal(2);
      await expectAccessible('article-edited');
    });

    it('keeps the app bar in place while the long form scrolls down and back: nothing slides over the page', async () => {
      await page.goto(url(`/admin/content/articles/${article}`));
      await page.getByRole('group', { name: 'comments' }).getByText('First, edited').waitFor();
      const place = () => page.evaluate<[number, string]>(BAR_PLACE);
      const scrollY = () => page.evaluate<number>('scrollY');
      expect(await place()).to.deep.equal([0, 'none']);
      const room = await page.evaluate<number>('document.documentElement.scrollHeight - innerHeight');
      expect(room, 'the form is longer than the window').to.be.above(100);
      await page.mouse.move(640, 450);
      await page.mouse.wheel(0, room);
      await browser().until(async () => (await scrollY()) > 100, 'the page never scrolled down');
      // react-admin's default bar slides away here, and back over the page's top below.
      expect(await place()).to.deep.equal([0, 'none']);
      await page.mouse.wheel(0, -60);
      await browser().until(async () => (await scrollY()) < room, 'the page never scrolled up');
      expect(await place()).to.deep.equal([0, 'none']);
    });

    it('duplicates an article: its values and many-to-ones copied, its lists of related rows left with the original', async () => {
      const fields = 'title,author,cover,tags.id,comments.id,gallery.id';
      const original = await get<Row>(`/items/articles/${article}?fields=${fields}`);
      await page.goto(url(`/admin/content/articles/${article}`));
      await page.getByRole('group', { name: 'comments' }).getByText('First, edited').waitFor();
      await page.getByRole('link', { name: 'Duplicate' }).click();
      await page.waitForURL(/\/admin\/content\/articles\/create/);
      const title = page.getByRole('textbox', { name: 'title' });
      await studio.valueShown(title, 'Relational');
      await title.fill('Relational, copy');
      // The comments and tags are the original's: the copy's form lists none of them.
      expect(await page.getByRole('group', { name: 'comments' }).getByText('First, edited').count()).to.equal(0);
      expect(await page.getByRole('group', { name: 'tags' }).getByText('tech').count()).to.equal(0);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Created.').waitFor();
      await page.waitForURL(/\/admin\/content\/articles\/\d+$/);
      const copyId = Number(new URL(page.url()).pathname.split('/').pop());
      expect(copyId).to.not.equal(article);
      const copy = await get<Row>(`/items/articles/${copyId}?fields=${fields}`);
      expect(copy).to.deep.include({ title: 'Relational, copy', author: original['author'], cover: original['cover'] });
      expect([copy['tags'], copy['comments'], copy['gallery']]).to.deep.equal([[], [], []]);
      expect(await get<Row>(`/items/articles/${article}?fields=${fields}`)).to.deep.equal(original);
    });

    it('adds items of any allowed collection to a many-to-any, shown with their collection', async () => {
      await page.goto(url(`/admin/content/articles/${article}`));
      const sections = page.getByRole('group', { name: 'sections' });
      await sections.getByRole('button', { name: 'Add to sections' }).click();
      await page.getByRole('menuitem', { name: 'Create in headings' }).click();
      const dialog = page.getByRole('dialog', { name: 'New item in headings' });
      await dialog.getByRole('textbox', { name: 'title' }).fill('Intro');
      await dialog.getByRole('button', { name: 'Done' }).click();
      await sections.getByRole('button', { name: 'Add to sections' }).click();
      await page.getByRole('menuitem', { name: 'Add existing from tags' }).click();
      const picker = page.getByRole('dialog', { name: 'Add from tags' });
      await picker.getByRole('checkbox', { name: 'art' }).click();
      await picker.getByRole('button', { name: 'Add the one picked' }).click();
      await sections.getByText('tags: art').waitFor();
      await sections.getByText('headings: Intro').waitFor();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').waitFor();
      const rows = await get<Row[]>(`/items/articles_sections?filter[articles_id][_eq]=${article}&sort=id`);
      const [intro] = await get<Row[]>('/items/headings?filter[title][_eq]=Intro');
      const [art] = await get<Row[]>('/items/tags?filter[label][_eq]=art');
      expect(rows.map((r) => [r['collection'], String(r['item'])])).to.deep.equal([
        ['headings', String(intro?.['id'])],
        ['tags', String(art?.['id'])],
      ]);
      // Reloaded from the API after the save, still shown with their collection.
      await sections.getByText('tags: art').waitFor();
      await shot('sections');
    });

    it('lists the relations in columns and fits a 390 px screen', async () => {
      await page.goto(url('/admin/content/articles'));
      const row = page.locator('tbody tr').first();
      await row.getByText('Bo Byte').waitFor();
      await row.getByRole('img', { name: 'red-square' }).waitFor();
      // The to-many fields are not among the first columns: the column picker adds one (the
      // choice is kept in the browser: the second database's run finds it made).
      await page.getByRole('button', { name: 'Columns' }).click();
      await page.locator('.MuiPopover-paper').getByLabel('tags', { exact: true }).check();
      await page.keyboard.press('Escape');
      await row.getByText('2 items').first().waitFor();
      await shot('list');
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(url(`/admin/content/articles/${article}`));
      await page.getByRole('group', { name: 'tags' }).getByText('fresh').waitFor();
      await page.getByRole('group', { name: 'cover' }).getByRole('img', { name: 'red-square' }).waitFor();
      const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow).to.be.at.most(0);
      await shot('article-390');
      await expectAccessible('article-390');
      await page.getByRole('group', { name: 'tags' }).getByRole('button', { name: 'Add existing tags' }).click();
      const picker = page.getByRole('dialog', { name: 'Add from tags' });
      await picker.getByRole('checkbox', { name: 'art' }).waitFor();
      await expectAccessible('picker-390');
      await shot('picker-390');
      await picker.getByRole('button', { name: 'Cancel' }).click();
    });
  });
});
