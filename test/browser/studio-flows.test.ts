import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { asAdmin, dataOf } from '../integration/access/permission-helpers.js';
import { createRole, createUser } from '../integration/auth/helpers.js';
import { Receiver } from '../integration/flows/receiver.js';
import { TEST_ADMIN } from '../support/server.js';
import { studioSuite } from '../support/studio-suite.js';

type Row = Record<string, unknown>;

/**
 * The Studio's flows in Chromium: a flow with an event trigger and a log → request chain built
 * through the editor, activated from the list, run by a write (a real receiver gets the request)
 * and read back in its run log; a manual flow run from an item page after its confirmation; a
 * refused save shown at the form; a dead letter replayed; the pages at 390 px; a role that may
 * not read svc_flows neither offered them nor sent to a refusal.
 */
describe('Studio flows in Chromium', function () {
  this.timeout(240_000);
  const receiver = new Receiver();
  const studio = studioSuite('studio-flows', { database: 'postgres', services: [receiver] });
  const { browser, shot, expectAccessible } = studio;
  let page: Page;
  before(() => {
    page = studio.page;
  });

  studio.onDatabase(
    'flows',
    (ctx) => {
      const { url } = studio;
      const flowNamed = async (name: string): Promise<Row | undefined> =>
        dataOf<Row[]>(
          await asAdmin(
            ctx(),
            'GET',
            `/flows?filter[name][_eq]=${encodeURIComponent(name)}&fields=*,operations.id,operations.key,operations.type,operations.resolve,operations.reject,operations.options`,
          ),
        )[0];

      /** A flow with one operation, saved through the API in one request; answers its id. */
      const createFlow = async (flow: Row, operation: Row): Promise<string> => {
        const [id, op] = [randomUUID(), randomUUID()];
        dataOf(
          await asAdmin(ctx(), 'POST', '/flows', {
            id,
            status: 'active',
            accountability: 'all',
            ...flow,
            operation: op,
            operations: [{ id: op, ...operation }],
          }),
        );
        return id;
      };

      before(async () => {
        const key = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };
        dataOf(
          await asAdmin(ctx(), 'POST', '/collections', {
            collection: 'articles',
            schema: {},
            meta: {},
            fields: [key, { field: 'title', type: 'string' }],
          }),
        );
      });
      beforeEach(() => {
        receiver.requests.length = 0;
        receiver.failures = 0;
      });

      it('builds an event flow with a log → request chain, activates it, and shows a triggered run in its log', async () => {
        await browser().signIn(url(''), TEST_ADMIN);
        await browser().nav().getByRole('link', { name: 'Flows' }).click();
        await page.getByRole('link', { name: 'New flow' }).click();
        await page.getByLabel(/^Name/).first().fill('Tell the receiver');
        await browser().pick('Status', 'Inactive');
        await browser().pick('Collections', 'articles');
        await page.keyboard.press('Escape');

        await page.getByRole('button', { name: 'Add operation' }).click();
        const log = page.locator('[data-operation="log_1"]');
        await log.getByLabel('Message').fill('New article {{ $trigger.payload.title }}');
        await browser().pick('Type of the new operation', 'Webhook / request URL');
        await page.getByRole('button', { name: 'Add operation' }).click();
        const request = page.locator('[data-operation="request_1"]');
        await request.getByLabel('URL').fill(`${receiver.url}/created`);
        await request.getByLabel('Body').fill('{{ $trigger.payload }}');
        await browser().pick('On success', 'request_1', log);
        await shot('flow-editor');
        await expectAccessible('flow editor');
        await page.getByRole('button', { name: 'Save' }).click();
        await page.getByText('Flow saved.').waitFor();

        const flow = await flowNamed('Tell the receiver');
        expect(flow).to.deep.include({ status: 'inactive', trigger: 'event', accountability: 'all' });
        expect(flow?.['options']).to.deep.include({
          type: 'action',
          scope: ['items.create'],
          collections: ['articles'],
        });
        const ops = (flow?.['operations'] ?? []) as Row[];
        const [first, second] = ['log_1', 'request_1'].map((k) => ops.find((op) => op['key'] === k));
        expect(flow?.['operation']).to.equal(first?.['id']);
        expect(first).to.deep.include({ type: 'log', resolve: second?.['id'], reject: null });
        expect(second?.['options']).to.deep.include({ method: 'POST', url: `${receiver.url}/created` });

        await page.getByRole('link', { name: 'All flows' }).click();
        // The switch turns once the save is answered: a click, then the flow's status is waited for.
        await page.getByLabel('Active: Tell the receiver').click();
        await browser().until(
          async () => (await flowNamed('Tell the receiver'))?.['status'] === 'active',
          'the flow never became active',
        );
        await shot('flows-list');
        await expectAccessible('flows list');

        dataOf(await asAdmin(ctx(), 'POST', '/items/articles', { title: 'Hello flows' }));
        const [delivery] = await receiver.waitFor(1);
        expect(JSON.parse(delivery?.body ?? '')).to.deep.include({ title: 'Hello flows' });

        await page.getByRole('link', { name: 'Tell the receiver' }).click();
        const runs = page.getByRole('region', { name: 'Run log' });
        for (let waited = 0; !(await runs.getByText(/^Run of /).isVisible()); waited += 500) {
          expect(waited, 'the run never showed').to.be.below(15_000);
          await runs.getByRole('button', { name: 'Refresh' }).click();
          await page.waitForTimeout(500);
        }
        await runs.getByText(/^Run of /).click();
        await runs.locator('[data-step="log_1"]').waitFor();
        await runs.locator('[data-step="request_1"]').getByText('On success').waitFor();
        await expect(await runs.getByLabel('Trigger data').textContent()).to.contain('Hello flows');
        await shot('run-log');
        await expectAccessible('run log');
      });

      it('shows a refused save at the form and keeps the edits', async () => {
        const id = await createFlow(
          { name: 'Refused', trigger: 'webhook', options: { method: 'POST' } },
          { key: 'say', type: 'log', options: { message: 'hi' } },
        );
        await page.goto(url(`/admin/settings/flows/${id}`));
        const name = page.getByLabel(/^Name/).first();
        await browser().valueShown(name, 'Refused');
        await name.fill('Refused twice');
        const flowPath = (u: URL) => /^\/flows\/[^/]+$/.test(u.pathname);
        await page.route(flowPath, (route) =>
          route.request().method() === 'PATCH'
            ? route.fulfill({
                status: 400,
                contentType: 'application/json',
                body: JSON.stringify({
                  errors: [{ message: 'the chain loops back to "log_1"', extensions: { code: 'INVALID_PAYLOAD' } }],
                }),
              })
            : route.fallback(),
        );
        try {
          await browser().withRefusal(400, () => page.getByRole('button', { name: 'Save' }).click());
        } finally {
          await page.unroute(flowPath);
        }
        await page.getByRole('alert').filter({ hasText: 'the chain loops back to "log_1"' }).waitFor();
        expect(await name.inputValue()).to.equal('Refused twice');
        expect(await flowNamed('Refused')).to.deep.include({ id });
      });

      it('runs a manual flow from an item page after its confirmation', async () => {
        const article = dataOf<Row>(await asAdmin(ctx(), 'POST', '/items/articles', { title: 'Run me' }));
        receiver.requests.length = 0;
        await createFlow(
          {
            name: 'Send to review',
            trigger: 'manual',
            options: { collections: ['articles'], requireConfirmation: true, confirmationDescription: 'Send it now?' },
          },
          {
            key: 'send',
            type: 'request',
            options: { method: 'POST', url: `${receiver.url}/review`, body: '{{ $trigger.body }}' },
          },
        );
        await page.goto(url(`/admin/content/articles/${String(article['id'])}`));
        await page.getByRole('button', { name: 'Run "Send to review"' }).click();
        const dialog = page.getByRole('dialog');
        await dialog.getByText('Send it now?').waitFor();
        await shot('manual-confirm');
        await expectAccessible('manual flow confirmation');
        await dialog.getByRole('button', { name: 'Run', exact: true }).click();
        await page.getByText('Flow "Send to review" ran.').waitFor();
        // The first test's event flow, still active, also tells the receiver of the article's creation.
        const review = async () => (await receiver.waitFor(1)).find((r) => r.url === '/review');
        await browser().until(async () => (await review()) !== undefined, 'the manual flow never called the receiver');
        const delivery = await review();
        expect(JSON.parse(delivery?.body ?? '')).to.deep.equal({ collection: 'articles', keys: [article['id']] });
      });

      it('lists a dead letter under its flow and replays it', async () => {
        const id = '7a9b1d0e-1c1a-4d8e-9d6a-2f1f2b0c0a01';
        const op = '7a9b1d0e-1c1a-4d8e-9d6a-2f1f2b0c0a02';
        dataOf(
          await asAdmin(ctx(), 'POST', '/flows', {
            id,
            name: 'Always down',
            status: 'active',
            trigger: 'webhook',
            accountability: 'all',
            options: { method: 'POST', async: true, retry: true },
            operation: op,
            operations: [
              { id: op, key: 'deliver', type: 'request', options: { method: 'POST', url: `${receiver.url}/down` } },
            ],
          }),
        );
        receiver.failures = 1;
        expect((await ctx().api(`/flows/trigger/${id}`, { method: 'POST' })).status).to.equal(204);
        await receiver.waitFor(1);
        await page.goto(url(`/admin/settings/flows/${id}`));
        const runs = page.getByRole('region', { name: 'Run log' });
        const letter = runs.locator('[data-dead-letter]');
        for (let waited = 0; (await letter.count()) === 0; waited += 500) {
          expect(waited, 'the dead letter never showed').to.be.below(15_000);
          await runs.getByRole('button', { name: 'Refresh' }).click();
          await page.waitForTimeout(500);
        }
        await expect(await letter.textContent()).to.match(/500/);
        await letter.getByRole('button', { name: 'Replay' }).click();
        await page.getByText(/^Queued again as /).waitFor();
        await receiver.waitFor(2);
        await letter.waitFor({ state: 'detached' });
      });

      it('fits a 390 px wide screen: the flows, a new flow, and a flow with its run log', async () => {
        const id = String((await flowNamed('Tell the receiver'))?.['id']);
        await page.setViewportSize({ width: 390, height: 800 });
        try {
          const pages = [
            { path: '/admin/settings/flows', shown: page.getByRole('link', { name: 'Tell the receiver' }) },
            { path: '/admin/settings/flows/+', shown: page.getByRole('button', { name: 'Add operation' }) },
            { path: `/admin/settings/flows/${id}`, shown: page.getByRole('region', { name: 'Run log' }) },
          ];
          for (const { path, shown } of pages) {
            await page.goto(url(path));
            await shown.waitFor();
            await page.waitForLoadState('networkidle');
            const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
            expect(overflow, path).to.be.at.most(0);
            await shot(`390${path.replace(/\W+/g, '-')}`);
          }
          await expectAccessible('390 flow editor');
        } finally {
          await page.setViewportSize({ width: 1280, height: 800 });
        }
      });

      it('offers a role that may not read svc_flows no Flows entry; its URLs say the role may not', async () => {
        const id = String((await flowNamed('Tell the receiver'))?.['id']);
        const role = await createRole(ctx().server.db, { app_access: true });
        const user = await createUser(ctx().server.db, { role, password: 'limited-password-1' });
        await browser().signIn(url(''), user);
        await browser().nav().getByRole('link', { name: 'My profile' }).waitFor();
        expect(await browser().nav().getByRole('link', { name: 'Flows' }).count()).to.equal(0);
        // Neither the list nor a flow (nor a new one) is asked of the API: afterEach finds no
        // refused request in the page, only the sentence.
        for (const path of ['/admin/settings/flows', `/admin/settings/flows/${id}`, '/admin/settings/flows/+']) {
          await page.goto(url(path));
          await page.getByText('Your role may not see the flows (svc_flows)').waitFor();
          expect(await page.getByRole('button', { name: 'Save' }).count(), path).to.equal(0);
          expect(await page.getByRole('link', { name: 'New flow' }).count(), path).to.equal(0);
        }
        await shot('flows-not-allowed');
        await expectAccessible('flows not allowed');
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      });
    },
    { extraEnv: () => ({ IMPORT_IP_DENY_LIST: '169.254.0.0/16', JOBS_ATTEMPTS: '1' }) },
  );
});
