import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../support/service-process.js';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';

// Published Directus API extensions, installed from npm as devDependencies and run unchanged:
// EXTENSIONS_PATH/node_modules holds them as `npm install --prefix <EXTENSIONS_PATH>` would.
const INSTALLED = fileURLToPath(new URL('../../../node_modules/', import.meta.url));
const PUBLISHED = ['directus-extension-sync'];

const extensionsPath = mkdtempSync(join(tmpdir(), 'svc-published-extensions-'));
mkdirSync(join(extensionsPath, 'node_modules'));
for (const name of PUBLISHED) symlinkSync(join(INSTALLED, name), join(extensionsPath, 'node_modules', name), 'dir');
process.once('exit', () => rmSync(extensionsPath, { recursive: true, force: true }));

const admin = { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' };

describeEachDatabase(
  'published extensions run unchanged: directus-extension-sync (endpoint)',
  (ctx) => {
    it('is refused to the public and answers the admin from the table it created itself', async () => {
      const base = '/directus-extension-sync/table/articles';
      // The extension creates directus_sync_id_map, then adds its routes, without being waited for.
      let listed: Response | undefined;
      for (let i = 0; i < 100 && listed?.status !== 200; i += 1) {
        listed = await ctx().api(base, { headers: admin });
        if (listed.status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(listed?.status).to.equal(200);
      expect(await listed?.json()).to.deep.equal([]);
      const anonymous = await ctx().api(base);
      expect(anonymous.status).to.equal(401);
    });

    it('maps ids: add, read by sync id and by local id, refuse a repeat, remove', async () => {
      const base = '/directus-extension-sync/table/articles';
      const added = await ctx().api(base, { method: 'POST', headers: admin, body: JSON.stringify({ local_id: '7' }) });
      expect(added.status).to.equal(200);
      const { sync_id: syncId } = (await added.json()) as { sync_id: string };
      expect(syncId).to.match(/^[0-9a-f-]{36}$/);
      const bySync = (await (await ctx().api(`${base}/sync_id/${syncId}`, { headers: admin })).json()) as Record<
        string,
        unknown
      >;
      expect([bySync['table'], bySync['sync_id'], bySync['local_id']]).to.deep.equal(['articles', syncId, '7']);
      const byLocal = await ctx().api(`${base}/local_id/7`, { headers: admin });
      expect(((await byLocal.json()) as Record<string, unknown>)['sync_id']).to.equal(syncId);
      const again = await ctx().api(base, { method: 'POST', headers: admin, body: JSON.stringify({ local_id: '7' }) });
      expect(again.status).to.equal(409);
      const removed = await ctx().api(`${base}/sync_id/${syncId}`, { method: 'DELETE', headers: admin });
      expect(removed.status).to.equal(204);
      expect((await ctx().api(`${base}/local_id/7`, { headers: admin })).status).to.equal(404);
    });
  },
  { extensionsPath },
);

const modelsPath = mkdtempSync(join(tmpdir(), 'svc-published-models-'));
mkdirSync(join(modelsPath, 'node_modules'));
symlinkSync(
  join(INSTALLED, 'directus-extension-models'),
  join(modelsPath, 'node_modules', 'directus-extension-models'),
);
process.once('exit', () => rmSync(modelsPath, { recursive: true, force: true }));

describeEachDatabase('published extensions run unchanged: directus-extension-models (hook, cli.after)', (ctx) => {
  it('adds `models snapshot` to the command line, which writes TypeScript types of the schema', async () => {
    const created = await ctx().api('/collections', {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        collection: 'articles',
        schema: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'title', type: 'string', schema: { is_nullable: false } },
          {
            field: 'status',
            type: 'string',
            meta: {
              interface: 'select-dropdown',
              options: {
                choices: [
                  { text: 'Draft', value: 'draft' },
                  { text: 'Published', value: 'published' },
                ],
              },
            },
          },
        ],
      }),
    });
    expect(created.status).to.equal(200);
    const target = join(modelsPath, 'out', 'models.d.ts');
    const run = await runCli(['models', 'snapshot', target], {
      ...ctx().database.env,
      EXTENSIONS_PATH: modelsPath,
    });
    expect(run.code, run.stderr).to.equal(0);
    const types = readFileSync(target, 'utf8');
    const article = /export interface Article \{[\s\S]*?\n\}/.exec(types)?.[0] ?? '';
    const declared = article.split('\n').filter((line) => /^ {3}\w+: /.test(line));
    expect(declared, article).to.deep.equal([
      '   id: number;',
      // The choices come from svc_fields, read through services.ItemsService('directus_fields').
      "   status: 'draft' | 'published' | null;",
      '   title: string;',
    ]);
    expect(types).to.include('  articles: Article[];');
  });
});

// An operation extension published for Directus's sandbox (`"sandbox": { "enabled": true }`): a
// package folder of EXTENSIONS_PATH, as Directus installs one from its marketplace.
const liquidPath = mkdtempSync(join(tmpdir(), 'svc-published-operations-'));
symlinkSync(join(INSTALLED, '@directus-labs', 'liquidjs-operation'), join(liquidPath, 'liquidjs-operation'), 'dir');
process.once('exit', () => rmSync(liquidPath, { recursive: true, force: true }));

describeEachDatabase(
  'published extensions run unchanged: @directus-labs/liquidjs-operation (sandboxed operation)',
  (ctx) => {
    it('a flow whose operation is the liquid one renders a template with the trigger data, in its isolate', async () => {
      const [flow, render, check] = [randomUUID(), randomUUID(), randomUUID()];
      const created = await ctx().api('/flows', {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({
          id: flow,
          name: 'liquid',
          status: 'active',
          trigger: 'webhook',
          operation: render,
          options: { method: 'POST', return: '$all' },
          operations: [
            {
              id: render,
              key: 'render',
              // The package's operation id, beside the built-in operations.
              type: 'liquidjs-operation',
              resolve: check,
              options: {
                mode: 'custom',
                operationMode: 'single',
                publicUrl: 'http://127.0.0.1/',
                // Liquid's own delimiters are `{# #}`: `{{ }}` is the flow's template, rendered first.
                template:
                  'Hello {# name | capitalize #}: {% for item in items %}{# item.qty #}×{# item.sku #}{% unless forloop.last %}, {% endunless %}{% endfor %} via {{ $trigger.method }}',
                data: '{{ $trigger.body }}',
                dataReturnFields: ['name'],
              },
            },
            {
              id: check,
              key: 'check',
              type: 'condition',
              options: { filter: { render: { template: { _starts_with: 'Hello Ada' } } } },
            },
          ],
        }),
      });
      expect(created.status, await created.clone().text()).to.equal(200);
      const run = await ctx().api(`/flows/trigger/${flow}`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({
          name: 'ada',
          items: [
            { sku: 'tea', qty: 2 },
            { sku: 'cake', qty: 1 },
          ],
        }),
      });
      expect(run.status).to.equal(200);
      const answer = (await run.json()) as Record<string, unknown>;
      expect(answer['render']).to.deep.equal({ name: 'ada', template: 'Hello Ada: 2×tea, 1×cake via POST' });
      expect(answer['check']).to.equal(null);
    });

    it('its request (the `request` scope) meets IMPORT_IP_DENY_LIST, and the refusal rejects its step', async () => {
      const [flow, render] = [randomUUID(), randomUUID()];
      const created = await ctx().api('/flows', {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({
          id: flow,
          name: 'liquid saved',
          status: 'active',
          trigger: 'webhook',
          operation: render,
          options: { method: 'POST' },
          operations: [
            {
              id: render,
              key: 'render',
              type: 'liquidjs-operation',
              // `saved` mode reads the template through `request` (GET http(s)://*, its scope):
              // an address of IMPORT_IP_DENY_LIST is refused as the `request` operation refuses it.
              options: {
                mode: 'saved',
                operationMode: 'single',
                publicUrl: 'http://169.254.169.254/',
                collection: 'templates',
                item: { key: 1 },
                fields: ['body'],
                data: {},
              },
            },
          ],
        }),
      });
      expect(created.status).to.equal(200);
      const run = await ctx().api(`/flows/trigger/${flow}`, { method: 'POST', headers: admin, body: '{}' });
      const { message } = (await run.json()) as { message: string };
      expect(message).to.match(/^request to http:\/\/169\.254\.169\.254\/items\/templates\/1 failed: /);
    });
  },
  // The sandbox's 1 s per call, generous on a busy machine: each call compiles the package anew.
  { extensionsPath: liquidPath, env: { EXTENSIONS_SANDBOX_TIMEOUT: '20000' } },
);
