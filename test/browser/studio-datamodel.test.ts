import { expect } from 'chai';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { asAdmin, dataOf } from '../integration/access/permission-helpers.js';
import { freePort } from '../support/ports.js';
import { testConfig, TEST_ADMIN, type ServerContext } from '../support/server.js';
import type { TestDatabase } from '../support/services.js';
import { studioServerEnv, studioSuite } from '../support/studio-suite.js';
import { parse as parseYaml } from 'yaml';
import { startServer, type RunningServer } from '../../src/server.js';
import { createLogger } from '../../src/logger/index.js';

interface FieldRow {
  field: string;
  type: string;
  meta: Record<string, unknown> | null;
  schema: Record<string, unknown> | null;
}
interface RelationRow {
  collection: string;
  field: string;
  related_collection: string | null;
  meta: Record<string, unknown> | null;
}

/**
 * Settings → Data model in Chromium, from an empty install: the first run creates a collection,
 * its fields and relations are added, one is deleted after its confirmation, the order saved;
 * each change shows its requests first, and the API then holds what the page said. The schema's
 * snapshot is downloaded (JSON and YAML) and the YAML applied to a second, empty server through
 * its page.
 */
describe('Studio data model in Chromium', function () {
  // Its tests walk long flows (a field edited four ways; two downloads and a second server) on a busy machine.
  this.timeout(300_000);
  const studio = studioSuite('studio-datamodel', { database: 'postgres', viewport: { width: 1280, height: 900 } });
  const { browser, shot, expectAccessible, main } = studio;
  let page: Page;
  before(() => {
    page = studio.page;
  });

  studio.onDatabase('data model', (ctx) => {
    const { url } = studio;
    const fieldsOf = async (collection: string) =>
      dataOf<FieldRow[]>(await asAdmin(ctx(), 'GET', `/fields/${collection}`));
    const relations = async () => dataOf<RelationRow[]>(await asAdmin(ctx(), 'GET', '/relations'));

    /** Adds a field of articles; `more` fills the rest of its dialog before the review. */
    const addField = (name: string, type: string, more: (dialog: Locator) => Promise<void>, expected: RegExp[]) =>
      browser().addField('articles', { name, type, more }, expected, async () => {
        if (name !== 'author') return;
        await shot('plan-author');
        await expectAccessible('plan-author');
      });

    beforeEach(async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    it('first run: sign-in leads to creating the first collection, with its key and system fields', async () => {
      await browser().signIn(url(''), TEST_ADMIN);
      await page.waitForURL(/\/admin\/settings\/data-model\/first-run$/);
      await page.getByRole('heading', { name: 'Create your first collection' }).waitFor();
      await shot('first-run');
      await expectAccessible('first-run');

      await page.getByLabel('Collection name').fill('articles');
      for (const system of ['sort', 'user_created', 'user_updated', 'date_updated'])
        await page.getByRole('checkbox', { name: new RegExp(`^${system} `) }).uncheck();
      await page.getByRole('button', { name: 'Review changes' }).click();
      const apply = await browser().planLists([
        /Create collection articles with id, status, date_created/,
        /POST \/collections/,
      ]);
      // Nothing is written before Apply.
      const before = dataOf<{ collection: string }[]>(await asAdmin(ctx(), 'GET', '/collections'));
      expect(before.map((c) => c.collection)).to.not.include('articles');
      await shot('first-run-plan');
      await apply.click();

      await page.waitForURL(/\/admin\/settings\/data-model\/articles\?first-run$/);
      await page.getByText('Add the fields of articles, then start adding items.').waitFor();
      // The navigation follows the new catalogue without a reload.
      await browser().nav().getByRole('link', { name: 'articles', exact: true }).waitFor();
      await shot('first-run-fields');
      await expectAccessible('first-run-fields');

      const collection = dataOf<{ schema: unknown; meta: Record<string, unknown> }>(
        await asAdmin(ctx(), 'GET', '/collections/articles'),
      );
      expect(collection.schema).to.not.equal(null);
      expect(collection.meta).to.include({ archive_field: 'status', archive_value: 'archived' });
      const fields = await fieldsOf('articles');
      expect(fields.map((f) => f.field)).to.deep.equal(['id', 'status', 'date_created']);
      expect(fields[0]?.schema).to.include({ is_primary_key: true, has_auto_increment: true });
      expect(fields[0]?.type).to.equal('integer');
      expect(fields[2]?.meta?.['special']).to.deep.equal(['date-created']);
      // The admin may use it at once.
      dataOf(await asAdmin(ctx(), 'GET', '/items/articles'));
    });

    it('adds fields: a required string, rich text, a many-to-one to a new collection, a many-to-many', async () => {
      await addField(
        'title',
        'String',
        async (dialog) => {
          await dialog.getByRole('switch', { name: 'Required' }).check();
          await dialog.getByText('Validation (items must match)').waitFor();
        },
        [/Add field articles.title \(string\)/],
      );
      await addField('body', 'Text', (dialog) => browser().pick(/^Interface/, 'input-rich-text-html', dialog), [
        /Add field articles.body \(text\)/,
      ]);
      await addField(
        'author',
        'Many-to-one (relation)',
        (dialog) => dialog.getByLabel('Related collection').fill('authors'),
        [/Create collection authors with id, name/, /Add field articles.author/, /Relate articles.author to authors/],
      );
      await addField(
        'tags',
        'Many-to-many (relation)',
        (dialog) => dialog.getByLabel('Related collection').fill('tags'),
        [/Create collection tags/, /Create collection articles_tags with id, articles_id, tags_id/],
      );
      await shot('fields');
      await expectAccessible('fields');

      const fields = await fieldsOf('articles');
      const byName = new Map(fields.map((f) => [f.field, f]));
      expect(byName.get('title')?.meta).to.include({ required: true });
      expect(byName.get('body')).to.deep.include({ type: 'text' });
      expect(byName.get('body')?.meta).to.include({ interface: 'input-rich-text-html' });
      expect(byName.get('author')?.meta?.['special']).to.deep.equal(['m2o']);
      expect(byName.get('tags')).to.deep.include({ type: 'alias' });
      const all = await relations();
      const rel = (c: string, f: string) => all.find((r) => r.collection === c && r.field === f);
      expect(rel('articles', 'author')?.related_collection).to.equal('authors');
      expect(rel('articles_tags', 'articles_id')?.related_collection).to.equal('articles');
      expect(rel('articles_tags', 'articles_id')?.meta).to.include({ one_field: 'tags', junction_field: 'tags_id' });
      expect(rel('articles_tags', 'tags_id')?.related_collection).to.equal('tags');
      // The new collections are in the navigation too.
      await browser().nav().getByRole('link', { name: 'authors', exact: true }).waitFor();
      // The junction is hidden (meta.hidden): not in the navigation.
      expect(await browser().nav().getByRole('link', { name: 'articles_tags' }).count()).to.equal(0);
    });

    it('deletes a field after a confirmation naming its values, and saves a new order', async () => {
      dataOf(
        await asAdmin(ctx(), 'POST', '/items/articles', [
          { title: 'One', body: '<p>1</p>' },
          { title: 'Two', body: '<p>2</p>' },
          { title: 'Three', body: null },
        ]),
      );
      await page.reload();
      const list = page.getByRole('list', { name: 'Fields of articles' });
      await list.getByText('body', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Delete body' }).click();
      const remove = await browser().planLists(
        [/Delete field articles.body/, /DELETE \/fields\/articles\/body/],
        'Delete and apply',
      );
      await page.getByText('This deletes articles.body and its 2 values.').waitFor();
      await shot('delete-body');
      await expectAccessible('delete-body');
      await remove.click();
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      await list.getByText('body', { exact: true }).waitFor({ state: 'detached' });
      expect((await fieldsOf('articles')).map((f) => f.field)).to.not.include('body');

      // By keyboard: title to the top (after the key).
      await page.getByRole('button', { name: 'Move title up' }).focus();
      for (const above of ['date_created', 'status']) {
        await page.keyboard.press('Enter');
        // The row moved above `above`, and its button kept the focus.
        await page.waitForFunction(
          `document.querySelector('[data-field="${above}"]')?.previousElementSibling?.getAttribute('data-field') === 'title' && document.activeElement?.getAttribute('data-move') === 'up-title'`,
        );
      }
      await page.getByRole('button', { name: 'Save order' }).click();
      const save = await browser().planLists([
        /Order the fields of articles: id, title, status, date_created, author, tags/,
      ]);
      await save.click();
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      const sorted = (await fieldsOf('articles'))
        .filter((f) => typeof f.meta?.['sort'] === 'number')
        .sort((a, b) => Number(a.meta?.['sort']) - Number(b.meta?.['sort']))
        .map((f) => f.field);
      expect(sorted).to.deep.equal(['id', 'title', 'status', 'date_created', 'author', 'tags']);
      await page.reload();
      await list.getByText('tags', { exact: true }).waitFor();
      const names = await list
        .locator('[data-field]')
        .evaluateAll((items) => items.map((i) => i.getAttribute('data-field')));
      expect(names).to.deep.equal(['id', 'title', 'status', 'date_created', 'author', 'tags']);

      // By dragging: tags dropped on status takes its place.
      await list.locator('[data-field="tags"]').dragTo(list.locator('[data-field="status"]'));
      await page.getByRole('button', { name: 'Save order' }).click();
      const saveDragged = await browser().planLists([
        /Order the fields of articles: id, title, tags, status, date_created, author/,
      ]);
      await saveDragged.click();
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      const dragged = (await fieldsOf('articles'))
        .filter((f) => typeof f.meta?.['sort'] === 'number')
        .sort((a, b) => Number(a.meta?.['sort']) - Number(b.meta?.['sort']))
        .map((f) => f.field);
      expect(dragged).to.deep.equal(['id', 'title', 'tags', 'status', 'date_created', 'author']);
    });

    it('edits a field (a type change names the values it may lose), adds many-to-any and translations', async () => {
      const list = page.getByRole('list', { name: 'Fields of articles' });
      await page.getByRole('button', { name: 'Edit title' }).click();
      let dialog = page.getByRole('dialog', { name: 'Field articles.title' });
      await dialog.getByLabel('Note').fill('Shown as the heading');
      await dialog.getByRole('button', { name: 'Review changes' }).click();
      await (await browser().planLists([/Change field articles.title/, /PATCH \/fields\/articles\/title/])).click();
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      const title = (await fieldsOf('articles')).find((f) => f.field === 'title');
      expect(title?.meta).to.include({ note: 'Shown as the heading', required: true });

      // A condition through its editor: read-only while the status is published; the JSON
      // switch shows the same list, and invalid JSON there is not submitted.
      await page.getByRole('button', { name: 'Edit title' }).click();
      dialog = page.getByRole('dialog', { name: 'Field articles.title' });
      await dialog.getByRole('button', { name: 'Add field condition' }).click();
      const condition = dialog.getByRole('group', { name: 'Condition 1', exact: true });
      await condition.getByLabel('Name', { exact: true }).fill('Locked once published');
      const when = condition.getByRole('group', { name: 'Condition 1: when' });
      await when.getByRole('button', { name: 'Add condition', exact: true }).click();
      await browser().pick(/^Field/, 'status', when);
      await browser().pick(/^Operator/, 'equals', when);
      await browser().pick(/^Value/, 'Published', when);
      await browser().pick(/^Read-only/, 'Yes', condition);
      const expected = [{ name: 'Locked once published', rule: { status: { _eq: 'published' } }, readonly: true }];
      await dialog.getByLabel('Edit the conditions as JSON').check();
      const json = dialog.getByLabel('Conditions (JSON)');
      expect(JSON.parse(await json.inputValue())).to.deep.equal(expected);
      await shot('field-conditions');
      await expectAccessible('field-conditions');
      const valid = await json.inputValue();
      await json.fill('[{"name": ');
      await dialog.getByText(/Not applied, the JSON is invalid/).waitFor();
      await dialog.getByRole('button', { name: 'Review changes' }).click();
      expect(await page.getByRole('dialog', { name: 'Changes to apply' }).count()).to.equal(0);
      await json.fill(valid);
      await dialog.getByRole('button', { name: 'Review changes' }).click();
      await (await browser().planLists([/Change field articles.title/])).click();
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      expect((await fieldsOf('articles')).find((f) => f.field === 'title')?.meta?.['conditions']).to.deep.equal(
        expected,
      );

      await page.getByRole('button', { name: 'Edit title' }).click();
      dialog = page.getByRole('dialog', { name: 'Field articles.title' });
      await browser().pick(/^Type/, 'Integer', dialog);
      await dialog.getByRole('button', { name: 'Review changes' }).click();
      await browser().planLists([/Change articles.title from string to integer/], 'Delete and apply');
      await page.getByText("Changing the type may change or lose articles.title's 3 values (to integer).").waitFor();
      await page.getByRole('dialog', { name: 'Changes to apply' }).getByRole('button', { name: 'Cancel' }).click();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      expect((await fieldsOf('articles')).find((f) => f.field === 'title')?.type).to.equal('string');

      await addField(
        'blocks',
        'Many-to-any (relation)',
        async (d) => {
          await d.getByRole('combobox', { name: /^Allowed collections/ }).click();
          for (const c of ['authors', 'tags']) await page.getByRole('option', { name: c, exact: true }).click();
          await page.keyboard.press('Escape');
        },
        [
          /Create collection articles_blocks with id, articles_id, item, collection/,
          /Relate articles_blocks.item to \*/,
        ],
      );
      await addField('translations', 'Translations (relation)', async () => undefined, [
        /Create collection languages with code, name/,
        /Create collection articles_translations with id, articles_id, languages_code/,
      ]);
      await list.getByText('translations', { exact: true }).waitFor();
      const all = await relations();
      const rel = (c: string, f: string) => all.find((r) => r.collection === c && r.field === f);
      expect(rel('articles_blocks', 'item')?.related_collection).to.equal(null);
      expect(rel('articles_blocks', 'item')?.meta?.['one_allowed_collections']).to.deep.equal(['authors', 'tags']);
      expect(rel('articles_blocks', 'articles_id')?.meta).to.include({ one_field: 'blocks', junction_field: 'item' });
      expect(rel('articles_translations', 'languages_code')?.related_collection).to.equal('languages');
      expect(rel('articles_translations', 'articles_id')?.meta).to.include({ one_field: 'translations' });

      // The collection's settings (meta): a display template and versioning.
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      const settings = page.getByRole('dialog', { name: 'Settings of articles' });
      await settings.getByLabel('Display template').fill('{{title}}');
      await settings.getByRole('switch', { name: 'Content versioning' }).check();
      await settings.getByRole('button', { name: 'Review changes' }).click();
      await (await browser().planLists([/Change the settings of articles/, /PATCH \/collections\/articles/])).click();
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      const meta = dataOf<{ meta: Record<string, unknown> }>(await asAdmin(ctx(), 'GET', '/collections/articles')).meta;
      expect(meta).to.include({ display_template: '{{title}}', versioning: true, archive_field: 'status' });
    });

    it('adds a one-to-many to a new collection and an image, which the item form edits with the file picker', async () => {
      await page.goto(url('/admin/settings/data-model/articles'));
      await addField(
        'comments',
        'One-to-many (relation)',
        async (dialog) => {
          await dialog.getByRole('textbox', { name: 'Related collection', exact: true }).fill('comments');
          await dialog.getByLabel('Field of the related collection holding the key').fill('article');
        },
        [/Create collection comments with id, article/, /Add field articles.comments/, /Relate comments.article/],
      );
      await addField(
        'cover',
        'Image (relation to the files)',
        async (dialog) => {
          // No other collection to name: the files are the other side. The image interface is
          // chosen, and an image has no choices to list.
          expect(await dialog.getByRole('textbox', { name: 'Related collection', exact: true }).count()).to.equal(0);
          expect(await dialog.getByRole('combobox', { name: 'Interface' }).textContent()).to.equal('file-image');
          expect(await dialog.getByText('Choices').count()).to.equal(0);
          await shot('field-image');
          await expectAccessible('field-image');
        },
        [/Add field articles.cover \(uuid\)/, /Relate articles.cover to svc_files/],
      );

      const cover = (await fieldsOf('articles')).find((f) => f.field === 'cover');
      expect(cover?.type).to.equal('uuid');
      expect(cover?.meta).to.deep.include({ interface: 'file-image', special: ['file'] });
      const all = await relations();
      const rel = (c: string, f: string) => all.find((r) => r.collection === c && r.field === f);
      expect(rel('comments', 'article')?.related_collection).to.equal('articles');
      expect(rel('comments', 'article')?.meta).to.include({ one_field: 'comments' });
      expect(rel('articles', 'cover')?.related_collection).to.equal('svc_files');

      // The item form: the comments list, and the file picker for the cover, its upload taking images.
      await page.goto(url('/admin/content/articles/create'));
      await page.getByRole('group', { name: 'comments' }).waitFor();
      await page.getByRole('group', { name: 'cover' }).waitFor();
      await page.getByRole('button', { name: 'Choose cover' }).click();
      const files = page.getByRole('dialog', { name: 'Choose a file' });
      await files.getByText('Drop files here, or press to choose them.').waitFor();
      expect(await files.locator('input[type="file"]').getAttribute('accept')).to.equal('image/*');
      await shot('cover-picker');
      await expectAccessible('cover-picker');
      await files.getByRole('button', { name: 'Cancel' }).click();
      await files.waitFor({ state: 'detached' });
    });

    it('deletes a collection after a confirmation naming its items; cancelling keeps it', async () => {
      const key = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };
      dataOf(
        await asAdmin(ctx(), 'POST', '/collections', {
          collection: 'drafts',
          schema: {},
          meta: {},
          fields: [key, { field: 'body', type: 'string' }],
        }),
      );
      dataOf(await asAdmin(ctx(), 'POST', '/items/drafts', [{ body: 'a' }, { body: 'b' }]));
      await page.goto(url('/admin/settings/data-model/drafts'));
      await page.getByRole('list', { name: 'Fields of drafts' }).getByText('body', { exact: true }).waitFor();

      await page.getByRole('button', { name: 'Delete collection' }).click();
      await browser().planLists([/Delete collection drafts/, /DELETE \/collections\/drafts/], 'Delete and apply');
      await page.getByText('This deletes the collection drafts and its 2 items.').waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      expect(await ctx().server.db.schema.hasTable('drafts')).to.equal(true);

      await page.getByRole('button', { name: 'Delete collection' }).click();
      const remove = await browser().planLists([/Delete collection drafts/], 'Delete and apply');
      await shot('delete-collection');
      await expectAccessible('delete-collection');
      await remove.click();
      await page.waitForURL(/\/admin\/settings\/data-model$/);
      await page.getByRole('link', { name: 'articles', exact: true }).last().waitFor();
      await page.getByRole('link', { name: 'drafts', exact: true }).first().waitFor({ state: 'detached' });
      expect(await ctx().server.db.schema.hasTable('drafts')).to.equal(false);
      expect((await asAdmin(ctx(), 'GET', '/collections/drafts')).status).to.equal(403);
    });

    it('makes a folder, a singleton in it, and collections keyed by uuid, big integer and a typed string; each takes content', async () => {
      /** The data model's Create collection dialog: `fill` sets its form; applied once the plan lists `expected`. */
      const createCollection = async (name: string, fill: (dialog: Locator) => Promise<void>, expected: RegExp) => {
        await page.goto(url('/admin/settings/data-model'));
        await page.getByRole('button', { name: 'Create collection' }).click();
        const dialog = page.getByRole('dialog', { name: 'Create collection' });
        await dialog.getByLabel('Collection name').fill(name);
        await fill(dialog);
        await dialog.getByRole('button', { name: 'Review changes' }).click();
        await (await browser().planLists([expected])).click();
        await page.waitForURL(new RegExp(`/admin/settings/data-model/${name}$`));
      };
      const withoutSystemFields = async (dialog: Locator) => {
        for (const system of ['status', 'sort', 'user_created', 'date_created', 'user_updated', 'date_updated'])
          await dialog.getByRole('checkbox', { name: new RegExp(`^${system} `) }).uncheck();
      };
      const keyed = (type: string, key?: string) => async (dialog: Locator) => {
        if (key !== undefined) await dialog.getByLabel('Primary key field').fill(key);
        await browser().pick(/^Primary key type/, type, dialog);
        await withoutSystemFields(dialog);
      };
      const collection = async (name: string) =>
        dataOf<{ schema: unknown; meta: Record<string, unknown> }>(await asAdmin(ctx(), 'GET', `/collections/${name}`));

      await createCollection(
        'website',
        (dialog) => dialog.getByRole('switch', { name: 'Folder only' }).check(),
        /Create folder website \(no table\)/,
      );
      // A folder's page offers no fields: it has no table.
      await main().getByText('website is a folder: it groups collections').waitFor();
      expect(await page.getByRole('button', { name: 'Add field' }).count()).to.equal(0);
      expect((await collection('website')).schema).to.equal(null);
      await createCollection(
        'home',
        async (dialog) => {
          await dialog.getByRole('switch', { name: 'Singleton (one item)' }).check();
          await withoutSystemFields(dialog);
          await browser().pick(/^Folder/, 'website', dialog);
        },
        /Create collection home with id/,
      );
      await browser().addField('home', { name: 'headline', type: 'String' }, [/Add field home.headline/]);
      expect((await collection('home')).meta).to.include({ singleton: true, group: 'website' });
      await createCollection('pages', keyed('UUID (generated)'), /Create collection pages with id/);
      await browser().addField('pages', { name: 'title', type: 'String' }, [/Add field pages.title/]);
      await createCollection('events', keyed('Big integer (auto-increment)'), /Create collection events with id/);
      await browser().addField('events', { name: 'name', type: 'String' }, [/Add field events.name/]);
      await createCollection(
        'countries',
        keyed('String (entered by hand)', 'code'),
        /Create collection countries with code/,
      );
      await browser().addField('countries', { name: 'name', type: 'String' }, [/Add field countries.name/]);
      const keyOf = async (name: string) => (await fieldsOf(name)).find((f) => f.schema?.['is_primary_key'] === true);
      expect((await keyOf('pages'))?.type).to.equal('uuid');
      expect((await keyOf('events'))?.type).to.equal('bigInteger');
      expect(await keyOf('countries')).to.deep.include({ field: 'code', type: 'string' });

      // The navigation: the singleton under its folder; its page is its one item's form, whose
      // first save makes the row and whose next save changes that row.
      const website = browser().nav().getByRole('list', { name: 'website' });
      await website.getByRole('link', { name: 'home', exact: true }).click();
      const headline = main().getByLabel('Headline');
      await headline.fill('Welcome');
      await main().getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').first().waitFor();
      expect(dataOf<Record<string, unknown>>(await asAdmin(ctx(), 'GET', '/items/home'))['headline']).to.equal(
        'Welcome',
      );
      await shot('singleton');
      await expectAccessible('singleton');
      await page.reload();
      await browser().valueShown(main().getByLabel('Headline'), 'Welcome');
      await main().getByLabel('Headline').fill('Hello');
      await main().getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').first().waitFor();
      expect(await ctx().server.db('home').select('headline')).to.deep.equal([{ headline: 'Hello' }]);

      // Each key type through the create form: generated (uuid, big integer) or typed (string).
      const createItem = async (name: string, values: Record<string, string>, address: RegExp) => {
        await page.goto(url(`/admin/content/${name}/create`));
        for (const [label, value] of Object.entries(values)) await main().getByLabel(label).fill(value);
        await main().getByRole('button', { name: 'Save' }).click();
        await page.waitForURL(address);
      };
      await createItem('pages', { Title: 'About' }, /\/admin\/content\/pages\/[0-9a-f-]{36}$/);
      await createItem('events', { Name: 'Launch' }, /\/admin\/content\/events\/1$/);
      await createItem('countries', { Code: 'nz', Name: 'New Zealand' }, /\/admin\/content\/countries\/nz$/);
      await browser().valueShown(main().getByLabel('Name'), 'New Zealand');
      expect(await main().getByLabel('Code').isEditable()).to.equal(false);
      expect(dataOf<Record<string, unknown>>(await asAdmin(ctx(), 'GET', '/items/countries/nz'))['name']).to.equal(
        'New Zealand',
      );
    });

    it('fits 390 px: the data model and a collection’s fields', async () => {
      await page.setViewportSize({ width: 390, height: 800 });
      for (const path of ['/admin/settings/data-model', '/admin/settings/data-model/articles']) {
        await page.goto(url(path));
        await page
          .getByRole('heading', { name: /Data model/ })
          .first()
          .waitFor();
        await (
          path.endsWith('articles')
            ? page.getByRole('list', { name: 'Fields of articles' }).getByText('title', { exact: true })
            : page.getByRole('link', { name: 'articles', exact: true }).last()
        ).waitFor();
        const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
        expect(overflow, path).to.be.at.most(0);
        await shot(`390${path.replace(/\W+/g, '-')}`);
        await expectAccessible(`390 ${path}`);
      }
    });

    it('downloads the snapshot and applies it to a second, empty server through its page', async () => {
      await page.goto(url('/admin/settings/data-model'));
      await page.getByRole('heading', { name: 'Schema snapshot' }).waitFor();
      await shot('overview');
      await expectAccessible('overview');
      const downloading = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Download snapshot' }).click();
      const file = await (await downloading).path();
      const snapshot = JSON.parse(readFileSync(file, 'utf8')) as { collections: { collection: string }[] };
      expect(snapshot.collections.map((c) => c.collection)).to.include.members(['articles', 'authors', 'tags']);
      // The same snapshot as YAML (the service's ?export=yaml), the one promoted below.
      const downloadingYaml = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Download as YAML' }).click();
      const yamlDownload = await downloadingYaml;
      expect(yamlDownload.suggestedFilename()).to.match(/^snapshot-[\d-]+\.yaml$/);
      const yamlFile = join(mkdtempSync(join(tmpdir(), 'svc-snapshot-')), yamlDownload.suggestedFilename());
      await yamlDownload.saveAs(yamlFile);
      const yamlText = readFileSync(yamlFile, 'utf8');
      expect(yamlText.trimStart().startsWith('{')).to.equal(false);
      expect(parseYaml(yamlText)).to.deep.equal(snapshot);

      const secondPort = await freePort();
      let database: TestDatabase | undefined;
      let second: RunningServer | undefined;
      try {
        database = await studio.target.create();
        second = await startServer(testConfig(database, studioServerEnv(secondPort)), {
          logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
        });
        const other = { api: (path: string, init?: RequestInit) => fetch(`${second?.url ?? ''}${path}`, init) };
        await browser().signIn(`http://127.0.0.1:${secondPort}`, TEST_ADMIN);
        await page.waitForURL(/first-run$/);
        await page.getByRole('link', { name: 'Data model' }).click();
        await page.getByRole('heading', { name: 'Schema snapshot' }).waitFor();
        await page.locator('input[type=file]').setInputFiles(yamlFile);
        const diff = page.getByRole('list', { name: /What .* changes here/ });
        await diff.getByText('+ collection articles', { exact: true }).waitFor();
        await diff.getByText('+ field articles.title', { exact: true }).waitFor();
        await diff.getByText('+ relation articles.author', { exact: true }).waitFor();
        await shot('snapshot-diff');
        await expectAccessible('snapshot-diff');
        await page.getByRole('button', { name: 'Apply snapshot' }).click();
        await page.getByText('Schema changed.').waitFor();
        await browser().nav().getByRole('link', { name: 'articles', exact: true }).waitFor();

        const secondFields = dataOf<FieldRow[]>(
          await asAdmin(other as unknown as ServerContext, 'GET', '/fields/articles'),
        );
        expect(secondFields.map((f) => f.field).sort()).to.deep.equal([
          'author',
          'blocks',
          'comments',
          'cover',
          'date_created',
          'id',
          'status',
          'tags',
          'title',
          'translations',
        ]);
        const secondRelations = dataOf<RelationRow[]>(
          await asAdmin(other as unknown as ServerContext, 'GET', '/relations'),
        );
        expect(
          secondRelations.find((r) => r.collection === 'articles' && r.field === 'author')?.related_collection,
        ).to.equal('authors');
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      } finally {
        await second?.close();
        await database?.drop();
      }
    });
  });
});
