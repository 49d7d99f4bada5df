import { expect } from 'chai';
import { describeEachDatabase, type ServerContext } from '../../support/server.js';
import { statementsRunOn } from '../../support/statements.js';
import { createCaller, grant, type Caller } from '../access/permission-helpers.js';
import { createQueryFixture } from '../query/fixture-schema.js';
import { graphql, graphqlData, type GraphqlResponse } from './graphql-client.js';

/*
 * A document's work is bounded before it runs (graphql/query-cost.ts): rows read, counted
 * from the lists' limits (nested lists multiply), and aliases. Over the limits the document
 * is refused as 400 GRAPHQL_VALIDATION, and the database is never asked.
 */

const aliased = (count: number, selection: string) =>
  Array.from({ length: count }, (_, i) => `a${i}: ${selection}`).join(' ');

/** A limited role reading articles and comments, its permissions loaded by a first request. */
async function limitedReader(ctx: ServerContext): Promise<Caller> {
  await createQueryFixture(ctx);
  const reader = await createCaller(ctx.server.db);
  await grant(ctx, reader.role, [
    { collection: 'articles', action: 'read', fields: ['id', 'title', 'comments'] },
    { collection: 'comments', action: 'read', fields: ['id', 'text', 'article'] },
  ]);
  await graphqlData(ctx, '{ articles(limit: 1) { id } }', { token: reader.token });
  return reader;
}

/** The request's answer and the statements the database ran meanwhile. */
async function sent(ctx: ServerContext, reader: Caller, query: string, variables?: Record<string, unknown>) {
  let res: GraphqlResponse | undefined;
  const statements = await statementsRunOn(ctx.server.db, async () => {
    res = await graphql(ctx, query, { token: reader.token, ...(variables === undefined ? {} : { variables }) });
  });
  if (res === undefined) throw new Error('no answer');
  return { res, statements };
}

function expectRefused(result: { res: GraphqlResponse; statements: string[] }, ...messages: string[]): void {
  expect(result.res.status, JSON.stringify(result.res.body)).to.equal(400);
  expect(result.res.body.errors).to.have.length(1);
  const [error] = result.res.body.errors ?? [];
  expect(error?.message).to.equal('GraphQL validation error.');
  expect(error?.extensions['code']).to.equal('GRAPHQL_VALIDATION');
  expect((error?.extensions['errors'] as { message: string }[]).map((e) => e.message)).to.deep.equal(messages);
  // The caller's token may be looked up again (its cache expired on a slow machine): no item is read.
  expect(result.statements.filter((sql) => /articles|comments/.test(sql))).to.deep.equal([]);
}

describeEachDatabase('graphql: the cost of a document is bounded before it runs (default limits)', (ctx) => {
  let reader: Caller;
  before(async () => {
    reader = await limitedReader(ctx());
  });

  it('many aliases of an unlimited list are refused without reading', async () => {
    const result = await sent(ctx(), reader, `{ ${aliased(440, 'articles(limit: -1) { id }')} }`);
    expectRefused(
      result,
      'The operation has 440 aliases, more than the limit of 100.',
      'The operation may read unlimited rows (a list with `limit: -1`), more than the limit of 250000.',
    );
  });

  it('an unlimited list counts as unlimited (QUERY_LIMIT_MAX unset): refused, even alone', async () => {
    // Counted as 10000 rows each once, whatever the table held: 25 of them read 200k-row tables whole.
    expectRefused(
      await sent(ctx(), reader, '{ articles(limit: -1) { id } }'),
      'The operation may read unlimited rows (a list with `limit: -1`), more than the limit of 250000.',
    );
    expectRefused(
      await sent(ctx(), reader, `query Many { ${aliased(25, 'articles(limit: -1) { id title }')} }`),
      'Operation "Many" may read unlimited rows (a list with `limit: -1`), more than the limit of 250000.',
    );
  });

  it('a huge limit counts as asked, not as a table of 10000 rows', async () => {
    expectRefused(
      await sent(ctx(), reader, '{ articles(limit: 2000000000) { id title } }'),
      'The operation may read 2000000000 rows, more than the limit of 250000.',
    );
    expectRefused(
      await sent(ctx(), reader, `{ ${aliased(25, 'articles(limit: 2000000000) { id title }')} }`),
      'The operation may read 50000000000 rows, more than the limit of 250000.',
    );
    // Up to GRAPHQL_QUERY_COST_LIMIT (250000) the same reads still answer.
    const over = await sent(ctx(), reader, `query Many { ${aliased(26, 'articles(limit: 10000) { id }')} }`);
    expectRefused(over, 'Operation "Many" may read 260000 rows, more than the limit of 250000.');
    const within = await sent(ctx(), reader, `{ ${aliased(25, 'articles(limit: 10000) { id }')} }`);
    expect(within.res.status).to.equal(200);
    expect((within.res.body.data?.['a24'] as unknown[]).length).to.equal(4);
    expect(within.statements.length).to.be.greaterThan(0);
  });

  it('nested lists and _aggregated groups count the same way', async () => {
    expectRefused(
      await sent(ctx(), reader, '{ articles(limit: 1) { id comments(limit: -1) { id } } }'),
      'The operation may read unlimited rows (a list with `limit: -1`), more than the limit of 250000.',
    );
    expectRefused(
      await sent(ctx(), reader, '{ articles(limit: 1) { id comments(limit: 2000000000) { id } } }'),
      'The operation may read 2000000001 rows, more than the limit of 250000.',
    );
    expectRefused(
      await sent(ctx(), reader, '{ articles_aggregated(groupBy: ["title"], limit: -1) { group countAll } }'),
      'The operation may read unlimited rows (a list with `limit: -1`), more than the limit of 250000.',
    );
    expectRefused(
      await sent(ctx(), reader, '{ articles_aggregated(groupBy: ["title"], limit: 2000000000) { group countAll } }'),
      'The operation may read 2000000000 rows, more than the limit of 250000.',
    );
    const grouped = await sent(ctx(), reader, '{ articles_aggregated(groupBy: ["title"], limit: 10) { countAll } }');
    expect(grouped.res.status, JSON.stringify(grouped.res.body)).to.equal(200);
    expect(grouped.res.body.data?.['articles_aggregated']).to.have.length(4);
  });

  it('a limit given as a variable counts at its value, on every request of the same document', async () => {
    const query = `query Limited($n: Int) { ${aliased(30, 'articles(limit: $n) { id }')} }`;
    expectRefused(
      await sent(ctx(), reader, query, { n: -1 }),
      'Operation "Limited" may read unlimited rows (a list with `limit: -1`), more than the limit of 250000.',
    );
    const small = await sent(ctx(), reader, query, { n: 2 });
    expect(small.res.status).to.equal(200);
    expect(small.res.body.data?.['a0']).to.have.length(2);
    // The document is remembered as valid now: another request with a big limit is still refused.
    expectRefused(
      await sent(ctx(), reader, query, { n: 2000000000 }),
      'Operation "Limited" may read 60000000000 rows, more than the limit of 250000.',
    );
  });

  it('a chain of fragments each spreading the next twice is measured once per fragment', async () => {
    // Walked spread by spread, 2^60 selections: the depth and cost rules would never finish.
    const chain = Array.from({ length: 60 }, (_, i) => `fragment F${i} on articles { ...F${i + 1} ...F${i + 1} }`).join(
      ' ',
    );
    const started = Date.now();
    const data = await graphqlData(
      ctx(),
      `{ articles(limit: 2, sort: ["id"]) { ...F0 } } ${chain} fragment F60 on articles { id }`,
      {
        token: reader.token,
      },
    );
    expect(data['articles']).to.deep.equal([{ id: '1' }, { id: '2' }]);
    expect(Date.now() - started).to.be.lessThan(3000);
  });

  it('fragments count at every spread', async () => {
    const query = `{ ${aliased(13, 'articles(limit: 100) { ...F }')} } fragment F on articles { id comments(limit: 20000) { id } }`;
    // 13 x (100 articles + 20000 comments: a level counts at most a table, but never less than its own limit).
    expectRefused(
      await sent(ctx(), reader, query),
      'The operation may read 261300 rows, more than the limit of 250000.',
    );
  });
});

describeEachDatabase(
  'graphql: nested lists multiply the cost (GRAPHQL_QUERY_COST_LIMIT=1000, GRAPHQL_QUERY_ALIAS_LIMIT=2, QUERY_LIMIT_MAX=400)',
  (ctx) => {
    let reader: Caller;
    before(async () => {
      reader = await limitedReader(ctx());
    });

    it('rows of a nested list are counted per parent row', async () => {
      const ok = await sent(ctx(), reader, '{ articles(limit: 10, sort: ["id"]) { id comments(limit: 10) { id } } }');
      expect(ok.res.status, JSON.stringify(ok.res.body)).to.equal(200);
      expect((ok.res.body.data?.['articles'] as unknown[]).length).to.equal(4);
      // 30 articles + 30 x 40 comments.
      const over = await sent(ctx(), reader, '{ articles(limit: 30) { id comments(limit: 40) { id } } }');
      expectRefused(over, 'The operation may read 1230 rows, more than the limit of 1000.');
      // Without a limit a list counts QUERY_LIMIT_DEFAULT (100) rows: 100 + 100 x 100.
      const defaults = await sent(ctx(), reader, '{ articles { id comments { id } } }');
      expectRefused(defaults, 'The operation may read 10100 rows, more than the limit of 1000.');
    });

    it('with QUERY_LIMIT_MAX set, limit -1 counts as that many rows', async () => {
      const ok = await sent(ctx(), reader, '{ a: articles(limit: -1) { id } b: articles(limit: -1) { id } }');
      expect(ok.res.status, JSON.stringify(ok.res.body)).to.equal(200);
      expect(ok.res.body.data?.['b']).to.have.length(4);
      const over = await sent(ctx(), reader, '{ articles(limit: -1) { id comments(limit: -1) { id } } }');
      // 400 + 400 x 400 comments, counted as one table of 10000 rows (a comment has one article).
      expectRefused(over, 'The operation may read 10400 rows, more than the limit of 1000.');
    });

    it('aliases count wherever they are', async () => {
      const over = await sent(ctx(), reader, '{ articles(limit: 1) { a: id b: title comments(limit: 1) { c: id } } }');
      expectRefused(over, 'The operation has 3 aliases, more than the limit of 2.');
      const ok = await graphqlData(ctx(), '{ articles(limit: 1, sort: ["id"]) { a: id b: id } }', {
        token: reader.token,
      });
      expect(ok['articles']).to.deep.equal([{ a: '1', b: '1' }]);
    });
  },
  { env: { GRAPHQL_QUERY_COST_LIMIT: '1000', GRAPHQL_QUERY_ALIAS_LIMIT: '2', QUERY_LIMIT_MAX: '400' } },
);
