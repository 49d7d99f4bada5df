import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createGuardrails, generate } from 'otplib';
import QRCode from 'qrcode';
import { asAdmin, call, dataOf, grant } from '../integration/access/permission-helpers.js';
import { pngHeader } from '../support/png-header.js';
import { TEST_ADMIN } from '../support/server.js';
import { SmtpInbox } from '../support/smtp-inbox.js';
import { studioSuite } from '../support/studio-suite.js';

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
  this.timeout(180_000);
  const inbox = new SmtpInbox();
  const studio = studioSuite('studio-access', { database: 'postgres', services: [inbox] });
  const { browser, shot, expectAccessible, main } = studio;
  let page: Page;
  before(() => {
    page = studio.page;
  });

  studio.onDatabase(
    'access',
    (ctx) => {
      const base = () => studio.url('');
      const editor = { email: 'editor@example.com', password: 'editor-password-1' };
      let role = '';
      let editorId = '';
      let own = 0;
      let others = 0;
      let published = 0;

      /*
       * The install starts empty: the administrator's first sign-in leads to the first
       * collection, whose fields are added in the app too, so this suite is the whole chain an
       * issue asks of the Studio: an empty install, a blog schema, an Editors role, an invited
       * editor, without the API or the command line. Only the articles' text is seeded.
       */
      it('an empty install: the first run makes articles with a status and its creator, then their title and body', async () => {
        await browser().signIn(base(), TEST_ADMIN);
        await page.waitForURL(/\/admin\/settings\/data-model\/first-run$/);
        await page.getByLabel('Collection name').fill('articles');
        for (const system of ['sort', 'user_updated', 'date_created', 'date_updated'])
          await page.getByRole('checkbox', { name: new RegExp(`^${system} `) }).uncheck();
        await page.getByRole('button', { name: 'Review changes' }).click();
        await (await browser().planLists([/Create collection articles with id, status, user_created/])).click();
        await page.waitForURL(/\/admin\/settings\/data-model\/articles\?first-run$/);
        await browser().addField('articles', { name: 'title', type: 'String' }, [
          /Add field articles.title \(string\)/,
        ]);
        await browser().addField('articles', { name: 'body', type: 'Text' }, [/Add field articles.body \(text\)/]);
        const fields = dataOf<Row[]>(await asAdmin(ctx(), 'GET', '/fields/articles')).map((f) => f['field']);
        expect(fields).to.deep.equal(['id', 'status', 'user_created', 'title', 'body']);

        const items = dataOf<Row[]>(
          await asAdmin(ctx(), 'POST', '/items/articles', [
            { title: 'Mine to edit', body: 'First body', status: 'draft' },
            { title: 'Not mine', body: 'Second body', status: 'draft' },
            { title: 'Mine, published', body: 'Third body', status: 'published' },
          ]),
        );
        own = Number(items[0]?.['id']);
        others = Number(items[1]?.['id']);
        published = Number(items[2]?.['id']);
      });

      const permissionsOf = async () =>
        (await ctx()
          .server.db('svc_permissions')
          .where({ role })
          .select('collection', 'action', 'permissions', 'fields')) as Row[];

      it('makes an Editors role: app access, read all articles, update their own drafts on some fields', async () => {
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

        await browser().pick('articles read', 'All');
        await page.getByRole('combobox', { name: 'articles read' }).filter({ hasText: 'All' }).waitFor();
        await browser().pick('articles update', 'Custom');
        const dialog = page.getByRole('dialog');
        // The item rule through the filter builder: user_created equals $CURRENT_USER, and status
        // equals draft (a choice of the field).
        const rule = dialog.getByRole('group', { name: 'Item rule' });
        await rule.getByRole('button', { name: 'Add condition' }).click();
        await browser().pick('Field', 'user_created');
        await browser().pick('Operator', 'equals');
        await browser().pick('Variable', '$CURRENT_USER');
        await rule.getByRole('button', { name: 'Add condition' }).click();
        const second = rule.getByRole('group', { name: 'Condition', exact: true }).nth(1);
        await browser().pick('Field', 'status', second);
        await browser().pick('Operator', 'equals', second);
        await browser().pick('Value', 'Draft', second);
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
          permissions: { _and: [{ user_created: { _eq: '$CURRENT_USER' } }, { status: { _eq: 'draft' } }] },
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
        await browser().pick('Role', 'Editors');
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
        await ctx().server.db('articles').whereIn('id', [own, published]).update({ user_created: editorId });

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
        // Their own, but published: not theirs to change any more.
        expect((await call(ctx(), token, 'PATCH', `/items/articles/${published}`, { title: 'x' })).status).to.equal(
          403,
        );
        expect((await call(ctx(), token, 'PATCH', `/items/articles/${own}`, { title: 'By the API' })).status).to.equal(
          200,
        );
        expect(dataOf<Row[]>(await call(ctx(), token, 'GET', '/items/articles')).length).to.equal(3);

        await page.goto(`${base()}/admin/content/articles/${published}`);
        const publishedTitle = main().getByLabel('Title');
        await browser().valueShown(publishedTitle, 'Mine, published');
        await page.waitForFunction('document.querySelector(\'#main-content button[type="submit"]\') === null');
        expect(await publishedTitle.isEditable()).to.equal(false);
      });

      it('views as the role: its collections and its items, read-only; then suspends the user, who is refused', async () => {
        await browser().signIn(base(), TEST_ADMIN);
        await page.goto(`${base()}/admin/settings/roles/${role}`);
        await page.getByRole('link', { name: 'View as this role' }).click();
        await page.getByRole('heading', { name: 'View as Editors' }).waitFor();
        await main().getByText('articles: Read, Update').waitFor();
        await browser().pick('Collection', 'articles');
        await main().getByText('Not mine').waitFor();
        await browser().pick('As user ($CURRENT_USER)', editor.email);
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
        // For whoever cannot scan: the secret as base32 text in a read-only field, which a
        // keyboard reaches (to copy it) and cannot change.
        const secretField = main().getByLabel('Secret');
        const secret = await secretField.inputValue();
        expect(secret).to.match(/^[A-Z2-7]{16,}$/);
        expect(await secretField.isEditable()).to.equal(false);
        await secretField.focus();
        expect(await secretField.evaluate((input) => input === input.ownerDocument.activeElement)).to.equal(true);
        // The QR code beside the secret holds the otpauth URL: each module of the code qrcode
        // makes of it, sampled at its centre in the image, is dark exactly where it should be.
        const otpauth = await main().getByLabel('otpauth URL').inputValue();
        expect(otpauth).to.contain(secret);
        const qr = main().getByRole('img', { name: /^QR code of the otpauth URL/ });
        await qr.waitFor();
        const { modules } = QRCode.create(otpauth, { errorCorrectionLevel: 'M' });
        const expected = Array.from({ length: modules.size }, (_, row) =>
          Array.from({ length: modules.size }, (_, col) => (modules.get(row, col) ? '#' : '.')).join(''),
        );
        // In the page (a string: this file has no DOM types): the image drawn on a canvas, each
        // module's centre read; the margin is one module each side.
        await qr.evaluate((img) => (img as unknown as { decode(): Promise<void> }).decode());
        const drawn = (await page.evaluate(`(() => {
          const img = document.querySelector('img[data-tfa-qr]');
          const canvas = document.createElement('canvas');
          canvas.width = img.naturalWidth;
          canvas.height = img.naturalHeight;
          const context = canvas.getContext('2d');
          context.drawImage(img, 0, 0);
          const size = ${String(modules.size)};
          const scale = img.naturalWidth / (size + 2);
          const dark = (row, col) =>
            context.getImageData(Math.floor((col + 1.5) * scale), Math.floor((row + 1.5) * scale), 1, 1).data[0] < 128;
          return Array.from({ length: size }, (_, row) =>
            Array.from({ length: size }, (_, col) => (dark(row, col) ? '#' : '.')).join(''));
        })()`)) as string[];
        expect(drawn).to.deep.equal(expected);
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

      it('creates a user with a password, who changes it on their profile; an administrator then sets a new one', async () => {
        const writer = { email: 'writer@example.com', password: 'writer-password-1' };
        const signsIn = async (password: string) =>
          (await call(ctx(), undefined, 'POST', '/auth/login', { email: writer.email, password })).status;
        await page.goto(`${base()}/admin/users`);
        await page.getByRole('button', { name: 'Create user' }).click();
        const dialog = page.getByRole('dialog');
        await dialog.getByLabel('E-mail').fill(writer.email);
        await dialog.getByLabel('First name').fill('Wren');
        await dialog.getByLabel('Password').fill(writer.password);
        await browser().pick('Role', 'Editors');
        await dialog.getByRole('button', { name: 'Create user' }).click();
        await page.getByText('Created.').waitFor();
        await main().getByText(writer.email).waitFor();
        const created = (await ctx().server.db('svc_users').where({ email: writer.email }).first()) as Row;
        expect([created['status'], created['role'], created['first_name']]).to.deep.equal(['active', role, 'Wren']);
        expect(await signsIn(writer.password)).to.equal(200);

        // Without the right to update their svc_users row, the profile offers no change the
        // API would refuse: the password, the details and the token are read-only, each saying why.
        await browser().signIn(base(), writer);
        await browser().nav().getByRole('link', { name: 'My profile' }).click();
        await main().getByText('Your role may not change your password here').waitFor();
        expect(await main().getByLabel('New password', { exact: true }).count()).to.equal(0);
        expect(await main().getByLabel('First name').isDisabled()).to.equal(true);
        expect(await main().getByRole('button', { name: 'Save' }).count()).to.equal(0);
        expect(await main().getByRole('button', { name: 'Generate token' }).count()).to.equal(0);
        await main().getByText('Your role may not give you a static token').waitFor();

        // Their own profile: the two entries must agree, then the new password is the one. The
        // API lets a role's users change their own password only when the role may update
        // svc_users (as Directus): the Editors role gets that right for its own row's password.
        await grant(ctx(), role, [
          {
            collection: 'svc_users',
            action: 'update',
            permissions: { id: { _eq: '$CURRENT_USER' } },
            fields: ['password'],
          },
        ]);
        await browser().signIn(base(), writer);
        await browser().nav().getByRole('link', { name: 'My profile' }).click();
        const changed = 'writer-password-2';
        await main().getByLabel('New password', { exact: true }).fill(changed);
        await main().getByLabel('Repeat the new password').fill('something else');
        await main().getByRole('button', { name: 'Change password' }).click();
        await main().getByText('The two passwords differ.').waitFor();
        expect(await signsIn(writer.password)).to.equal(200);
        await main().getByLabel('Repeat the new password').fill(changed);
        await main().getByRole('button', { name: 'Change password' }).click();
        await page.getByText('Password changed.').waitFor();
        expect([await signsIn(writer.password), await signsIn(changed)]).to.deep.equal([401, 200]);

        // An administrator sets another from the user's dialog.
        await browser().signIn(base(), TEST_ADMIN);
        await page.goto(`${base()}/admin/users`);
        await page.getByRole('button', { name: `Manage ${writer.email}` }).click();
        const manage = page.getByRole('dialog');
        const reset = 'writer-password-3';
        await manage.getByLabel('New password').fill(reset);
        await shot('user-set-password');
        await expectAccessible('user-set-password');
        await manage.getByRole('button', { name: 'Set password' }).click();
        await page.getByText('Password changed.').waitFor();
        expect([await signsIn(changed), await signsIn(reset)]).to.deep.equal([401, 200]);
      });

      it('edits a permission’s presets as field = value rows, shown the same as JSON', async () => {
        await page.goto(`${base()}/admin/settings/roles/${role}`);
        await browser().pick('articles create', 'Custom');
        const dialog = page.getByRole('dialog');
        const presets = dialog.getByRole('group', { name: 'Presets (field values)' });
        await presets.getByRole('button', { name: 'Add preset' }).click();
        await browser().pick('Preset 1: field', 'body');
        await presets.getByLabel('Preset 1: value').fill('Drafted by an editor');
        await presets.getByRole('button', { name: 'Add preset' }).click();
        await browser().pick('Preset 2: field', 'user_created');
        await presets.getByLabel('Preset 2: value').fill('$CURRENT_USER');
        const expected = { body: 'Drafted by an editor', user_created: '$CURRENT_USER' };
        await presets.getByLabel('Edit the presets as JSON').check();
        const json = presets.getByLabel('Presets (JSON)');
        expect(JSON.parse(await json.inputValue())).to.deep.equal(expected);
        await shot('presets');
        await expectAccessible('presets');
        // Invalid JSON is shown and not saved.
        await json.fill('{"body": ');
        await presets.getByText(/Not saved, invalid JSON/).waitFor();
        await dialog.getByRole('button', { name: 'Save' }).click();
        await dialog.getByRole('alert').waitFor();
        const created = () =>
          ctx().server.db('svc_permissions').where({ role, collection: 'articles', action: 'create' }).first('presets');
        expect(await created()).to.equal(undefined);
        await json.fill(JSON.stringify(expected));
        await dialog.getByRole('button', { name: 'Save' }).click();
        await dialog.waitFor({ state: 'detached' });
        const row = (await created()) as Row;
        const stored = typeof row['presets'] === 'string' ? (JSON.parse(row['presets']) as unknown) : row['presets'];
        expect(stored).to.deep.equal(expected);
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
            // The roles list counts each role's users (the suspended editor too, and the writer).
            if (path === '/admin/settings/roles')
              await main().getByText('Writes articles · 2 users · App access').waitFor();
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
    { extraEnv: () => inbox.env() },
  );
});
