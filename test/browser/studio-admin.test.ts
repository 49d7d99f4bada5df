import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { asAdmin, call, dataOf } from '../integration/access/permission-helpers.js';
import { TEST_ADMIN } from '../support/server.js';
import { SmtpInbox } from '../support/smtp-inbox.js';
import { studioSuite } from '../support/studio-suite.js';

/**
 * The Studio's administration in Chromium: project settings (name and colour in the app bar, a
 * test mail caught by a real SMTP receiver), the activity log (filtered, a row opened) and the
 * operations page (health, metrics, a failed export job and its retry, caches).
 */
describe('Studio administration in Chromium', function () {
  this.timeout(180_000);
  const inbox = new SmtpInbox();
  const studio = studioSuite('studio-admin', { database: 'postgres', services: [inbox] });
  const { browser, shot, expectAccessible, main } = studio;
  let page: Page;
  before(() => {
    page = studio.page;
  });

  studio.onDatabase(
    'admin',
    (ctx) => {
      const { url } = studio;

      before(async () => {
        const key = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };
        dataOf(
          await asAdmin(ctx(), 'POST', '/collections', {
            collection: 'notes',
            schema: {},
            meta: {},
            fields: [key, { field: 'title', type: 'string' }],
          }),
        );
        dataOf(await asAdmin(ctx(), 'POST', '/items/notes', { title: 'First note' }));
        dataOf(
          await asAdmin(ctx(), 'POST', '/collections', { collection: 'other', schema: {}, meta: {}, fields: [key] }),
        );
        dataOf(await asAdmin(ctx(), 'POST', '/items/other', {}));
      });

      it('changes the project name, colour and export retention; the name and colour shown in the app bar', async () => {
        await browser().signIn(studio.url(''), TEST_ADMIN);
        await browser().nav().getByRole('link', { name: 'Settings' }).click();
        const name = page.getByLabel('Project name');
        await name.waitFor();
        await name.fill('Harbour Museum');
        await page.getByLabel('Project colour').fill('#0b6e4f');
        // Empty: the server's EXPORT_RETENTION, which the field's help names.
        const retention = page.getByLabel('Keep exports for');
        await page.getByText(/Empty: the server default, 7d \(EXPORT_RETENTION\)/).waitFor();
        await retention.fill('30d');
        await page.getByRole('button', { name: 'Save' }).click();
        await page.getByText('Settings saved.').waitFor();
        const settings = dataOf<Record<string, unknown>>(await asAdmin(ctx(), 'GET', '/settings'));
        expect(settings['project_name']).to.equal('Harbour Museum');
        expect(settings['project_color']).to.equal('#0b6e4f');
        expect(settings['export_retention']).to.equal('30d');
        // The app bar hides while the page is scrolled down (to the retention field): back to the top.
        await page.evaluate('window.scrollTo(0, 0)');
        const banner = page.getByRole('banner');
        await banner.getByText('Harbour Museum').waitFor();
        await banner.locator('[data-project-color="#0b6e4f"]').waitFor();
        await shot('settings');
        await expectAccessible('settings');

        // A retention that is none: the API's FAILED_VALIDATION under the field, and nothing saved.
        await retention.fill('a week');
        await name.fill('Harbour Museum of Nothing');
        await browser().withRefusal(400, async () => {
          await page.getByRole('button', { name: 'Save' }).click();
          await retention.and(page.locator('[aria-invalid="true"]')).waitFor();
        });
        const help = page.locator(`[id="${(await retention.getAttribute('aria-describedby')) ?? ''}"]`);
        expect(await help.innerText()).to.match(
          /^Validation failed for field "export_retention"\. Value has to be a duration/,
        );
        // Said once, under the field: the notification points there.
        await page.getByText('Not saved: a field above says why.').waitFor();
        expect(await page.getByText(/Validation failed for field/).count()).to.equal(1);
        const kept = dataOf<Record<string, unknown>>(await asAdmin(ctx(), 'GET', '/settings'));
        expect([kept['project_name'], kept['export_retention']]).to.deep.equal(['Harbour Museum', '30d']);
        await shot('settings refused');
        await expectAccessible('settings refused');
        dataOf(await asAdmin(ctx(), 'PATCH', '/settings', { export_retention: null }));
      });

      it('sends a test mail through the configured mailer (admins only)', async () => {
        await page.goto(url('/admin/settings/project'));
        await page.getByLabel('Send a test mail to').fill('check@example.com');
        await page.getByRole('button', { name: 'Send test mail' }).click();
        await page.getByText('A test mail went to check@example.com.').waitFor();
        const mail = await inbox.next('check@example.com');
        expect(mail.raw).to.match(/Subject: Test mail from Harbour Museum/);
        // The API: a bad address is INVALID_PAYLOAD, anyone but an administrator FORBIDDEN.
        expect((await asAdmin(ctx(), 'POST', '/utils/mail/test', { to: 'nobody' })).status).to.equal(400);
        expect((await call(ctx(), undefined, 'POST', '/utils/mail/test', { to: 'a@example.com' })).status).to.equal(
          403,
        );
      });

      it('filters the activity log by collection and opens a row’s item', async () => {
        await browser().nav().getByRole('link', { name: 'Activity' }).click();
        await page.getByRole('heading', { name: 'Activity' }).waitFor();
        await page.getByRole('combobox', { name: 'Collection' }).click();
        await page.getByRole('option', { name: 'notes' }).click();
        const link = page.getByRole('link', { name: 'notes 1' });
        await link.first().waitFor();
        await page.getByRole('link', { name: /^other / }).waitFor({ state: 'detached' });
        await shot('activity');
        await expectAccessible('activity');
        await link.first().click();
        await page.waitForURL(/\/admin\/content\/notes\/1$/);
        await page.getByLabel('title').first().waitFor();
      });

      it('shows health, metrics and a failed export job, and clears the caches', async () => {
        const db = ctx().server.db;
        await db('svc_activity').insert({
          action: 'export',
          user: null,
          timestamp: new Date(),
          collection: 'notes',
          item: 'job-that-failed',
          comment: JSON.stringify({
            status: 'failed',
            format: 'csv',
            rows_done: 0,
            rows_total: null,
            attempt: 3,
            file: null,
            error: 'The disk is full',
          }),
        });
        await browser().nav().getByRole('link', { name: 'Operations' }).click();
        // ok, or warn when the busy test machine answers slowly (a response time over its threshold).
        const health = page.locator('[data-health]');
        await health.waitFor();
        expect(['ok', 'warn']).to.include(await health.getAttribute('data-health'));
        const requests = page.locator('[data-metric="requests"]');
        await requests.waitFor();
        expect(Number((await requests.locator('p').last().innerText()).trim())).to.be.above(0);
        await page.locator('[data-metric="latency"]').getByText(/ms$/).waitFor();
        const job = page.locator('[data-job="job-that-failed"]');
        await job.getByText('The disk is full').waitFor();
        expect(await job.getAttribute('data-status')).to.equal('failed');
        await page.getByRole('button', { name: 'Clear caches' }).click();
        await page.getByText(/^Caches cleared at/).waitFor();
        await shot('operations');
        await expectAccessible('operations');
      });

      it('retries a failed export job: one whose cause is gone runs again and is done; one without its request says so', async () => {
        // Checked and queued, then failed when its file row is written: the folder does not exist.
        const folder = '00000000-0000-4000-8000-0000000000f1';
        const started = await call(ctx(), TEST_ADMIN.token, 'POST', '/utils/export/notes', {
          format: 'csv',
          query: { fields: ['id', 'title'] },
          file: { folder },
        });
        expect(started.status).to.equal(204);
        const db = ctx().server.db;
        const { item: id } = (await db('svc_activity')
          .where({ action: 'export', collection: 'notes' })
          .orderBy('id', 'desc')
          .first('item')) as { item: string };
        const job = async () =>
          dataOf<Record<string, unknown>>(await asAdmin(ctx(), 'GET', `/utils/export/jobs/${id}`));
        const deadline = Date.now() + 30_000;
        while ((await job())['status'] !== 'failed') {
          expect(Date.now(), 'the export did not fail').to.be.below(deadline);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await db('svc_folders').insert({ id: folder, name: 'Exports' });

        await page.goto(url('/admin/operations'));
        const row = page.locator(`[data-job="${id}"]`);
        await row.getByText(/foreign key/i).waitFor();
        await row.getByRole('button', { name: 'Retry the export of notes' }).click();
        await page.getByText('The export of notes is queued again.').waitFor();
        while ((await job())['status'] !== 'done') {
          expect(Date.now(), 'the retried export did not end').to.be.below(deadline + 30_000);
          expect((await job())['status']).to.not.equal('failed');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        // Done: it leaves the list (its file is in the library).
        await page.reload();
        await page.locator('[data-job="job-that-failed"]').waitFor();
        expect(await row.count()).to.equal(0);

        // A job recorded without its request (as before retries) cannot be queued again.
        await browser().withRefusal(400, async () => {
          await page
            .locator('[data-job="job-that-failed"]')
            .getByRole('button', { name: 'Retry the export of notes' })
            .click();
          await page.getByText(/kept no request/).waitFor();
        });
        await expectAccessible('operations retry');
        // The library's exports say how long they are kept (EXPORT_RETENTION: the setting is
        // empty again), with the way to the setting.
        await page.goto(url('/admin/files'));
        await page.getByRole('navigation', { name: 'Folders' }).getByRole('button', { name: 'Exports' }).last().click();
        await main().getByText('Files made by exports. They are kept for 7d, then deleted with their file.').waitFor();
        await main().getByRole('link', { name: 'Change it in Settings' }).click();
        await page.waitForURL(/\/admin\/settings\/project$/);
      });

      it('fits a 390 px screen', async () => {
        await page.setViewportSize({ width: 390, height: 800 });
        try {
          for (const path of ['/admin/settings/project', '/admin/activity', '/admin/operations']) {
            await page.goto(url(path));
            await page.getByRole('heading', { level: 1 }).waitFor();
            await page.waitForLoadState('networkidle');
            const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
            expect(overflow, path).to.be.at.most(0);
            await shot(`390${path.replace(/\//g, '-')}`);
            await expectAccessible(`390 ${path}`);
          }
        } finally {
          await page.setViewportSize({ width: 1280, height: 900 });
        }
      });
    },
    {
      extraEnv: () => ({
        ...inbox.env(),
        METRICS_ENABLED: 'true',
        // A failing export is failed at once, for the retry.
        JOBS_ATTEMPTS: '1',
      }),
    },
  );
});
