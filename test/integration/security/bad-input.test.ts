import { expect } from 'chai';
import { request } from 'node:http';
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
});
