import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachDatabase } from '../../support/server.js';
import { sqliteTarget } from '../../support/services.js';
import { dataOf } from '../commands/schema.js';
import { adminGet, sendForm, startHttpServer, storedNames, type TestHttpServer } from '../files/helpers.js';
import { graphql, graphqlData } from './graphql-client.js';

const root = mkdtempSync(join(tmpdir(), 'svc-graphql-files-'));
after(() => rmSync(root, { recursive: true, force: true }));

describeEachDatabase(
  'graphql: files',
  (ctx) => {
    const system = { scope: 'system' } as const;
    let source: TestHttpServer;

    before(async () => {
      // 127.0.0.2 is loopback but not on this suite's deny list.
      source = await startHttpServer('127.0.0.2', (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('fetched content');
      });
    });
    after(async () => {
      await source.close();
    });

    it('import_file fetches a URL into the library and reads the file back', async () => {
      const data = await graphqlData(
        ctx(),
        `mutation { import_file(url: "${source.url}/notes.txt", data: { title: "Imported" }) { id title type filename_download } }`,
        system,
      );
      const file = data['import_file'] as Record<string, unknown>;
      expect(file).to.include({ title: 'Imported', type: 'text/plain', filename_download: 'notes.txt' });
      expect(await (await adminGet(ctx(), `/assets/${String(file['id'])}`)).text()).to.equal('fetched content');
    });

    it('delete_files_item removes the content with the row', async () => {
      const uploaded = dataOf<Record<string, unknown>>(
        await sendForm(ctx(), 'POST', '/files', [['file', 'to delete', 'gone.txt', 'text/plain']]),
      );
      const id = String(uploaded['id']);
      expect(await storedNames(root)).to.include(`${id}.txt`);
      expect(await graphqlData(ctx(), `mutation { delete_files_item(id: "${id}") { id } }`, system)).to.deep.equal({
        delete_files_item: { id },
      });
      expect(await storedNames(root)).not.to.include(`${id}.txt`);
      const read = await graphql(ctx(), `{ files_by_id(id: "${id}") { id } }`, system);
      expect(read.body.data).to.deep.equal({ files_by_id: null });
    });
  },
  { targets: [sqliteTarget], env: { STORAGE_LOCAL_ROOT: root, IMPORT_IP_DENY_LIST: '127.0.0.1,169.254.169.254' } },
);
