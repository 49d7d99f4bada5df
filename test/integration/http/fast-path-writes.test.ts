import { expect } from 'chai';
import { createLogger } from '../../../src/logger/index.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { TEST_ADMIN, describeEachDatabase, testConfig } from '../../support/server.js';
import { createCaller, grant } from '../access/permission-helpers.js';
import { createQueryFixture } from '../query/fixture-schema.js';

interface WriteRequest {
  readonly method: 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly body?: string;
  readonly headers?: Record<string, string>;
}

const json = { 'Content-Type': 'application/json' };
const admin = { Authorization: `Bearer ${TEST_ADMIN.token}`, ...json };
const ENV = { MAX_PAYLOAD_SIZE: '2kb' };

/**
 * Item writes are answered before Express (src/http/fast-path.ts) on every dialect. A second
 * server on the same database runs every request through Express; each write below runs on
 * one, then the same on the other, and both answers must be equal: status, headers, body.
 * The writes are chosen so that the second gives the same answer as the first (the same
 * update twice, creates answering without their keys, errors that write nothing).
 */
describeEachDatabase(
  'http: writes answered before Express equal Express answers',
  (ctx) => {
    let viaExpress: RunningServer;
    let limited: string;

    before(async () => {
      const c = ctx();
      await createQueryFixture(c);
      viaExpress = await startServer(testConfig(c.database, ENV), {
        logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
        fastPath: false,
      });
      const caller = await createCaller(c.server.db);
      limited = caller.token;
      await grant(c, caller.role, [
        { collection: 'articles', action: 'read', fields: ['id', 'title'] },
        { collection: 'articles', action: 'update', fields: ['title'], permissions: { status: { _eq: 'published' } } },
      ]);
      await c.server.schema.invalidate();
    });

    after(async () => {
      await viaExpress.close();
    });

    async function both(request: WriteRequest | (() => WriteRequest)): Promise<[Response, Response]> {
      const send = (base: string | null) => {
        const { method, path, body, headers = admin } = typeof request === 'function' ? request() : request;
        const init = { method, headers, ...(body === undefined ? {} : { body }) };
        return base === null ? ctx().api(path, init) : fetch(base + path, init);
      };
      const fast = await send(null);
      const slow = await send(viaExpress.url);
      return [fast, slow];
    }

    async function expectSame([fast, slow]: [Response, Response]): Promise<{ status: number; body: string }> {
      const body = await fast.text();
      expect(fast.status).to.equal(slow.status);
      expect(body).to.equal(await slow.text());
      for (const name of ['content-type', 'content-length', 'cache-control', 'vary', 'etag', 'allow', 'retry-after']) {
        expect(fast.headers.get(name), name).to.equal(slow.headers.get(name));
      }
      return { status: fast.status, body };
    }

    const SAME: readonly [string, WriteRequest, number][] = [
      [
        'a create, answered without its key',
        { method: 'POST', path: '/items/articles?fields=title,status', body: '{"title":"Fast"}' },
        200,
      ],
      [
        'a batch create',
        { method: 'POST', path: '/items/articles?fields=title', body: '[{"title":"A"},{"title":"B"}]' },
        200,
      ],
      [
        'an update by key',
        { method: 'PATCH', path: '/items/articles/1?fields=id,title,author.name', body: '{"title":"Patched"}' },
        200,
      ],
      [
        'an update of several keys',
        { method: 'PATCH', path: '/items/articles?fields=id,views', body: '{"keys":[1,2],"data":{"views":7}}' },
        200,
      ],
      [
        'an update by query',
        {
          method: 'PATCH',
          path: '/items/articles?fields=id',
          body: '{"query":{"filter":{"id":{"_eq":3}}},"data":{"views":3}}',
        },
        200,
      ],
      [
        'a batch update',
        { method: 'PATCH', path: '/items/articles?fields=id,views', body: '[{"id":1,"views":1},{"id":2,"views":2}]' },
        200,
      ],
      [
        'the singleton',
        { method: 'PATCH', path: '/items/site_settings?fields=headline', body: '{"headline":"Hi"}' },
        200,
      ],
      [
        'a re-read of fields that name nothing',
        { method: 'PATCH', path: '/items/articles/1?fields=nothing.here', body: '{"title":"Again"}' },
        200,
      ],
      ['a resolved collection name', { method: 'PATCH', path: '/items/directus_users/x', body: '{}' }, 403],
      ['malformed JSON', { method: 'POST', path: '/items/articles', body: '{"title":' }, 400],
      ['JSON that is not an object or array', { method: 'POST', path: '/items/articles', body: '"title"' }, 400],
      [
        'a charset JSON may not have',
        {
          method: 'POST',
          path: '/items/articles',
          body: '{}',
          headers: { ...admin, 'Content-Type': 'application/json; charset=latin1' },
        },
        415,
      ],
      [
        'a body over MAX_PAYLOAD_SIZE',
        { method: 'POST', path: '/items/articles', body: JSON.stringify({ title: 'x'.repeat(3000) }) },
        400,
      ],
      [
        'a body of another type',
        {
          method: 'POST',
          path: '/items/articles',
          body: 'title=x',
          headers: { ...admin, 'Content-Type': 'text/plain' },
        },
        415,
      ],
      [
        'an unknown field (dropped, as Directus does)',
        { method: 'PATCH', path: '/items/articles/1?fields=title', body: '{"nope":1,"title":"U"}' },
        200,
      ],
      ['a value of the wrong type', { method: 'POST', path: '/items/articles', body: '{"views":"many"}' }, 400],
      [
        'a value too long',
        { method: 'PATCH', path: '/items/articles/1', body: JSON.stringify({ status: 'x'.repeat(30) }) },
        400,
      ],
      ['an item that does not exist', { method: 'PATCH', path: '/items/articles/999999', body: '{"title":"x"}' }, 403],
      ['a key of the wrong type', { method: 'DELETE', path: '/items/articles/abc' }, 403],
      ['an unknown collection', { method: 'POST', path: '/items/nothing_here', body: '{}' }, 403],
      ['the journal', { method: 'POST', path: '/items/svc_activity', body: '{}' }, 403],
      ['POST on a singleton', { method: 'POST', path: '/items/site_settings', body: '{}' }, 404],
      ['PATCH without data', { method: 'PATCH', path: '/items/articles', body: '{"keys":[1]}' }, 400],
      ['DELETE without keys', { method: 'DELETE', path: '/items/articles', body: '{}' }, 400],
      ['a method the items routes lack', { method: 'POST', path: '/items/articles/1', body: '{}' }, 405],
      ['a malformed query string', { method: 'PATCH', path: '/items/articles/1?filter={', body: '{"title":"x"}' }, 400],
      ['no token', { method: 'PATCH', path: '/items/articles/1', body: '{"title":"x"}', headers: json }, 403],
      [
        'a bad token',
        {
          method: 'PATCH',
          path: '/items/articles/1',
          body: '{"title":"x"}',
          headers: { ...json, Authorization: 'Bearer nope' },
        },
        401,
      ],
      [
        'a token in the query string',
        {
          method: 'PATCH',
          path: `/items/articles/1?fields=title&access_token=${TEST_ADMIN.token}`,
          body: '{"title":"Q"}',
          headers: json,
        },
        200,
      ],
      [
        'a proxied request',
        {
          method: 'PATCH',
          path: '/items/articles/1?fields=title',
          body: '{"title":"P"}',
          headers: { ...admin, 'X-Forwarded-For': '203.0.113.9' },
        },
        200,
      ],
    ];

    for (const [label, request, status] of SAME) {
      it(`${request.method} ${request.path}: ${label}`, async () => {
        const answer = await expectSame(await both(request));
        expect(answer.status, answer.body).to.equal(status);
      });
    }

    it('a limited role: an update outside its item filter, and one inside it', async () => {
      const headers = () => ({ Authorization: `Bearer ${limited}`, ...json });
      const c = ctx();
      const [draft] = await c.server.db('articles').whereNot('status', 'published').pluck('id');
      const [published] = await c.server.db('articles').where('status', 'published').pluck('id');
      const outside = await expectSame(
        await both(() => ({
          method: 'PATCH',
          path: `/items/articles/${String(draft)}`,
          body: '{"title":"L"}',
          headers: headers(),
        })),
      );
      expect(outside.status).to.equal(403);
      const inside = await expectSame(
        await both(() => ({
          method: 'PATCH',
          path: `/items/articles/${String(published)}?fields=title`,
          body: '{"title":"L"}',
          headers: headers(),
        })),
      );
      expect(inside.body).to.equal('{"data":{"title":"L"}}');
    });

    it('deletes: 204 from both, and the item is gone', async () => {
      const c = ctx();
      const keys = await Promise.all(
        [1, 2].map(async () => {
          const res = await c.api('/items/articles?fields=id', {
            method: 'POST',
            headers: admin,
            body: '{"title":"Doomed"}',
          });
          return ((await res.json()) as { data: { id: number } }).data.id;
        }),
      );
      const remaining = [...keys];
      const [fast, slow] = await both(() => ({
        method: 'DELETE',
        path: `/items/articles/${String(remaining.shift())}`,
      }));
      await expectSame([fast, slow]);
      expect(fast.status).to.equal(204);
      expect(await c.server.db('articles').whereIn('id', keys).pluck('id')).to.deep.equal([]);
    });

    it('the journal records the same caller, ip, user agent and origin', async () => {
      const c = ctx();
      const headers = { ...admin, 'User-Agent': 'fast-path-test', Origin: 'https://example.test' };
      await both({ method: 'POST', path: '/items/articles?fields=title', body: '{"title":"Journaled"}', headers });
      const rows = await c.server
        .db('svc_activity')
        .where({ collection: 'articles', action: 'create', user_agent: 'fast-path-test' })
        .orderBy('id', 'desc')
        .limit(2)
        .select('user', 'ip', 'user_agent', 'origin', 'action');
      expect(rows).to.have.length(2);
      expect(rows[0]).to.deep.equal(rows[1]);
      expect(rows[0]).to.include({ origin: 'https://example.test' });
    });
  },
  { env: ENV },
);
