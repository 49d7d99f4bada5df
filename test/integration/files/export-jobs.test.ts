import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { adminApi, countRows, createCommandSchema, dataOf, errorsOf } from '../commands/schema.js';
import { latestExport, waitForExport } from './export-status.js';
import { adminGet } from './helpers.js';
import { storageTargets, type StorageTarget } from './storage-targets.js';

type Row = Record<string, unknown>;

const dir = mkdtempSync(join(tmpdir(), 'svc-export-jobs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// No REDIS: exports run in the API process through the same handler a worker runs.
const env = {
  TEMP_PATH: join(dir, 'tmp'),
  EXPORT_BATCH_SIZE: '7',
  JOBS_ATTEMPTS: '2',
};

for (const target of storageTargets()) {
  describe(`export jobs on ${target.label} storage`, () => {
    before(() => target.start());
    after(() => target.stop());
    describeExportJobs(target);
  });
}

function describeExportJobs(target: StorageTarget): void {
  describeEachDatabase(
    `export jobs, in-process without Redis (${target.label})`,
    (ctx) => {
      const db = () => ctx().server.db;
      const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
      const QUERY = {
        fields: ['id', 'title', 'views', 'author.name'],
        filter: { title: { _starts_with: 'Export ' } },
        sort: ['-views'],
      };

      before(async () => {
        await createCommandSchema(ctx());
        const [author] = await db()('authors').insert({ name: 'Ann' }, ['id']);
        const authorId = typeof author === 'object' ? Number((author as Row)['id']) : Number(author);
        for (let i = 1; i <= 30; i += 1) {
          await db()('articles').insert({
            title: `Export ${i}`,
            status: 'published',
            views: i % 3 === 0 ? null : i,
            author: i % 2 === 0 ? authorId : null,
          });
        }
      });

      for (const format of ['csv', 'json', 'xml', 'yaml'] as const) {
        it(`${format}: answers 204 at once; the file appears in the library and downloads with what ?export=${format} gives`, async () => {
          const res = await api('POST', '/utils/export/articles', {
            format,
            query: QUERY,
            file: { description: `the ${format} export` },
          });
          expect([res.status, res.body]).to.deep.equal([204, undefined]);
          const done = await waitForExport(ctx(), (r) => r.status.format === format && r.status.status === 'done');
          expect(done.status).to.include({ rows_done: 30, rows_total: 30, attempt: 1, error: null });
          const file = dataOf<Row>(await api('GET', `/files/${String(done.status.file)}`));
          const type = { csv: 'text/csv', json: 'application/json', xml: 'text/xml', yaml: 'text/yaml' }[format];
          expect(file).to.include({
            type,
            description: `the ${format} export`,
            storage: target.location,
            folder: null,
          });
          expect(file['title']).to.match(/^export-articles-\d{8}-\d{3,6}$/);
          expect(file['filename_download']).to.equal(`${String(file['title'])}.${format}`);
          const content = await (await adminGet(ctx(), `/assets/${String(file['id'])}`)).text();
          const direct = await adminGet(
            ctx(),
            `/items/articles?${new URLSearchParams({ fields: QUERY.fields.join(','), filter: JSON.stringify(QUERY.filter), sort: '-views,id', limit: '-1', export: format })}`,
          );
          expect(content).to.equal(await direct.text());
          expect(Number(file['filesize'])).to.equal(Buffer.byteLength(content));
        });
      }

      it('csv whose column first appears after the first 1000 rows: made again through the first pass, the same file as ?export=csv', async () => {
        const [author] = await db()('authors').insert({ name: 'Late author' }, ['id']);
        const authorId = typeof author === 'object' ? Number((author as Row)['id']) : Number(author);
        // author.name is only a column once an author is there: flatten gives `author` for a null one.
        const rows = Array.from({ length: 1003 }, (_, i) => ({
          title: `Late ${String(i).padStart(4, '0')}`,
          status: 'draft',
          author: i < 1000 ? null : authorId,
        }));
        await db().batchInsert('articles', rows, 200);
        const query = {
          fields: ['id', 'title', 'author.name'],
          filter: { title: { _starts_with: 'Late ' } },
          sort: ['id'],
        };
        expect((await api('POST', '/utils/export/articles', { format: 'csv', query })).status).to.equal(204);
        const done = await waitForExport(ctx(), (r) => r.status.status === 'done' && r.status.rows_total === 1003);
        expect(done.status).to.include({ rows_done: 1003, attempt: 1, error: null });
        const content = await (await adminGet(ctx(), `/assets/${String(done.status.file)}`)).text();
        const direct = await adminGet(
          ctx(),
          `/items/articles?${new URLSearchParams({ fields: query.fields.join(','), filter: JSON.stringify(query.filter), sort: 'id', limit: '-1', export: 'csv' })}`,
        );
        expect(content).to.equal(await direct.text());
        expect(content.split('\n')[0]).to.equal('"id","title","author","author.name"');
        expect(await readdir(join(dir, 'tmp')).catch(() => [])).to.deep.equal([]);
      });

      it('records the export for the user who asked: the status row, and the file created in their name', async () => {
        const status = await latestExport(ctx());
        const admin = await db()('svc_users').where('email', TEST_ADMIN.email).first<Row>('id');
        expect(status).to.include({ user: admin?.['id'], collection: 'articles' });
        const file = dataOf<Row>(await api('GET', `/files/${String(status?.status.file)}`));
        expect(file['uploaded_by']).to.equal(admin?.['id']);
        const created = await db()('svc_activity')
          .where({ collection: 'svc_files', item: status?.status.file, action: 'create' })
          .first<Row>('user');
        expect(created?.['user']).to.equal(admin?.['id']);
        expect(await readdir(join(dir, 'tmp')).catch(() => [])).to.deep.equal([]);
      });

      it("takes the file object's keys over the defaults, and the query's limit when given", async () => {
        const folder = dataOf<Row>(await api('POST', '/folders', { name: 'Exports' }));
        const res = await api('POST', '/utils/export/articles', {
          format: 'json',
          // PostgreSQL sorts nulls first when descending, the others last: leave them out.
          query: { ...QUERY, filter: { _and: [QUERY.filter, { views: { _nnull: true } }] }, limit: 4 },
          file: { title: 'Top four', filename_download: 'top.json', folder: folder['id'], type: 'text/plain' },
        });
        expect(res.status).to.equal(204);
        const done = await waitForExport(ctx(), (r) => r.status.status === 'done' && r.status.rows_total === 4);
        const file = dataOf<Row>(await api('GET', `/files/${String(done.status.file)}`));
        expect(file).to.include({
          title: 'Top four',
          filename_download: 'top.json',
          folder: folder['id'],
          type: 'application/json',
        });
        const items = (await (await adminGet(ctx(), `/assets/${String(file['id'])}`)).json()) as Row[];
        expect(items.map((i) => i['views'])).to.deep.equal([29, 28, 26, 25]);
      });

      it('validates before queuing: nothing is recorded for a bad body, query or collection', async () => {
        const before = await countRows(db(), ['svc_activity']);
        const cases: [unknown, number, string][] = [
          [{ query: {} }, 400, '"format" is required'],
          [{ format: 'pdf', query: {} }, 400, '"format" must be one of [csv, json, xml, yaml]'],
          [{ format: 'csv' }, 400, '"query" is required'],
          [{ format: 'csv', query: [] }, 400, '"query" must be of type object'],
          [{ format: 'csv', query: {}, file: { nope: 1 } }, 400, '"file.nope" is not allowed'],
        ];
        for (const [body, status, reason] of cases) {
          expect(
            errorsOf(await api('POST', '/utils/export/articles', body), status),
            JSON.stringify(body),
          ).to.deep.equal([['INVALID_PAYLOAD', { reason }]]);
        }
        expect(
          errorsOf(
            await api('POST', '/utils/export/articles', { format: 'csv', query: { filter: { nope: { _eq: 1 } } } }),
            400,
          )[0]?.[0],
        ).to.equal('INVALID_QUERY');
        // The file's values are checked now, not when the job writes its row after the retries.
        expect(
          errorsOf(
            await api('POST', '/utils/export/articles', { format: 'csv', query: {}, file: { folder: 'not-a-uuid' } }),
            400,
          ),
        ).to.deep.equal([['FAILED_VALIDATION', { field: 'folder', type: 'type' }]]);
        expect(
          errorsOf(await api('POST', '/utils/export/nothing_here', { format: 'csv', query: {} }), 403)[0]?.[0],
        ).to.equal('FORBIDDEN');
        const anonymous = await ctx().api('/utils/export/articles', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ format: 'csv', query: {} }),
        });
        expect(anonymous.status).to.equal(403);
        expect(await countRows(db(), ['svc_activity'])).to.deep.equal(before);
      });

      it('an export that keeps failing is retried, then marked failed, with nothing left in the library', async () => {
        const files = await countRows(db(), ['svc_files']);
        const stored = await target.names();
        // Passes the checks, fails when the file row is written: the folder does not exist.
        expect(
          (
            await api('POST', '/utils/export/articles', {
              format: 'csv',
              query: QUERY,
              file: { folder: '00000000-0000-4000-8000-000000000000' },
            })
          ).status,
        ).to.equal(204);
        const failed = await waitForExport(ctx(), (r) => r.status.status === 'failed', 20_000);
        expect(failed.status).to.include({ attempt: 2, file: null });
        expect(failed.status.error).to.match(/foreign key.*"folder"/i);
        expect(await countRows(db(), ['svc_files'])).to.deep.equal(files);
        expect(await readdir(join(dir, 'tmp')).catch(() => [])).to.deep.equal([]);
        expect(await target.names()).to.deep.equal(stored);
      });
    },
    { env: () => ({ ...env, ...target.env() }) },
  );
}
