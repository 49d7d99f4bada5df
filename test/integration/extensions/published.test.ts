import { expect } from 'chai';
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
