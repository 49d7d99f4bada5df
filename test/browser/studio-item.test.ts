import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { asAdmin, dataOf } from '../integration/access/permission-helpers.js';
import { TEST_ADMIN } from '../support/server.js';
import { StudioBrowser } from '../support/studio-browser.js';
import { studioSuite } from '../support/studio-suite.js';

const EDDIE = { email: 'eddie@example.com', password: 'eddie-password-1' };

/** `date` as a datetime-local input takes it, in the browser's (and this process's) time zone. */
function localMoment(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/**
 * The item page's history and drafts side (src/console/studio/item/): revisions with diffs and
 * revert, the item at a moment and its restore, comments with mentions, content versions
 * (draft, compare, promote a field), live updates from another editor's browser, presence, and
 * conflicts on save. A second Chromium is the other editor (Eddie).
 */
describe('Studio: the item page, history and drafts, live', function () {
  this.timeout(180_000);
  const studio = studioSuite('studio-item', { database: 'sqlite' });
  const { browser } = studio;
  let other: StudioBrowser | undefined;
  let page: Page;
  let eddiePage: Page;

  before(async () => {
    other = await StudioBrowser.open('studio-item-other');
    page = studio.page;
    eddiePage = other.page;
  });
  after(async () => {
    await other?.close();
  });
  afterEach(async function () {
    await other?.afterEach(this.currentTest);
  });

  const second = (): StudioBrowser => {
    if (other === undefined) throw new Error('Chromium not started');
    return other;
  };
  const shot = (name: string, on: Page = page) => browser().shot(name, on);
  const expectAccessible = (name: string, on: Page = page) => browser().expectAccessible(name, on);

  studio.onDatabase(
    'studio item',
    (ctx) => {
      const { url } = studio;
      let eddieId = '';
      const item = <T>(id: number) => asAdmin(ctx(), 'GET', `/items/posts/${id}`).then((r) => dataOf<T>(r));
      const title = (on: Page = page) => on.getByRole('textbox', { name: 'title' });
      const sidebar = (on: Page = page) => on.getByRole('complementary', { name: 'History, comments and versions' });
      const save = async (on: Page = page) => {
        await on.getByRole('button', { name: 'Save' }).click();
      };

      before(async () => {
        const key = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };
        const fields = [
          key,
          { field: 'title', type: 'string' },
          { field: 'body', type: 'text' },
          { field: 'views', type: 'integer' },
        ];
        const meta = { versioning: true, display_template: '{{title}}' };
        dataOf(await asAdmin(ctx(), 'POST', '/collections', { collection: 'posts', schema: {}, meta, fields }));
        dataOf(
          await asAdmin(ctx(), 'POST', '/items/posts', [
            { title: 'First post', body: 'The quick brown fox', views: 1 },
            { title: 'Second post', body: 'Jumps over', views: 2 },
            { title: 'Third post', body: 'The lazy dog', views: 3 },
          ]),
        );
        const me = dataOf<{ role: string }>(await asAdmin(ctx(), 'GET', '/users/me?fields=role'));
        eddieId = dataOf<{ id: string }>(
          await asAdmin(ctx(), 'POST', '/users', { ...EDDIE, first_name: 'Eddie', last_name: 'Tor', role: me.role }),
        ).id;
        await browser().signIn(url(''), TEST_ADMIN);
        await second().signIn(url(''), EDDIE, eddiePage);
      });

      it('shows each edit as a revision with its diff, reverts to the first edit, and restores a moment', async () => {
        // The old history address opens the item with the sidebar on its history.
        await page.goto(url('/admin/content/posts/1/history'));
        await page.waitForURL(/\/admin\/content\/posts\/1\?panel=history$/);
        await browser().valueShown(title(), 'First post');
        // A moment before both edits, on a whole second the edits come after.
        const moment = new Date(Math.ceil(Date.now() / 1000) * 1000);
        while (Date.now() <= moment.getTime()) await page.waitForTimeout(50);

        await title().fill('First post, edited once');
        await save();
        await page.getByText('Saved.').first().waitFor();
        await title().fill('First post, edited twice');
        await save();
        const revisions = sidebar().locator('li.revision');
        await revisions.nth(2).waitFor();
        expect(await revisions.count()).to.equal(3);
        expect(await revisions.first().innerText()).to.match(/Updated by Admin/);
        await revisions.first().getByRole('button', { name: 'Show changes' }).click();
        const diff = revisions.first().locator('table.diff-table');
        await diff.waitFor();
        expect(await diff.locator('del').allInnerTexts()).to.include('once');
        expect(await diff.locator('ins').allInnerTexts()).to.include('twice');
        await shot('history-diff');
        await expectAccessible('history');

        // Revert to the first edit: a notification, the form read again.
        await revisions.nth(1).getByRole('button', { name: 'Revert to this' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
        await page.getByText(/^Reverted to revision \d+\.$/).waitFor();
        await browser().valueShown(title(), 'First post, edited once');
        expect((await item<{ title: string }>(1)).title).to.equal('First post, edited once');
        await revisions.nth(3).waitFor();
        await shot('reverted');

        // The item at the moment before the edits, read-only, then restored.
        await sidebar().getByLabel('Moment', { exact: true }).fill(localMoment(moment));
        await sidebar().getByRole('button', { name: 'Show', exact: true }).click();
        const then = sidebar().getByRole('region', { name: /As it was on/ });
        await then.getByText('First post', { exact: true }).waitFor();
        expect(await then.locator('input, textarea').count()).to.equal(0);
        await shot('as-of');
        await expectAccessible('as-of');
        await then.getByRole('button', { name: 'Restore this' }).click();
        await page.getByText(/^Restored as it was on/).waitFor();
        await browser().valueShown(title(), 'First post');
        expect((await item<{ title: string }>(1)).title).to.equal('First post');
      });

      it('adds a comment that mentions a user picked by name, stored as @<user id>', async () => {
        await page.goto(url('/admin/content/posts/1?panel=comments'));
        const box = sidebar().getByRole('combobox', { name: 'Comment' });
        await box.fill('Looks good @Edd');
        const option = page.getByRole('option', { name: 'Eddie Tor' });
        await option.waitFor();
        await shot('mention');
        await box.press('Enter');
        // The picked name replaces the typed part once the box re-renders, not within the key press.
        await browser().valueShown(box, 'Looks good @Eddie Tor ');
        await box.pressSequentially('please check');
        await sidebar().getByRole('button', { name: 'Add comment' }).click();
        await page.getByText('Comment added.').waitFor();
        const shown = sidebar().locator('li.comment');
        const mention = shown.first().locator('.mention');
        // The comment comes first as stored (@<id>); the name follows once the user is read.
        await browser().until(
          async () => (await mention.innerText()) === '@Eddie Tor',
          'the mention never named Eddie',
        );
        const stored = dataOf<{ comment: string }[]>(
          await asAdmin(ctx(), 'GET', '/comments?filter[collection][_eq]=posts&filter[item][_eq]=1'),
        );
        expect(stored.map((c) => c.comment)).to.deep.equal([`Looks good @${eddieId} please check`]);
        await expectAccessible('comments');
      });

      it('creates a draft, edits it, compares it with the live item and promotes one field', async () => {
        await page.goto(url('/admin/content/posts/2?panel=versions'));
        await sidebar().getByLabel('Draft name').fill('Spring');
        await sidebar().getByRole('button', { name: 'Create draft' }).click();
        await page.waitForURL(/version=Spring/);
        const drafting = sidebar().getByText('The form edits the draft "Spring"');
        await drafting.waitFor();
        // The button pressed is gone with the form drawn anew: the focus is on what it edits now.
        await browser().until(() => browser().isFocused(drafting), 'the draft line never had the focus');
        await browser().valueShown(title(), 'Second post');
        await title().fill('Second post, drafted');
        await page.getByLabel('views').fill('20');
        await save();
        await page.getByText('Saved to the draft "Spring".').waitFor();
        // The live item is untouched; the draft holds the edit.
        expect(await item<{ title: string; views: number }>(2)).to.include({ title: 'Second post', views: 2 });
        const drafted = dataOf<{ title: string }>(await asAdmin(ctx(), 'GET', '/items/posts/2?version=Spring'));
        expect(drafted.title).to.equal('Second post, drafted');

        await sidebar().getByRole('button', { name: 'Compare with live' }).click();
        const compare = sidebar().locator('.version-compare');
        await compare.locator('tr.changed[data-field="title"]').waitFor();
        expect(await compare.locator('tr.changed').count()).to.equal(2);
        expect(await compare.locator('tr[data-field="title"]').innerText()).to.include('Second post, drafted');
        await shot('compare');
        await expectAccessible('compare');
        await compare.getByRole('checkbox', { name: 'Promote title' }).check();
        await compare.getByRole('button', { name: 'Promote selected' }).click();
        await page.getByText('Promoted 1 field to the live item.').waitFor();
        expect(await item<{ title: string; views: number }>(2)).to.include({ title: 'Second post, drafted', views: 2 });
        await page.waitForURL((u) => !u.search.includes('version='));
        await browser().valueShown(title(), 'Second post, drafted');
        const live = sidebar().getByText('The form edits the live item.');
        await browser().until(() => browser().isFocused(live), 'the live line never had the focus');
      });

      it('updates the list and the open item when another editor saves, and shows who else has it open', async () => {
        await page.goto(url('/admin/content/posts'));
        await page.getByText('Third post').waitFor();
        await eddiePage.goto(url('/admin/content/posts/3'));
        await second().valueShown(title(eddiePage), 'Third post');
        await title(eddiePage).fill('Third post, by Eddie');
        await save(eddiePage);
        await eddiePage.getByText('Saved.').waitFor();
        // The list shows the change without a reload.
        await page.getByText('Third post, by Eddie').waitFor();
        await shot('list-live');

        await page.goto(url('/admin/content/posts/3'));
        await browser().valueShown(title(), 'Third post, by Eddie');
        await sidebar().getByText('Eddie Tor also has this item open.').waitFor();
        await sidebar(eddiePage)
          .getByText(/also has this item open/)
          .waitFor();
        await shot('presence');
        await expectAccessible('presence');
        await title(eddiePage).fill('Third post, live');
        await save(eddiePage);
        await browser().valueShown(title(), 'Third post, live');
        await eddiePage.goto(url('/admin/content/posts'));
        await page.getByText('Eddie Tor also has this item open.').waitFor({ state: 'detached' });
      });

      it('on a conflicting save: "keep mine" writes mine, "take theirs" writes nothing, a merge picks per field', async () => {
        await page.goto(url('/admin/content/posts/3'));
        await eddiePage.goto(url('/admin/content/posts/3'));
        await browser().valueShown(title(), 'Third post, live');
        await second().valueShown(title(eddiePage), 'Third post, live');

        await title().fill('Mine 1');
        await title(eddiePage).fill('Theirs 1');
        await save(eddiePage);
        await eddiePage.getByText('Saved.').waitFor();
        await sidebar().getByText('Someone else saved this item.', { exact: false }).waitFor();
        expect(await title().inputValue()).to.equal('Mine 1');
        await save();
        const dialog = page.getByRole('dialog', { name: 'This item changed since you opened it' });
        await dialog.locator('tr[data-field="title"]').getByText('Theirs 1').waitFor();
        await shot('conflict');
        // The Save button's spinner turns for as long as the dialog waits: axe-core waits for
        // running animations to end, so this endless one is stopped first.
        await page.evaluate(
          'document.getAnimations().filter((a) => a.effect?.getTiming().iterations === Infinity).forEach((a) => a.cancel())',
        );
        await expectAccessible('conflict');
        await dialog.getByRole('button', { name: 'Keep mine' }).click();
        await page.getByText('Saved.').first().waitFor();
        expect((await item<{ title: string }>(3)).title).to.equal('Mine 1');
        await second().valueShown(title(eddiePage), 'Mine 1');

        await title().fill('Mine 2');
        await title(eddiePage).fill('Theirs 2');
        await save(eddiePage);
        await sidebar().getByText('Someone else saved this item.', { exact: false }).waitFor();
        await save();
        await dialog.getByRole('button', { name: 'Take theirs' }).click();
        await page.getByText('Their version is shown; nothing of yours was saved.').waitFor();
        await browser().valueShown(title(), 'Theirs 2');
        expect((await item<{ title: string }>(3)).title).to.equal('Theirs 2');

        // Field by field: their title over mine, my body, their views (which I left alone).
        await second().valueShown(title(eddiePage), 'Theirs 2');
        await title().fill('Mine 3');
        await page.getByRole('textbox', { name: 'body' }).fill('Body of mine');
        await title(eddiePage).fill('Theirs 3');
        await eddiePage.getByLabel('views').fill('30');
        await save(eddiePage);
        await sidebar().getByText('Someone else saved this item.', { exact: false }).waitFor();
        await save();
        await dialog.locator('tr[data-field="views"]').waitFor();
        await dialog.locator('tr[data-field="title"]').getByRole('radio', { name: 'Theirs' }).check();
        await dialog.getByRole('button', { name: 'Merge as chosen' }).click();
        await page.getByText('Saved.').first().waitFor();
        await browser().valueShown(title(), 'Theirs 3');
        expect(await item<{ title: string; body: string; views: number }>(3)).to.include({
          title: 'Theirs 3',
          body: 'Body of mine',
          views: 30,
        });
      });

      it('fits a 390 px wide screen: the sidebar under the form, no sideways scrolling', async () => {
        await eddiePage.goto(url('/admin/content'));
        await page.setViewportSize({ width: 390, height: 800 });
        await page.goto(url('/admin/content/posts/2?panel=history'));
        await browser().valueShown(title(), 'Second post, drafted');
        await sidebar().locator('li.revision').first().waitFor();
        const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
        const wide = await page.evaluate(
          "[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && ![...e.children].some((c) => c.getBoundingClientRect().right > window.innerWidth + 1)).slice(0, 8).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))",
        );
        expect(overflow, JSON.stringify(wide)).to.be.at.most(0);
        await shot('item-390');
        await expectAccessible('item-390');
        await page.setViewportSize({ width: 1280, height: 800 });
        // The pages leave the Studio before this database's server stops: their sockets would
        // try to reconnect to it, and Chromium logs each refused attempt as an error.
        await Promise.all([page.goto('about:blank'), eddiePage.goto('about:blank')]);
      });
    },
    { alsoLeave: () => other, extraEnv: () => ({ WEBSOCKETS_ENABLED: 'true' }) },
  );
});
