import { expect } from 'chai';
import { ContentClient, ExportFailedError, ExportHandle, type ExportJobStatus } from '../../src/client/index.js';
import { describeEachDatabase } from '../support/server.js';
import { createCaller, grant } from '../integration/access/permission-helpers.js';
import { adminClient, expectServerError, rejection, SQLITE_ONLY } from './support.js';

async function readAll(stream: ReadableStream<Uint8Array> | null): Promise<string> {
  expect(stream).to.not.equal(null);
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as ReadableStream<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const CSV = ['id,body', ...Array.from({ length: 20 }, (_, i) => `${String(i + 1)},note ${String(i + 1)}`)].join('\n');

describeEachDatabase(
  'client exports and imports in one call',
  (ctx) => {
    let client: ContentClient;

    before(async () => {
      client = await adminClient(ctx());
      await client.collections.createOne({
        collection: 'notes',
        schema: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'body', type: 'text' },
        ],
      });
    });

    it('utils.import loads a CSV (text with its type, or a Blob) and reports upload progress', async () => {
      const progress: number[] = [];
      await client.utils.import('notes', CSV, { type: 'text/csv', onUploadProgress: (p) => progress.push(p.progress) });
      expect(progress.at(-1)).to.equal(1);
      const read = await client.items('notes').readByQuery({ limit: -1, sort: ['id'] });
      expect(read.data).to.have.length(20);
      expect(read.data?.[19]).to.deep.equal({ id: 20, body: 'note 20' });
      // A Blob brings its own type; the update of an existing key goes through.
      await client.utils.import('notes', new Blob(['[{"id":1,"body":"first"}]'], { type: 'application/json' }));
      expect(await client.items('notes').readOne(1)).to.deep.equal({ id: 1, body: 'first' });
      // A file the server refuses rejects with its error, nothing written.
      expectServerError(
        await rejection(client.utils.import('notes', 'id,nope\n99,x', { type: 'text/csv' })),
        400,
        'INVALID_PAYLOAD',
      );
      expect(await client.items('notes').readOne(1)).to.deep.equal({ id: 1, body: 'first' });
      try {
        await client.utils.import('notes', 'id\n1');
        expect.fail('a string without a type must be refused');
      } catch (error) {
        expect(String(error)).to.match(/needs the file type/);
      }
    });

    it('utils.export: progress events, done resolves to the file record, download() and text() give its content', async () => {
      const job = await client.utils.export(
        'notes',
        { fields: ['id', 'body'], sort: ['id'], filter: { id: { _lte: 5 } } },
        { format: 'json', file: { title: 'Five notes' }, pollInterval: 20 },
      );
      expect(job.id).to.match(/^[0-9a-f-]{36}$/);
      const seen: ExportJobStatus[] = [];
      job.on('progress', (status) => seen.push(status));
      const file = await job.done;
      expect(file).to.include({ title: 'Five notes', type: 'application/json' });
      expect(seen.at(-1)).to.include({ id: job.id, status: 'done', rows_done: 5, rows_total: 5, file: file.id });
      expect(job.status?.status).to.equal('done');
      const content = JSON.parse(await readAll(await job.download())) as unknown;
      expect(content).to.deep.equal([
        { id: 1, body: 'first' },
        { id: 2, body: 'note 2' },
        { id: 3, body: 'note 3' },
        { id: 4, body: 'note 4' },
        { id: 5, body: 'note 5' },
      ]);
      expect(JSON.parse(await job.text())).to.deep.equal(content);
    });

    it('utils.export refusals reject at once; a job its caller may not follow rejects done with FORBIDDEN', async () => {
      expectServerError(await rejection(client.utils.export('nowhere', {}, { format: 'csv' })), 403, 'FORBIDDEN');
      expectServerError(
        await rejection(client.utils.export('notes', {}, { format: 'pdf' as 'csv' })),
        400,
        'INVALID_PAYLOAD',
      );
      // A user may export, but the job resource of another user's export is not theirs.
      const other = await createCaller(ctx().server.db);
      await grant(ctx(), other.role, [{ collection: 'notes', action: 'read' }]);
      const job = await client.utils.export('notes', {}, { format: 'csv', pollInterval: 20 });
      const stranger = new ContentClient(ctx().server.url);
      await stranger.auth.static(other.token);
      const followed = new ExportHandle(stranger.transport, job.id, { pollInterval: 20 });
      expectServerError(await rejection(followed.done), 403, 'FORBIDDEN');
      await job.done;
    });

    it('an aborted follow rejects done with the reason; ExportFailedError carries the failed job', async () => {
      const controller = new AbortController();
      const job = await client.utils.export(
        'notes',
        {},
        { format: 'csv', pollInterval: 10_000, signal: controller.signal },
      );
      controller.abort(new Error('stop following'));
      try {
        await job.done;
        expect.fail('done must reject');
      } catch (error) {
        expect(String(error)).to.match(/stop following|abort/i);
      }
      const failed = new ExportFailedError({
        id: 'x',
        collection: 'notes',
        format: 'csv',
        status: 'failed',
        rows_done: 0,
        rows_total: null,
        attempt: 1,
        file: null,
        error: 'disk full',
      });
      expect([failed.name, failed.message, failed.job.status]).to.deep.equal([
        'ExportFailedError',
        'disk full',
        'failed',
      ]);
    });

    it('readByQuery with export answers the file text instead of { data: null }', async () => {
      const csv = await client
        .items('notes')
        .readByQuery({ export: 'csv', fields: ['id', 'body'], sort: ['id'], limit: 2 });
      expect(csv.trim().split(/\r?\n/)).to.deep.equal(['"id","body"', '1,"first"', '2,"note 2"']);
      const json = await client.items('notes').readByQuery({ export: 'json', fields: ['id'], sort: ['id'], limit: 2 });
      expect(JSON.parse(json)).to.deep.equal([{ id: 1 }, { id: 2 }]);
      // Without export: items as before.
      expect((await client.items('notes').readByQuery({ fields: ['id'], limit: 1, sort: ['id'] })).data).to.deep.equal([
        { id: 1 },
      ]);
    });
  },
  SQLITE_ONLY,
);
