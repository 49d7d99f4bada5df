import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createGuardrails, generate } from 'otplib';
import { asAdmin, call, dataOf } from '../integration/access/permission-helpers.js';
import { createRole, createUser, jwtPayload, type TestUser } from '../integration/auth/helpers.js';
import { TEST_ADMIN } from '../support/server.js';
import { studioSuite } from '../support/studio-suite.js';

type Row = Record<string, unknown>;
const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 });
const otpOf = (secret: string) => generate({ secret, guardrails, epoch: Math.floor(Date.now() / 1000) });
const codeOf = (res: { body: Row | undefined }) =>
  (res.body?.['errors'] as { extensions?: { code?: string } }[] | undefined)?.[0]?.extensions?.code;

/**
 * An administrator's work on users in the Studio, in Chromium on PostgreSQL, each step checked
 * in what the API then holds and in what the user it touches meets when signing in: the users
 * list's search, a role changed, suspend / reactivate / archive, TFA reset, a user deleted, a
 * role's IP allow-list and TFA flag, the public settings (the public note on the sign-in page,
 * registration into a role), and the activity log filtered by user and by action.
 */
describe('Studio: managing users in Chromium', function () {
  this.timeout(180_000);
  const studio = studioSuite('studio-users', { database: 'postgres' });
  const { browser, shot, expectAccessible, main } = studio;
  let page: Page;
  before(() => {
    page = studio.page;
  });

  studio.onDatabase('users', (ctx) => {
    const base = () => studio.url('');
    let writers = '';
    let readers = '';
    let ada: TestUser;
    let bob: TestUser;
    let cleo: TestUser;

    before(async () => {
      const db = ctx().server.db;
      writers = await createRole(db, { name: 'Writers' });
      readers = await createRole(db, { name: 'Readers' });
      ada = await createUser(db, { email: 'ada.lovelace@example.com', role: writers, password: 'ada-password-1' });
      bob = await createUser(db, { email: 'bob.builder@example.com', role: writers, password: 'bob-password-1' });
      cleo = await createUser(db, { email: 'cleo.patra@example.com', role: readers, password: 'cleo-password-1' });
      await db('svc_users').where({ id: ada.id }).update({ first_name: 'Ada', last_name: 'Lovelace' });
      await db('svc_users').where({ id: bob.id }).update({ first_name: 'Bob', last_name: 'Builder' });
    });

    const login = (user: TestUser) =>
      call(ctx(), undefined, 'POST', '/auth/login', { email: user.email, password: user.password });
    const userRow = (id: string) => asAdmin(ctx(), 'GET', `/users/${id}?fields=id,role,status`);
    const manage = async (user: TestUser) => {
      await page.goto(`${base()}/admin/users`);
      await page.getByRole('button', { name: `Manage ${user.email}` }).click();
      return page.getByRole('dialog', { name: user.email });
    };
    const rowsShown = () => main().locator('tbody tr');

    it('narrows the users list by a search on the name or the e-mail address', async () => {
      await browser().signIn(base(), TEST_ADMIN);
      await page.goto(`${base()}/admin/users`);
      for (const user of [ada, bob, cleo, TEST_ADMIN]) await main().getByText(user.email).waitFor();
      const search = main().getByRole('searchbox', { name: 'Search' });
      await search.fill('Lovelace');
      await main().getByText(bob.email).waitFor({ state: 'detached' });
      expect(await rowsShown().allInnerTexts()).to.have.length(1);
      await main().getByText(ada.email).waitFor();
      await shot('users-search');
      await expectAccessible('users-search');
      await search.fill('cleo.patra@');
      await main().getByText(cleo.email).waitFor();
      await main().getByText(ada.email).waitFor({ state: 'detached' });
      expect(await rowsShown().count()).to.equal(1);
      await search.fill('nobody-like-this');
      await main().getByText('Nothing found.').waitFor();
      expect(await main().getByText(cleo.email).count()).to.equal(0);
    });

    it('changes a user’s role from their dialog: the API and the user’s session see the new role', async () => {
      const dialog = await manage(bob);
      await dialog.getByRole('combobox', { name: 'Role' }).click();
      await page.getByRole('option', { name: 'Readers', exact: true }).click();
      await shot('user-role');
      await expectAccessible('user-role');
      await dialog.getByRole('button', { name: 'Change role' }).click();
      await page.getByText('Saved.').waitFor();
      await dialog.waitFor({ state: 'detached' });
      expect(dataOf<Row>(await userRow(bob.id))['role']).to.equal(readers);
      await main()
        .getByRole('row', { name: new RegExp(bob.email) })
        .getByText('Readers')
        .waitFor();
      // Bob signs in: the access token he is given carries the new role.
      const token = dataOf<{ access_token: string }>(await login(bob)).access_token;
      expect(jwtPayload(token)['role']).to.equal(readers);
    });

    it('suspends, reactivates and archives a user: refused at sign-in while suspended or archived', async () => {
      const shown = { Suspend: 'Suspended', Reactivate: 'Active', Archive: 'Archived' } as const;
      const setStatus = async (button: keyof typeof shown, status: string) => {
        const dialog = await manage(ada);
        await dialog.getByRole('button', { name: button }).click();
        await page.getByText('Saved.').first().waitFor();
        await dialog.waitFor({ state: 'detached' });
        expect(dataOf<Row>(await userRow(ada.id))['status']).to.equal(status);
        await main()
          .getByRole('row', { name: new RegExp(ada.email) })
          .getByText(shown[button], { exact: true })
          .waitFor();
      };
      // Signed out (from the users page), the user tries the sign-in page: refused, still there.
      const refusedInBrowser = async (user: TestUser) => {
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
        await page.getByLabel('E-mail').fill(user.email);
        await page.getByLabel('Password').fill(user.password);
        await browser().withRefusal(401, async () => {
          await page.getByRole('button', { name: 'Sign in' }).click();
          await page.getByRole('status').getByText('Invalid user credentials.').waitFor();
        });
        expect(new URL(page.url()).pathname).to.equal('/admin/login');
      };
      expect((await login(ada)).status).to.equal(200);
      await setStatus('Suspend', 'suspended');
      expect((await login(ada)).status).to.equal(401);
      await shot('user-suspended');
      await expectAccessible('user-suspended');
      await refusedInBrowser(ada);
      await shot('sign-in-refused');
      await expectAccessible('sign-in-refused');

      await browser().signIn(base(), TEST_ADMIN);
      await setStatus('Reactivate', 'active');
      expect((await login(ada)).status).to.equal(200);
      await browser().signIn(base(), ada);

      await browser().signIn(base(), TEST_ADMIN);
      await setStatus('Archive', 'archived');
      expect((await login(ada)).status).to.equal(401);
      await refusedInBrowser(ada);
      await browser().signIn(base(), TEST_ADMIN);
    });

    it('turns off a user’s TFA: they then sign in without a one-time code', async () => {
      // TFA on through the API (their own generate and enable, as the profile page does).
      const token = dataOf<{ access_token: string }>(await login(cleo)).access_token;
      const { secret } = dataOf<{ secret: string }>(
        await call(ctx(), token, 'POST', '/users/me/tfa/generate', { password: cleo.password }),
      );
      const enabled = await call(ctx(), token, 'POST', '/users/me/tfa/enable', { secret, otp: await otpOf(secret) });
      expect(enabled.status, JSON.stringify(enabled.body)).to.be.oneOf([200, 204]);
      const refused = await login(cleo);
      expect([refused.status, codeOf(refused)]).to.deep.equal([401, 'INVALID_OTP']);

      const dialog = await manage(cleo);
      await shot('user-tfa');
      await expectAccessible('user-tfa');
      await dialog.getByRole('button', { name: 'Turn off two-factor authentication' }).click();
      await page.getByText('Two-factor authentication is off for this user.').waitFor();
      expect(await ctx().server.db('svc_users').where({ id: cleo.id }).first('tfa_secret')).to.deep.equal({
        tfa_secret: null,
      });
      expect((await login(cleo)).status).to.equal(200);
      // In the browser: signed in at once, no one-time code asked.
      await browser().signIn(base(), cleo);
      expect(await page.getByLabel('One-time code').count()).to.equal(0);
      await browser().signIn(base(), TEST_ADMIN);
    });

    it('deletes a user once confirmed: the API no longer has them, nor lets them sign in', async () => {
      const dialog = await manage(bob);
      await dialog.getByRole('button', { name: 'Delete' }).click();
      const confirm = page.getByRole('dialog', { name: `Delete ${bob.email}?` });
      await confirm.getByText('The account is removed; what it wrote stays.').waitFor();
      await shot('user-delete');
      await expectAccessible('user-delete');
      // Cancelled first: nothing is removed.
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'detached' });
      expect((await userRow(bob.id)).status).to.equal(200);
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await confirm.getByRole('button', { name: 'Confirm' }).click();
      await page.getByText('Deleted.').first().waitFor();
      await main().getByText(bob.email).waitFor({ state: 'detached' });
      expect((await userRow(bob.id)).status).to.be.oneOf([403, 404]);
      const list = dataOf<Row[]>(await asAdmin(ctx(), 'GET', `/users?filter[email][_eq]=${bob.email}`));
      expect(list).to.deep.equal([]);
      expect((await login(bob)).status).to.equal(401);
    });

    it('sets a role’s IP allow-list and TFA requirement: stored, and its users are refused from elsewhere', async () => {
      await page.goto(`${base()}/admin/settings/roles/${readers}`);
      const ip = main().getByLabel('IP allow-list');
      await ip.waitFor();
      await ip.fill('10.0.0.0/8, 192.168.1.7');
      await main().getByLabel('Require two-factor authentication').check();
      await main().getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').waitFor();
      await shot('role-ip-tfa');
      await expectAccessible('role-ip-tfa');
      const role = dataOf<Row>(await asAdmin(ctx(), 'GET', `/roles/${readers}?fields=ip_access,enforce_tfa`));
      expect(role).to.deep.equal({ ip_access: ['10.0.0.0/8', '192.168.1.7'], enforce_tfa: true });
      const row = (await ctx().server.db('svc_roles').where({ id: readers }).first()) as Row;
      expect([row['ip_access'], Boolean(row['enforce_tfa'])]).to.deep.equal(['10.0.0.0/8,192.168.1.7', true]);
      // Cleo (a Reader) signs in from 127.0.0.1, outside the list: 401 INVALID_IP.
      const refused = await login(cleo);
      expect([refused.status, codeOf(refused)]).to.deep.equal([401, 'INVALID_IP']);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByLabel('E-mail').fill(cleo.email);
      await page.getByLabel('Password').fill(cleo.password);
      await browser().withRefusal(401, async () => {
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('status').getByRole('alert').getByText('Invalid IP address.').waitFor();
      });
      // The list emptied again: any address.
      await browser().signIn(base(), TEST_ADMIN);
      await page.goto(`${base()}/admin/settings/roles/${readers}`);
      await browser().valueShown(main().getByLabel('IP allow-list'), '10.0.0.0/8, 192.168.1.7');
      await main().getByLabel('IP allow-list').fill('');
      await main().getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').waitFor();
      expect((await login(cleo)).status).to.equal(200);
    });

    it('saves the public note, language and registration: the sign-in page shows the note; a registration gets the role', async () => {
      const note = 'Closed for maintenance on Sunday.';
      await page.goto(`${base()}/admin/settings/project`);
      await page.getByLabel('Public note').fill(note);
      await page.getByLabel('Default language').fill('en-GB');
      await page.getByLabel('Anyone may register').check();
      await page.getByRole('combobox', { name: 'Role of new registrations' }).click();
      await page.getByRole('option', { name: 'Writers', exact: true }).click();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Settings saved.').waitFor();
      const settings = dataOf<Row>(await asAdmin(ctx(), 'GET', '/settings'));
      expect([
        settings['public_note'],
        settings['default_language'],
        Boolean(settings['public_registration']),
        settings['public_registration_role'],
      ]).to.deep.equal([note, 'en-GB', true, writers]);
      const info = dataOf<{ project: Row }>(await call(ctx(), undefined, 'GET', '/server/info'));
      expect([info.project['public_note'], info.project['default_language']]).to.deep.equal([note, 'en-GB']);

      // A visitor: the note on the sign-in page. (The app bar hides while the long settings page
      // is scrolled down to its Save button: back to the top for it.)
      await page.evaluate('window.scrollTo(0, 0)');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByText(note).waitFor();
      await shot('sign-in-note');
      await expectAccessible('sign-in-note');

      // Registration is open: a new address becomes an active Writer who may sign in.
      dataOf(await asAdmin(ctx(), 'PATCH', '/settings', { public_registration_verify_email: false }));
      const dora = { email: 'dora.explorer@example.com', password: 'dora-password-1' };
      expect((await call(ctx(), undefined, 'POST', '/users/register', dora)).status).to.be.oneOf([200, 204]);
      const registered = (await ctx().server.db('svc_users').where({ email: dora.email }).first()) as Row;
      expect([registered['role'], registered['status']]).to.deep.equal([writers, 'active']);
      expect((await call(ctx(), undefined, 'POST', '/auth/login', dora)).status).to.equal(200);
      await browser().signIn(base(), TEST_ADMIN);
    });

    it('filters the activity log by user and by action: only the matching rows are shown', async () => {
      await page.goto(`${base()}/admin/activity`);
      await page.getByRole('heading', { name: 'Activity' }).waitFor();
      const rows = main().locator('tbody tr');
      await rows.first().waitFor();
      const cellsOf = async (column: number) =>
        (await rows.locator(`td:nth-child(${String(column)})`).allInnerTexts()).map((t) => t.trim());
      await page.getByRole('combobox', { name: 'User' }).click();
      await page.getByRole('option', { name: cleo.email, exact: true }).click();
      await page.waitForURL(/filter=.*user/);
      await page.getByRole('combobox', { name: 'Action' }).click();
      await page.getByRole('option', { name: 'login', exact: true }).click();
      await page.waitForURL(/filter=.*login/);
      const logins = await ctx().server.db('svc_activity').where({ user: cleo.id, action: 'login' }).count({ n: '*' });
      const expected = Number(logins[0]?.['n']);
      expect(expected).to.be.above(1);
      await page.waitForFunction(`document.querySelectorAll('#main-content tbody tr').length === ${String(expected)}`);
      // Columns: when, action, user, collection, item.
      expect(new Set(await cellsOf(2))).to.deep.equal(new Set(['login']));
      expect(new Set(await cellsOf(3))).to.deep.equal(new Set([cleo.email]));
      await shot('activity-user-login');
      await expectAccessible('activity-user-login');

      // The administrator's updates: the users, the role and the settings changed above.
      await page.getByRole('combobox', { name: 'User' }).click();
      // The bootstrap administrator is named Admin User.
      await page.getByRole('option', { name: 'Admin User', exact: true }).click();
      await page.getByRole('combobox', { name: 'Action' }).click();
      await page.getByRole('option', { name: 'update', exact: true }).click();
      await page.waitForURL(/filter=.*update/);
      await main().getByRole('cell', { name: 'svc_roles', exact: true }).first().waitFor();
      expect(new Set(await cellsOf(2))).to.deep.equal(new Set(['update']));
      expect(new Set(await cellsOf(3))).to.deep.equal(new Set(['Admin User']));
      expect(new Set(await cellsOf(4))).to.include.members(['svc_users', 'svc_roles', 'svc_settings']);
    });

    it('holds a user whose role requires TFA at its setup on every page until it is on, then opens the Studio', async () => {
      // Readers require TFA from any address (as the tests above leave them); Cleo, a Reader, has none.
      dataOf(await asAdmin(ctx(), 'PATCH', `/roles/${readers}`, { enforce_tfa: true, ip_access: null }));
      await ctx().server.db('svc_users').where({ id: cleo.id }).update({ tfa_secret: null });
      await browser().signIn(base(), cleo);
      const setUp = page.getByRole('heading', { level: 1, name: 'Set up two-factor authentication' });
      const required = main().getByText('Your role requires two-factor authentication');
      await setUp.waitFor();
      await required.waitFor();
      // Nothing else of the app: no navigation, and an app address shows the same page.
      expect(await page.getByRole('navigation', { name: 'Main' }).count()).to.equal(0);
      await page.goto(`${base()}/admin/content`);
      await setUp.waitFor();
      await required.waitFor();
      expect(new URL(page.url()).pathname).to.equal('/admin/content');
      expect(await page.getByRole('navigation', { name: 'Main' }).count()).to.equal(0);
      expect(await page.getByRole('heading', { name: 'Collections' }).count()).to.equal(0);
      await shot('tfa-required');
      await expectAccessible('tfa-required');
      const viewport = page.viewportSize();
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      await shot('tfa-required-390');
      await expectAccessible('tfa-required-390');
      if (viewport !== null) await page.setViewportSize(viewport);

      // By keyboard: the password, Set up; then the code of the secret shown, Turn on.
      const password = main().getByLabel('Current password', { exact: true });
      await browser().tabTo(password);
      await page.keyboard.type(cleo.password);
      await browser().tabTo(main().getByRole('button', { name: 'Set up' }));
      await page.keyboard.press('Enter');
      const secretField = main().getByLabel('Secret', { exact: true });
      await secretField.waitFor();
      const secret = await secretField.inputValue();
      expect(secret).to.not.equal('');
      await main().locator('img[data-tfa-qr]').waitFor();
      await shot('tfa-required-scan');
      await expectAccessible('tfa-required-scan');
      const code = main().getByLabel('One-time code', { exact: true });
      await browser().tabTo(code);
      await page.keyboard.type(await otpOf(secret));
      await browser().tabTo(main().getByRole('button', { name: 'Turn on' }));
      await page.keyboard.press('Enter');

      // The Studio opens where she was: the collections, with the navigation.
      await page.getByRole('heading', { level: 1, name: 'Collections' }).waitFor();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      await setUp.waitFor({ state: 'detached' });
      expect(new URL(page.url()).pathname).to.equal('/admin/content');
      const row = (await ctx().server.db('svc_users').where({ id: cleo.id }).first('tfa_secret')) as Row;
      expect(row['tfa_secret']).to.be.a('string').and.not.equal('');
      const refused = await login(cleo);
      expect([refused.status, codeOf(refused)]).to.deep.equal([401, 'INVALID_OTP']);
    });
  });
});
