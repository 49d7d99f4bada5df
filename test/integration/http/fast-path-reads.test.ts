import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { createLogger } from '../../../src/logger/index.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { TEST_ADMIN, describeEachDatabase, testConfig } from '../../support/server.js';
import { createCaller, grant } from '../access/permission-helpers.js';
import { createQueryFixture } from '../query/fixture-schema.js';

/**
 * On PostgreSQL, plain GET reads and GraphQL queries are answered before Express
 * (src/http/fast-path.ts). A second server on the same database runs every request through
 * Express: both must give the same status, headers and body for reads the fast path takes and
 * for those it hands over.
 */
describeEachDatabase('http: reads and GraphQL queries answered before Express equal Express answers', (ctx) => {
  let viaExpress: RunningServer;
  let limited: string;

  before(async () => {
    const c = ctx();
    await createQueryFixture(c);
    // Text of more bytes than characters: the answer's length and ETag are of its UTF-8 bytes.
    await c.server.db('articles').insert({ id: 50, status: 'published', title: 'Crème brûlée – naïve 🚀', views: 1 });
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
    ['/items/articles/50?fields=id,title', admin],
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

  /** The same request to both servers: the same answer. */
  async function expectSameAnswer(path: string, init: RequestInit): Promise<void> {
    const [fast, slow] = await Promise.all([ctx().api(path, init), fetch(`${viaExpress.url}${path}`, init)]);
    expect(fast.status).to.equal(slow.status);
    const [fastText, slowText] = await Promise.all([fast.text(), slow.text()]);
    // Request ids differ between two requests; everything else is the same.
    const comparable = (text: string) => text.replace(/"request_id":"[^"]*"/g, '"request_id":""');
    expect(comparable(fastText)).to.equal(comparable(slowText));
    for (const name of ['content-type', 'content-length', 'cache-control', 'vary', 'etag']) {
      expect(fast.headers.get(name), name).to.equal(slow.headers.get(name));
    }
  }

  for (const [path, headersOf] of REQUESTS) {
    const label = typeof headersOf === 'function' ? 'limited role' : Object.keys(headersOf).join(', ');
    it(`GET ${path} ${label}`, async () => {
      const headers = typeof headersOf === 'function' ? headersOf() : headersOf;
      await expectSameAnswer(path, { headers });
    });
  }

  // GraphQL: a query the database answers is taken before Express; every other request is
  // handed to Express, its body read.
  const json = { 'Content-Type': 'application/json' };
  const asAdmin = { ...json, Authorization: `Bearer ${TEST_ADMIN.token}` };
  const body = (query: string, extra: Record<string, unknown> = {}) => JSON.stringify({ query, ...extra });
  const nested = '{ articles(sort: ["id"]) { id title rating author { name country { code } } comments { text } } }';
  type Headers = Record<string, string> | (() => Record<string, string>);
  const GRAPHQL_POSTS: readonly [string, string, Headers][] = [
    ['a nested query', body(nested), asAdmin],
    [
      'by id, with variables',
      body('query ($id: ID!) { articles_by_id(id: $id) { id title } }', { variables: { id: 2 } }),
      asAdmin,
    ],
    ['a missing item', body('{ articles_by_id(id: 999) { id } }'), asAdmin],
    [
      'an operation by name',
      body('query A { authors { id } } query B { countries { code } }', { operationName: 'B' }),
      asAdmin,
    ],
    [
      'variables that do not coerce',
      body('query ($n: Int) { articles(limit: $n) { id } }', { variables: { n: 'x' } }),
      asAdmin,
    ],
    ['an argument the read refuses', body('{ articles(sort: ["nope"]) { id } }'), asAdmin],
    [
      "Apollo Client's __typename on every item level",
      body('{ articles(limit: 2) { __typename id author { __typename name } comments { __typename text } } }'),
      asAdmin,
    ],
    ["the query type's __typename, executed", body('{ __typename articles(limit: 1) { id } }'), asAdmin],
    ['a mutation', body('mutation { update_articles_item(id: 4, data: { views: 0 }) { id } }'), asAdmin],
    ['a syntax error', body('{ articles { id '), asAdmin],
    ['an unknown field', body('{ articles { nope } }'), asAdmin],
    [
      'a persisted query not yet stored',
      body('', { extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }),
      asAdmin,
    ],
    ['a body that is not JSON', '{"query": ', asAdmin],
    ['a body without a query', JSON.stringify({ variables: {} }), asAdmin],
    ['Accept: the GraphQL response type', body(nested), { ...asAdmin, Accept: 'application/graphql-response+json' }],
    ['Accept: JSON first, then others', body(nested), { ...asAdmin, Accept: 'application/json, text/html' }],
    ['Accept: a type it does not answer', body(nested), { ...asAdmin, Accept: 'text/html' }],
    [
      'a limited role',
      body('{ articles(sort: ["id"]) { id title } }'),
      () => ({ ...json, Authorization: `Bearer ${limited}` }),
    ],
    [
      'a limited role asking for a field it cannot read',
      body(nested),
      () => ({ ...json, Authorization: `Bearer ${limited}` }),
    ],
    ['no token', body('{ articles { id } }'), json],
    ['a token that is not one', body('{ articles { id } }'), { ...json, Authorization: 'Bearer not-a-token' }],
    [
      'the session cookie',
      body('{ articles(limit: 1) { id } }'),
      { ...json, Cookie: `svc_session_token=${TEST_ADMIN.token}` },
    ],
    [
      'an Idempotency-Key',
      body('{ articles(limit: 1) { id } }'),
      { ...asAdmin, 'Idempotency-Key': 'graphql-fast-path-1' },
    ],
  ];

  for (const [label, payload, headersOf] of GRAPHQL_POSTS) {
    it(`POST /graphql: ${label}`, async () => {
      const headers = typeof headersOf === 'function' ? headersOf() : headersOf;
      await expectSameAnswer('/graphql', { method: 'POST', headers, body: payload });
    });
  }

  const search = (params: Record<string, string>) => `/graphql?${new URLSearchParams(params).toString()}`;
  const GETS: readonly [string, string][] = [
    ['a query', search({ query: nested })],
    ['variables', search({ query: 'query ($id: ID!) { articles_by_id(id: $id) { id } }', variables: '{"id":"3"}' })],
    ['variables that are not JSON', search({ query: '{ articles { id } }', variables: '{' })],
    ['a parameter named twice', `${search({ query: '{ articles { id } }' })}&query=x`],
    ['a mutation', search({ query: 'mutation { delete_articles_item(id: 4) { id } }' })],
    ['no query at all', '/graphql'],
  ];
  for (const [label, path] of GETS) {
    it(`GET /graphql: ${label}`, async () => {
      await expectSameAnswer(path, { headers: asAdmin });
    });
  }

  it('a persisted query: its document stored with its hash, then its hash alone, by POST and by GET', async () => {
    const query = '{ articles(sort: ["-id"], limit: 2) { id title } }';
    const sha256Hash = createHash('sha256').update(query).digest('hex');
    const extensions = { persistedQuery: { version: 1, sha256Hash } };
    await expectSameAnswer('/graphql', { method: 'POST', headers: asAdmin, body: body(query, { extensions }) });
    await expectSameAnswer('/graphql', { method: 'POST', headers: asAdmin, body: JSON.stringify({ extensions }) });
    await expectSameAnswer(search({ extensions: JSON.stringify(extensions) }), { headers: asAdmin });
    const answer = await ctx().api(search({ extensions: JSON.stringify(extensions) }), { headers: asAdmin });
    expect(((await answer.json()) as { data: { articles: unknown[] } }).data.articles).to.have.length(2);
    // A document that is not the hash's: 400, both ways.
    const wrong = body('{ authors { id } }', { extensions });
    await expectSameAnswer('/graphql', { method: 'POST', headers: asAdmin, body: wrong });
  });
});
