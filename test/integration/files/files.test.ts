import { expect } from 'chai';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { adminApi, dataOf, errorsOf } from '../commands/schema.js';
import { pngHeader } from '../../support/png-header.js';
import { createCaller, grant } from '../access/permission-helpers.js';
import { adminGet, sendForm, startHttpServer, type TestHttpServer } from './helpers.js';
import { storageTargets } from './storage-targets.js';

type Row = Record<string, unknown>;

const env = {
  FILES_MAX_UPLOAD_SIZE: '64kb',
  MAX_PAYLOAD_SIZE: '100kb',
  FILES_MIME_TYPE_ALLOW_LIST: 'text/*,image/*,application/json,application/octet-stream',
  // Loopback is allowed for the test servers on 127.0.0.2; the service's own 127.0.0.1 is not.
  IMPORT_IP_DENY_LIST: '127.0.0.1,169.254.169.254',
};

for (const target of storageTargets()) {
  describe(`file library on ${target.label} storage`, () => {
    before(() => target.start());
    after(() => target.stop());
    describeFileLibrary(target);
  });
}

function describeFileLibrary(target: ReturnType<typeof storageTargets>[number]): void {
  describeEachDatabase(
    `file library (${target.label})`,
    (ctx) => {
      const db = () => ctx().server.db;
      const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
      const upload = (parts: Parameters<typeof sendForm>[3], path = '/files') => sendForm(ctx(), 'POST', path, parts);
      const stored = (row: Row) => target.content(String(row['filename_disk']));
      const storedNames = () => target.names();

      it('uploads a file with the fields before it, streamed to storage under <id>.<ext>', async () => {
        const file = dataOf<Row>(
          await upload([
            ['title', 'Quarterly report'],
            ['description', 'Q3'],
            ['file', 'hello, world', 'report-q3.txt', 'text/plain'],
          ]),
        );
        expect(file).to.include({
          title: 'Quarterly report',
          description: 'Q3',
          filename_download: 'report-q3.txt',
          type: 'text/plain',
          storage: target.location,
        });
        expect(file['filename_disk']).to.equal(`${String(file['id'])}.txt`);
        expect(Number(file['filesize'])).to.equal(12);
        expect(file['uploaded_on']).to.be.a('string');
        expect(await stored(file)).to.equal('hello, world');
        const admin = await db()('svc_users').where('email', TEST_ADMIN.email).first<Row>('id');
        expect(file['uploaded_by']).to.equal(admin?.['id']);
        const activity = await db()('svc_activity')
          .where({ collection: 'svc_files', item: file['id'] })
          .select<Row[]>('action');
        expect(activity.map((a) => a['action'])).to.deep.equal(['create']);
      });

      it('uploads several files in one request; fields apply to the files after them; titles default to the humanised name', async () => {
        const files = dataOf<Row[]>(
          await upload([
            ['file', 'a', 'first-draft_notes.md', 'text/markdown'],
            ['description', 'later ones'],
            ['file', 'bb', 'second.txt', 'text/plain'],
          ]),
        );
        expect(files.map((f) => [f['title'], f['description'], Number(f['filesize'])])).to.deep.equal([
          ['First Draft Notes', null, 1],
          ['Second', 'later ones', 2],
        ]);
      });

      it('reads the dimensions of an uploaded image', async () => {
        const file = dataOf<Row>(await upload([['file', pngHeader(640, 480), 'pixel.png', 'image/png']]));
        expect([file['width'], file['height'], file['type']]).to.deep.equal([640, 480, 'image/png']);
      });

      it('refuses an upload above FILES_MAX_UPLOAD_SIZE with 413 and keeps nothing of it', async () => {
        const before = await storedNames();
        const rows = await db()('svc_files').count({ n: '*' }).first<{ n: number | string }>();
        const result = await upload([['file', 'x'.repeat(200 * 1024), 'big.txt', 'text/plain']]);
        expect(errorsOf(result, 413)[0]?.[0]).to.equal('CONTENT_TOO_LARGE');
        expect(await storedNames()).to.deep.equal(before);
        const after = await db()('svc_files').count({ n: '*' }).first<{ n: number | string }>();
        expect(Number(after?.n)).to.equal(Number(rows?.n));
      });

      it('refuses a type outside FILES_MIME_TYPE_ALLOW_LIST with 415, and a non-multipart body with 415', async () => {
        const refused = errorsOf(await upload([['file', 'PK', 'a.zip', 'application/zip']]), 415);
        expect(refused).to.deep.equal([
          ['UNSUPPORTED_MEDIA_TYPE', { mediaType: 'application/zip', where: 'file upload' }],
        ]);
        const res = await ctx().api('/files', {
          method: 'POST',
          headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'text/plain' },
          body: 'x',
        });
        expect(res.status).to.equal(415);
      });

      it('a text part longer than MAX_PAYLOAD_SIZE is INVALID_PAYLOAD, never cut short; one as long is kept whole', async () => {
        const text = (length: number) => JSON.stringify({ note: 'x'.repeat(length - '{"note":""}'.length) });
        const whole = dataOf<Row>(
          await upload([
            ['metadata', text(100 * 1024)],
            ['file', 'kept', 'kept.txt', 'text/plain'],
          ]),
        );
        expect(JSON.stringify(whole['metadata'])).to.have.length(100 * 1024);
        const before = await storedNames();
        const rows = await db()('svc_files').count({ n: '*' }).first<{ n: number | string }>();
        const result = await upload([
          ['metadata', text(100 * 1024 + 1)],
          ['file', 'cut', 'cut.txt', 'text/plain'],
        ]);
        expect(errorsOf(result, 400)).to.deep.equal([
          ['INVALID_PAYLOAD', { reason: 'The text part "metadata" is longer than MAX_PAYLOAD_SIZE (102400 bytes)' }],
        ]);
        expect(await storedNames()).to.deep.equal(before);
        const after = await db()('svc_files').count({ n: '*' }).first<{ n: number | string }>();
        expect(Number(after?.n)).to.equal(Number(rows?.n));
      });

      it('a file name keeps no control characters, on every database: NUL and line breaks are dropped', async () => {
        const body = [
          '--b0undary',
          `Content-Disposition: form-data; name="file"; filename*=utf-8''a%00b%0Ac%09.txt`,
          'Content-Type: text/plain',
          '',
          'named',
          '--b0undary--',
          '',
        ].join('\r\n');
        const res = await ctx().api('/files', {
          method: 'POST',
          body,
          headers: {
            Authorization: `Bearer ${TEST_ADMIN.token}`,
            'Content-Type': 'multipart/form-data; boundary=b0undary',
          },
        });
        const file = ((await res.json()) as { data: Row }).data;
        expect([res.status, file['filename_download'], file['title']]).to.deep.equal([200, 'abc.txt', 'Abc']);
      });

      it('a file name longer than filename_download holds is shortened to 255 characters, its extension kept', async () => {
        const name = `${'名'.repeat(150)}${'n'.repeat(150)}.report.txt`;
        const file = dataOf<Row>(await upload([['file', 'long', name, 'text/plain']]));
        const kept = String(file['filename_download']);
        expect(Array.from(kept)).to.have.length(255);
        expect(name.startsWith(kept.slice(0, -4))).to.equal(true);
        expect(kept.endsWith('.txt')).to.equal(true);
        expect(file['filename_disk']).to.equal(`${String(file['id'])}.txt`);
        expect(await stored(file)).to.equal('long');
      });

      it('a failed row write removes the stored content again', async () => {
        const before = await storedNames();
        const result = await upload([
          ['folder', 'not-a-uuid'],
          ['file', 'orphan?', 'orphan.txt', 'text/plain'],
        ]);
        expect(errorsOf(result, 400)[0]?.[0]).to.equal('FAILED_VALIDATION');
        expect(await storedNames()).to.deep.equal(before);
      });

      it('an anonymous upload is FORBIDDEN before anything is stored', async () => {
        const before = await storedNames();
        const result = await sendForm(ctx(), 'POST', '/files', [['file', 'nope', 'nope.txt', 'text/plain']], {
          token: null,
        });
        expect(errorsOf(result, 403)[0]?.[0]).to.equal('FORBIDDEN');
        expect(await storedNames()).to.deep.equal(before);
      });

      it('POST /files with JSON creates a metadata-only row; uploads work through /items/svc_files too', async () => {
        const meta = dataOf<Row>(
          await api('POST', '/files', {
            filename_download: 'remote.bin',
            storage: target.location,
            type: 'application/octet-stream',
          }),
        );
        expect(meta['filename_disk']).to.equal(null);
        const viaItems = dataOf<Row>(await upload([['file', 'items', 'items.txt', 'text/plain']], '/items/svc_files'));
        expect(await stored(viaItems)).to.equal('items');
        expect(dataOf<Row>(await api('GET', `/files/${String(viaItems['id'])}`))['filename_download']).to.equal(
          'items.txt',
        );
      });

      it('GET /assets/:id serves the content with its headers; ?download makes it an attachment', async () => {
        const file = dataOf<Row>(await upload([['file', 'abcdefghij', 'Résumé final.txt', 'text/plain']]));
        const res = await adminGet(ctx(), `/assets/${String(file['id'])}`);
        expect(res.status).to.equal(200);
        expect(await res.text()).to.equal('abcdefghij');
        expect(res.headers.get('content-type')).to.equal('text/plain');
        expect(res.headers.get('content-length')).to.equal('10');
        expect(res.headers.get('accept-ranges')).to.equal('bytes');
        expect(res.headers.get('cache-control')).to.equal('private, max-age=2592000');
        expect(res.headers.get('last-modified')).to.be.a('string');
        expect(res.headers.get('content-disposition')).to.equal(
          `inline; filename="R_sum_ final.txt"; filename*=UTF-8''R%C3%A9sum%C3%A9%20final.txt`,
        );
        const download = await adminGet(ctx(), `/assets/${String(file['id'])}/any-name.txt?download`);
        expect(download.headers.get('content-disposition')).to.match(/^attachment; /);
        expect(await download.text()).to.equal('abcdefghij');
      });

      it('GET /assets/:id never lets a file act as a page of the API: nosniff always, a script-free sandbox for active types', async () => {
        const text = dataOf<Row>(await upload([['file', 'plain', 'a.txt', 'text/plain']]));
        const plain = await adminGet(ctx(), `/assets/${String(text['id'])}`);
        expect(plain.headers.get('x-content-type-options')).to.equal('nosniff');
        expect(plain.headers.get('content-security-policy')).to.equal(null);
        const page = dataOf<Row>(await upload([['file', '<script>alert(1)</script>', 'x.txt', 'text/plain']]));
        // The uploader may change `type` afterwards: the answer follows it, sandboxed.
        await api('PATCH', `/files/${String(page['id'])}`, { type: 'text/html; charset=utf-8' });
        const html = await adminGet(ctx(), `/assets/${String(page['id'])}`);
        expect(html.headers.get('content-type')).to.equal('text/html; charset=utf-8');
        expect(html.headers.get('x-content-type-options')).to.equal('nosniff');
        expect(html.headers.get('content-security-policy')).to.match(/default-src 'none'.*; sandbox$/);
        expect(await html.text()).to.equal('<script>alert(1)</script>');
        // Every XML type is a document a browser renders, with the scripts of its XHTML elements.
        for (const type of ['application/rss+xml', 'application/mathml+xml', 'image/svg+xml', 'text/xml']) {
          await api('PATCH', `/files/${String(page['id'])}`, { type });
          const xml = await adminGet(ctx(), `/assets/${String(page['id'])}`);
          expect(xml.headers.get('content-security-policy'), type).to.match(/; sandbox$/);
        }
      });

      it('GET /assets/:id serves a `type` that is no media type (a line break, non-Latin text, empty) as application/octet-stream', async () => {
        const file = dataOf<Row>(await upload([['file', 'bytes', 'b.txt', 'text/plain']]));
        const path = `/assets/${String(file['id'])}`;
        for (const type of ['text/html\nX-Injected: 1', 'テキスト/プレーン', '', 'text', 'text/html; q="\t\u0007"']) {
          dataOf(await api('PATCH', `/files/${String(file['id'])}`, { type }));
          const res = await adminGet(ctx(), path);
          expect(res.status, JSON.stringify(type)).to.equal(200);
          expect(res.headers.get('content-type'), JSON.stringify(type)).to.equal('application/octet-stream');
          expect(res.headers.get('x-injected')).to.equal(null);
          expect(await res.text()).to.equal('bytes');
        }
      });

      it('GET /assets/:id answers Range requests with 206, and an unsatisfiable range with 416', async () => {
        const file = dataOf<Row>(await upload([['file', '0123456789', 'digits.txt', 'text/plain']]));
        const path = `/assets/${String(file['id'])}`;
        const middle = await adminGet(ctx(), path, { Range: 'bytes=2-5' });
        expect(middle.status).to.equal(206);
        expect(middle.headers.get('content-range')).to.equal('bytes 2-5/10');
        expect(middle.headers.get('content-length')).to.equal('4');
        expect(await middle.text()).to.equal('2345');
        const suffix = await adminGet(ctx(), path, { Range: 'bytes=-3' });
        expect([suffix.status, await suffix.text()]).to.deep.equal([206, '789']);
        const open = await adminGet(ctx(), path, { Range: 'bytes=7-' });
        expect([open.status, await open.text()]).to.deep.equal([206, '789']);
        const beyond = await adminGet(ctx(), path, { Range: 'bytes=10-20' });
        expect(beyond.status).to.equal(416);
        expect(beyond.headers.get('content-range')).to.equal('bytes */10');
        expect(((await beyond.json()) as { errors: { extensions: Row }[] }).errors[0]?.extensions).to.deep.equal({
          range: '10-20',
          code: 'RANGE_NOT_SATISFIABLE',
        });
      });

      it('GET /assets is FORBIDDEN for unknown ids, malformed ids, metadata-only rows and anonymous callers', async () => {
        const file = dataOf<Row>(await upload([['file', 'secret', 'secret.txt', 'text/plain']]));
        const meta = dataOf<Row>(
          await api('POST', '/files', { filename_download: 'none.bin', storage: target.location }),
        );
        for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', String(meta['id'])]) {
          expect((await adminGet(ctx(), `/assets/${id}`)).status, id).to.equal(403);
        }
        expect((await ctx().api(`/assets/${String(file['id'])}`)).status).to.equal(403);
        expect((await adminGet(ctx(), `/assets/${String(file['id'])}?width=-3`)).status).to.equal(400);
      });

      it("GET /assets/:id is for whoever may read the file's row, whichever of its fields they may read", async () => {
        const shared = dataOf<Row>(
          await upload([
            ['title', 'shared'],
            ['file', 'for all', 'shared.txt', 'text/plain'],
          ]),
        );
        const other = dataOf<Row>(
          await upload([
            ['title', 'other'],
            ['file', 'not for all', 'other.txt', 'text/plain'],
          ]),
        );
        const caller = await createCaller(db());
        await grant(ctx(), caller.role, [
          { collection: 'svc_files', action: 'read', permissions: { title: { _eq: 'shared' } }, fields: ['title'] },
        ]);
        const as = (id: unknown) =>
          ctx().api(`/assets/${String(id)}?download`, { headers: { Authorization: `Bearer ${caller.token}` } });
        const served = await as(shared['id']);
        expect([served.status, await served.text()]).to.deep.equal([200, 'for all']);
        const refused = await as(other['id']);
        const missing = await as('00000000-0000-4000-8000-000000000000');
        expect([refused.status, await refused.text()]).to.deep.equal([missing.status, await missing.text()]);
        expect(refused.status).to.equal(403);
      });

      it('a role that may read only the title of files lists them, through REST and GraphQL, in key order', async () => {
        for (const title of ['listed b', 'listed a']) {
          dataOf(
            await upload([
              ['title', title],
              ['file', title, 'listed.txt', 'text/plain'],
            ]),
          );
        }
        const caller = await createCaller(db());
        await grant(ctx(), caller.role, [
          {
            collection: 'svc_files',
            action: 'read',
            permissions: { title: { _starts_with: 'listed' } },
            fields: ['title'],
          },
        ]);
        const expected = (
          await db()('svc_files').where('title', 'like', 'listed%').orderBy('id').select<Row[]>('title')
        ).map((r) => ({ title: r['title'] }));
        const headers = { Authorization: `Bearer ${caller.token}`, 'Content-Type': 'application/json' };
        const rest = await ctx().api('/files?fields=title', { headers });
        expect([rest.status, await rest.json()]).to.deep.equal([200, { data: expected }]);
        const graphql = await ctx().api('/graphql/system', {
          method: 'POST',
          headers,
          body: JSON.stringify({ query: '{ files { title } }' }),
        });
        expect([graphql.status, await graphql.json()]).to.deep.equal([200, { data: { files: expected } }]);
      });

      it('PATCH /files/:id with a file part replaces the content; the old content goes when the name changes', async () => {
        const file = dataOf<Row>(
          await upload([
            ['title', 'Keep me'],
            ['file', 'old content', 'v1.txt', 'text/plain'],
          ]),
        );
        const id = String(file['id']);
        const replaced = dataOf<Row>(
          await sendForm(ctx(), 'PATCH', `/files/${id}`, [
            ['description', 'v2'],
            ['file', '{"v":2}', 'v2.json', 'application/json'],
          ]),
        );
        expect(replaced).to.include({
          id,
          title: 'Keep me',
          description: 'v2',
          filename_download: 'v2.json',
          type: 'application/json',
          filename_disk: `${id}.json`,
        });
        expect(Number(replaced['filesize'])).to.equal(7);
        expect(await (await adminGet(ctx(), `/assets/${id}`)).text()).to.equal('{"v":2}');
        const names = await storedNames();
        expect(names).to.include(`${id}.json`);
        expect(names.filter((n) => n.startsWith(id))).to.deep.equal([`${id}.json`]);
        const titled = dataOf<Row>(await api('PATCH', `/files/${id}`, { title: 'Renamed' }));
        expect(titled['title']).to.equal('Renamed');
        const revisions = await db()('svc_revisions')
          .where({ collection: 'svc_files', item: id })
          .count({ n: '*' })
          .first<{ n: number | string }>();
        expect(Number(revisions?.n)).to.equal(3);
      });

      it('a refused replacement leaves the old content and row', async () => {
        const file = dataOf<Row>(await upload([['file', 'original', 'keep.txt', 'text/plain']]));
        const id = String(file['id']);
        const before = await storedNames();
        expect(
          (
            await sendForm(ctx(), 'PATCH', `/files/${id}`, [
              ['folder', 'bad'],
              ['file', 'new', 'keep.txt', 'text/plain'],
            ])
          ).status,
        ).to.equal(400);
        expect(await storedNames()).to.deep.equal(before);
        expect(await (await adminGet(ctx(), `/assets/${id}`)).text()).to.equal('original');
        expect(
          (
            await sendForm(ctx(), 'PATCH', '/files/00000000-0000-4000-8000-000000000000', [
              ['file', 'x', 'x.txt', 'text/plain'],
            ])
          ).status,
        ).to.equal(403);
      });

      it("replacing a file the caller may not update is refused before its content is read, like a missing file's", async () => {
        const file = dataOf<Row>(await upload([['file', 'theirs', 'theirs.txt', 'text/plain']]));
        const caller = await createCaller(db());
        await grant(ctx(), caller.role, [
          { collection: 'svc_files', action: 'update', permissions: { uploaded_by: { _eq: '$CURRENT_USER' } } },
        ]);
        const before = await storedNames();
        // Content beyond FILES_MAX_UPLOAD_SIZE: storing it first would say 413, and that the file exists.
        const replace = (id: string) =>
          sendForm(ctx(), 'PATCH', `/files/${id}`, [['file', 'x'.repeat(100 * 1024), 'big.txt', 'text/plain']], {
            token: caller.token,
          });
        const refused = await replace(String(file['id']));
        const missing = await replace('00000000-0000-4000-8000-000000000000');
        expect([refused.status, refused.body]).to.deep.equal([missing.status, missing.body]);
        expect(errorsOf(refused, 403)).to.deep.equal([['FORBIDDEN', {}]]);
        expect(await storedNames()).to.deep.equal(before);
        expect(await (await adminGet(ctx(), `/assets/${String(file['id'])}`)).text()).to.equal('theirs');
      });

      it('deleting file rows deletes their content, through /files and /items/svc_files', async () => {
        const [a, b, c] = dataOf<Row[]>(
          await upload([
            ['file', 'a', 'a.txt', 'text/plain'],
            ['file', 'b', 'b.txt', 'text/plain'],
            ['file', 'c', 'c.txt', 'text/plain'],
          ]),
        ).map((f) => String(f['id']));
        expect((await api('DELETE', `/files/${String(a)}`)).status).to.equal(204);
        expect((await api('DELETE', '/items/svc_files', [b, c])).status).to.equal(204);
        const names = await storedNames();
        for (const id of [a, b, c]) expect(names.some((n) => n.startsWith(String(id)))).to.equal(false);
        expect(
          await db()('svc_files')
            .whereIn('id', [a, b, c] as string[])
            .select('id'),
        ).to.deep.equal([]);
        expect((await api('DELETE', `/files/${String(a)}`)).status).to.equal(403);
      });

      it('deleting by query removes the selected rows and their contents', async () => {
        const files = dataOf<Row[]>(
          await upload([
            ['description', 'doomed'],
            ['file', '1', 'd1.txt', 'text/plain'],
            ['file', '2', 'd2.txt', 'text/plain'],
          ]),
        );
        expect(
          (await api('DELETE', '/files', { query: { filter: { description: { _eq: 'doomed' } }, limit: -1 } })).status,
        ).to.equal(204);
        const names = await storedNames();
        for (const f of files) expect(names).not.to.include(f['filename_disk']);
      });

      describe('POST /files/import', () => {
        let allowed: TestHttpServer;
        let denied: TestHttpServer;
        before(async () => {
          // 127.0.0.2 is loopback too, but not on the deny list of this suite.
          allowed = await startHttpServer('127.0.0.2', (req, res) => {
            if (req.url === '/report') {
              res.writeHead(200, {
                'Content-Type': 'text/csv; charset=utf-8',
                'Content-Disposition': 'attachment; filename="monthly-report.csv"',
              });
              res.end('a,b\n1,2\n');
            } else if (req.url === '/images/logo.png') {
              res.writeHead(200, { 'Content-Type': 'image/png' });
              res.end(pngHeader(16, 8));
            } else if (req.url === '/hop') {
              res.writeHead(302, { Location: '/report' });
              res.end();
            } else if (req.url === '/escape') {
              res.writeHead(302, { Location: `${denied.url.replace('127.0.0.1', 'localhost')}/secret` });
              res.end();
            } else {
              res.writeHead(404);
              res.end();
            }
          });
          denied = await startHttpServer('127.0.0.1', (_req, res) => res.end('internal secret'));
        });
        after(async () => {
          await allowed.close();
          await denied.close();
        });

        it('imports the file at a URL, named by Content-Disposition, with the given data', async () => {
          const file = dataOf<Row>(
            await api('POST', '/files/import', {
              url: `${allowed.url}/report`,
              data: { title: 'Imported', description: 'from a URL' },
            }),
          );
          expect(file).to.include({
            title: 'Imported',
            description: 'from a URL',
            filename_download: 'monthly-report.csv',
            type: 'text/csv',
          });
          expect(await (await adminGet(ctx(), `/assets/${String(file['id'])}`)).text()).to.equal('a,b\n1,2\n');
        });

        it('names the file after the URL path without Content-Disposition, and follows allowed redirects', async () => {
          const logo = dataOf<Row>(await api('POST', '/files/import', { url: `${allowed.url}/images/logo.png` }));
          expect(logo).to.include({
            filename_download: 'logo.png',
            title: 'Logo',
            type: 'image/png',
            width: 16,
            height: 8,
          });
          const hopped = dataOf<Row>(await api('POST', '/files/import', { url: `${allowed.url}/hop` }));
          expect(hopped['filename_download']).to.equal('monthly-report.csv');
        });

        it('refuses addresses of the deny list: as an IP, through DNS, and after a redirect, without ever connecting', async () => {
          const before = await db()('svc_files').count({ n: '*' }).first<{ n: number | string }>();
          const port = new URL(denied.url).port;
          for (const url of [
            `${denied.url}/secret`,
            `http://localhost:${port}/secret`,
            `http://[::ffff:127.0.0.1]:${port}/secret`,
            `${allowed.url}/escape`,
          ]) {
            const errors = errorsOf(await api('POST', '/files/import', { url }), 503);
            expect(errors, url).to.deep.equal([
              ['SERVICE_UNAVAILABLE', { service: 'external-file', reason: `Couldn't fetch file from URL "${url}"` }],
            ]);
          }
          expect(denied.hits).to.deep.equal([]);
          const after = await db()('svc_files').count({ n: '*' }).first<{ n: number | string }>();
          expect(Number(after?.n)).to.equal(Number(before?.n));
        });

        it('a failed fetch is SERVICE_UNAVAILABLE; a missing or malformed url is INVALID_PAYLOAD', async () => {
          expect(errorsOf(await api('POST', '/files/import', { url: `${allowed.url}/missing` }), 503)[0]?.[0]).to.equal(
            'SERVICE_UNAVAILABLE',
          );
          expect(errorsOf(await api('POST', '/files/import', {}), 400)).to.deep.equal([
            ['INVALID_PAYLOAD', { reason: '"url" is required' }],
          ]);
          expect(errorsOf(await api('POST', '/files/import', { url: 'not a url' }), 400)[0]?.[0]).to.equal(
            'INVALID_PAYLOAD',
          );
        });
      });
    },
    { env: () => ({ ...env, ...target.env() }) },
  );
}
