import { expect } from 'chai';
import { createLogger } from '../../../src/logger/index.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { TEST_ADMIN, describeEachDatabase, testConfig } from '../../support/server.js';
import { createCaller, grant } from '../access/permission-helpers.js';
import { createQueryFixture } from '../query/fixture-schema.js';

/**
 * On PostgreSQL, plain GET reads are answered before Express (src/http/fast-path.ts). A
 * second server on the same database runs every request through Express: both must give the
 * same status, headers and body for reads the fast path takes and for those it hands over.
 */
describeEachDatabase('http: reads answered before Express equal Express answers', (ctx) => {
  let viaExpress: RunningServer;
  let limited: string;

  before(async () => {
    const c = ctx();
    await createQueryFixture(c);
    viaExpress = await startServer(testConfig(c.database), {
      logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
      fastPath: false,
    });
    const caller = await createCaller(c.server.db);
    limited = caller.token;
    await grant(c, caller.role, [
      {
        collection: 'articles',
        action: 'read',
        fields: ['id', 'title'],
        permissions: { status: { _eq: 'published' } },
      },
    ]);
    await c.server.schema.invalidate();
  });

  after(async () => {
    await viaExpress.close();
  });

  const admin = { Authorization: `Bearer ${TEST_ADMIN.token}` };
  const REQUESTS: readonly [string, Record<string, string> | (() => Record<string, string>)][] = [
    ['/items/articles?fields=id,title,author.name,comments.text&sort=-id&meta=*', admin],
    ['/items/articles/1?fields=id,title,tags,secret,created,categories.categories_id.name', admin],
    ['/items/articles?fields=id,headline&alias[headline]=title&filter[views][_gt]=1&limit=2&page=2', admin],
    ['/items/articles?fields=*', admin],
    ['/items/articles?fields=id,data', admin],
    ['/items/articles?aggregate[count]=*', admin],
    ['/items/site_settings', admin],
    ['/items/directus_users?fields=id,email', admin],
    ['/items/articles/', admin],
    ['/items/ar%74icles/2?fields=id', admin],
    ['/items/articles/999', admin],
    ['/items/nothing_here', admin],
    ['/items/articles?filter[nope][_eq]=1', admin],
    ['/items/articles?fields=id,title', () => ({ Authorization: `Bearer ${limited}` })],
    ['/items/articles/2?fields=id', () => ({ Authorization: `Bearer ${limited}` })],
    ['/items/articles?fields=id,body', () => ({ Authorization: `Bearer ${limited}` })],
    ['/items/articles?fields=id', {}],
    ['/items/articles?fields=id', { Authorization: 'Bearer not-a-token' }],
    [`/items/articles?fields=id&access_token=${TEST_ADMIN.token}`, {}],
    [`/items/articles?fields=id&access_token=${TEST_ADMIN.token}`, admin],
    // The one authenticate step (request-pipeline.ts): an encoded query token, the session cookie.
    [`/items/articles?fields=id&access%5Ftoken=${TEST_ADMIN.token}`, {}],
    ['/items/articles?fields=id,secret', { Cookie: `svc_session_token=${TEST_ADMIN.token}` }],
    ['/items/articles?fields=id', { Cookie: 'svc_session_token=not-a-token' }],
    ['/items/articles/1?fields=id&as%5Fof=2000-01-01T00:00:00Z', admin],
    ['/items/articles?fields=id', { ...admin, 'If-None-Match': 'W/"nothing"' }],
    ['/items/articles?fields=id', { ...admin, 'X-Forwarded-For': '203.0.113.7' }],
  ];

  for (const [path, headersOf] of REQUESTS) {
    const label = typeof headersOf === 'function' ? 'limited role' : Object.keys(headersOf).join(', ');
    it(`GET ${path} ${label}`, async () => {
      const headers = typeof headersOf === 'function' ? headersOf() : headersOf;
      const [fast, slow] = await Promise.all([ctx().api(path, { headers }), fetch(viaExpress.url + path, { headers })]);
      expect(fast.status).to.equal(slow.status);
      expect(await fast.text()).to.equal(await slow.text());
      for (const name of ['content-type', 'content-length', 'cache-control', 'vary', 'etag']) {
        expect(fast.headers.get(name), name).to.equal(slow.headers.get(name));
      }
    });
  }
});
