import { expect } from 'chai';
import { request } from 'node:http';
import { gzipSync, brotliCompressSync, deflateSync } from 'node:zlib';
import { describeEachDatabase, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { createQueryFixture } from '../query/fixture-schema.js';
import { grant } from '../access/permission-helpers.js';

/*
 * Requests of every caller that once answered 500 (bad percent-encoding, huge numbers, keys out
 * of a column's range, text a database cannot store, sum() of text, compressed bodies, cut
 * multipart bodies): each is a 4xx in the error body, and nothing is written.
 */

type Row = Record<string, unknown>;
const WATCHED = ['articles', 'comments', 'svc_activity', 'svc_revisions', 'svc_files'] as const;

async function counts(ctx: ServerContext): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of WATCHED) {
    const [row] = await ctx.server.db(table).count<Row[]>({ n: '*' });
    out[table] = Number(row?.['n']);
  }
  return out;
}

interface Answer {
  readonly status: number;
  readonly body: { errors?: { message: string; extensions: Row }[] } & Row;
}

/** A raw request: the path is sent as written (fetch would normalise percent-encoding). */
function raw(ctx: ServerContext, method: string, path: string, options: { headers?: Record<string, string>; body?: Buffer | string; token?: string } = {}): Promise<Answer> {
  const url = new URL(ctx.server.url);
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers['Authorization'] = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(options.body));
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text === '' ? {} : (JSON.parse(text) as Answer['body']) });
      });
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

function expectError(answer: Answer, status: number, code: string): void {
  expect(answer.status, JSON.stringify(answer.body)).to.equal(status);
  expect(Object.keys(answer.body)).to.deep.equal(['errors']);
  expect(answer.body.errors?.[0]?.extensions['code'], JSON.stringify(answer.body)).to.equal(code);
}

const admin = { token: TEST_ADMIN.token };

describeEachDatabase('bad input is a 4xx, never a 500', (ctx) => {
  let countsBefore: Record<string, number>;
  before(async () => {
    await createQueryFixture(ctx());
    await grant(ctx(), null, [{ collection: 'comments', action: 'read' }]);
  });
  beforeEach(async () => {
    countsBefore = await counts(ctx());
  });
  afterEach(async () => {
    expect(await counts(ctx())).to.deep.equal(countsBefore);
  });

  describe('percent-encoding of the path', () => {
    for (const path of ['/items/comments/%ED%A0%80', '/assets/%ff', '/items/%', '/items/%?offset=1', '/items/comments/%E0%A4%A']) {
      for (const [who, options] of [['anonymous', {}], ['admin', admin]] as const) {
        it(`GET ${path} (${who})`, async () => expectError(await raw(ctx(), 'GET', path, options), 404, 'ROUTE_NOT_FOUND'));
      }
      it(`DELETE ${path} (admin)`, async () => expectError(await raw(ctx(), 'DELETE', path, admin), 404, 'ROUTE_NOT_FOUND'));
    }
  });

  describe('numbers out of range', () => {
    const huge = '9999999999999999999999999999999999999999';
    for (const name of ['limit', 'offset', 'page']) {
      it(`${name}=${huge}`, async () => {
        expectError(await raw(ctx(), 'GET', `/items/svc_activity?${name}=${huge}`, admin), 400, 'INVALID_QUERY');
        expectError(await raw(ctx(), 'GET', `/items/comments?${name}=${huge}`), 400, 'INVALID_QUERY');
        expectError(await raw(ctx(), 'GET', `/items/articles?fields=comments.id&deep[comments][_${name}]=${huge}`, admin), 400, 'INVALID_QUERY');
      });
      it(`${name}=1e21 and ${name}=9007199254740993`, async () => {
        expectError(await raw(ctx(), 'GET', `/items/comments?${name}=1e21`), 400, 'INVALID_QUERY');
        expectError(await raw(ctx(), 'GET', `/items/comments?${name}=9007199254740993`), 400, 'INVALID_QUERY');
      });
    }
    for (const key of ['9999999999999999999999', '-9223372036854775809', '9223372036854775808', '2147483648', huge]) {
      it(`key ${key} reads and deletes as a missing item`, async () => {
        expectError(await raw(ctx(), 'GET', `/items/comments/${key}`), 403, 'FORBIDDEN');
        expectError(await raw(ctx(), 'GET', `/items/comments/${key}`, admin), 403, 'FORBIDDEN');
        expectError(await raw(ctx(), 'DELETE', `/items/comments/${key}`), 403, 'FORBIDDEN');
        expectError(await raw(ctx(), 'DELETE', `/items/comments/${key}`, admin), 403, 'FORBIDDEN');
        expectError(await raw(ctx(), 'PATCH', `/items/articles/${key}`, { ...admin, headers: { 'Content-Type': 'application/json' }, body: '{"title":"x"}' }), 403, 'FORBIDDEN');
        expectError(await raw(ctx(), 'POST', `/utils/revert/${key}`), 403, 'FORBIDDEN');
        expectError(await raw(ctx(), 'POST', `/utils/revert/${key}`, admin), 403, 'FORBIDDEN');
      });
    }
    it('a filter on an integer field with a value out of its range', async () => {
      const res = await raw(ctx(), 'GET', `/items/comments?filter[id][_eq]=${huge}`);
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 400]);
    });
    it('a value out of an integer column range in a payload', async () => {
      expectError(await raw(ctx(), 'POST', '/items/articles', { ...admin, headers: { 'Content-Type': 'application/json' }, body: `{"views":${huge}}` }), 400, 'VALUE_OUT_OF_RANGE');
    });
  });

  describe('text a database cannot store', () => {
    for (const [label, text] of [['NUL', 'a\u0000b'], ['a lone surrogate', '\ud800'], ['a lone low surrogate', 'x\udfffy']] as const) {
      it(`${label} in a payload value`, async () => {
        const res = await raw(ctx(), 'POST', '/items/articles', { ...admin, headers: { 'Content-Type': 'application/json' }, body: `{"title":"${text}"}` });
        if (label === 'NUL' && ctx().dialect !== 'postgres') expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 400]);
        else expectError(res, 400, 'INVALID_PAYLOAD');
      });
      it(`${label} in search and in a filter`, async () => {
        const encoded = encodeURIComponent(JSON.parse(`"${text}"`) as string).replace(/%EF%BF%BD/g, '%ED%A0%80');
        for (const q of [`search=${encoded}`, `filter[text][_contains]=${encoded}`, `filter={"text":{"_eq":"${text}"}}`]) {
          const res = await raw(ctx(), 'GET', `/items/comments?${q.replace(/[{}"]/g, (c) => encodeURIComponent(c))}`);
          expect(res.status, `${q}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 400]);
          if (res.status === 400) expectError(res, 400, 'INVALID_QUERY');
        }
      });
    }
  });

  describe('aggregates of the wrong type', () => {
    for (const fn of ['sum', 'avg', 'sumDistinct', 'avgDistinct']) {
      it(`aggregate[${fn}]=title`, async () => {
        expectError(await raw(ctx(), 'GET', `/items/articles?aggregate[${fn}]=title`, admin), 400, 'INVALID_QUERY');
        const res = await raw(ctx(), 'POST', '/graphql', { ...admin, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: `{ articles_aggregated { ${fn} { title } } }` }) });
        expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 400]);
        expect(JSON.stringify(res.body)).to.not.include('INTERNAL_SERVER_ERROR');
      });
    }
  });

  describe('compressed JSON bodies', () => {
    const body = JSON.stringify({ title: 'zipped' });
    for (const [encoding, zip] of [['gzip', gzipSync], ['br', brotliCompressSync], ['deflate', deflateSync]] as const) {
      it(`Content-Encoding: ${encoding} is decoded`, async () => {
        const res = await raw(ctx(), 'POST', '/items/articles', { ...admin, headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding }, body: zip(Buffer.from(body)) });
        expect([200, 415], JSON.stringify(res.body)).to.include(res.status);
        if (res.status === 200) {
          countsBefore['articles'] = (countsBefore['articles'] ?? 0) + 1;
          countsBefore['svc_activity'] = (countsBefore['svc_activity'] ?? 0) + 1;
          countsBefore['svc_revisions'] = (countsBefore['svc_revisions'] ?? 0) + 1;
        }
      });
    }
    it('an unknown encoding is 415', async () => {
      expectError(await raw(ctx(), 'POST', '/items/articles', { ...admin, headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'zstd-x' }, body }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    });
    it('a body that is not what it claims to be', async () => {
      expectError(await raw(ctx(), 'POST', '/items/articles', { ...admin, headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, body }), 400, 'INVALID_PAYLOAD');
    });
  });

  describe('multipart', () => {
    it('a truncated multipart body to POST /files', async () => {
      const boundary = 'XyZ';
      const part = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello wor`;
      const res = await raw(ctx(), 'POST', '/files', { ...admin, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` }, body: part });
      expectError(res, 400, 'INVALID_PAYLOAD');
    });
  });
});
