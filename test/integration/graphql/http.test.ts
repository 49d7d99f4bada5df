import { expect } from 'chai';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { sqliteTarget } from '../../support/services.js';
import { createQueryFixture } from '../query/fixture-schema.js';
import { graphql, graphqlData } from './graphql-client.js';

const admin = { Authorization: `Bearer ${TEST_ADMIN.token}` };

describeEachDatabase('graphql: endpoints, scopes and errors', (ctx) => {
  before(async () => {
    await createQueryFixture(ctx());
    const db = ctx().server.db;
    const user = (await db('svc_users').where({ email: TEST_ADMIN.email }).first('id')) as { id: string };
    await db.schema.createTable('notes', (t) => {
      t.increments('id').primary();
      t.string('text', 80);
      t.uuid('owner').references('id').inTable('svc_users');
    });
    await db('svc_relations').insert({ many_collection: 'notes', many_field: 'owner', one_collection: 'svc_users' });
    await db('notes').insert({ id: 1, text: 'mine', owner: user.id });
    await ctx().server.schema.invalidate();
  });

  describe('transport', () => {
    it('GET takes the document and variables from the query string', async () => {
      const params = new URLSearchParams({
        query: 'query One($id: ID!) { articles_by_id(id: $id) { title } }',
        variables: JSON.stringify({ id: '3' }),
      });
      const res = await ctx().api(`/graphql?${params.toString()}`, { headers: admin });
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ data: { articles_by_id: { title: 'Quantum leap' } } });
    });

    it('POST takes a raw document as application/graphql', async () => {
      const res = await ctx().api('/graphql', {
        method: 'POST',
        headers: { ...admin, 'Content-Type': 'application/graphql' },
        body: '{ countries(sort: ["id"]) { code } }',
      });
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ data: { countries: [{ code: 'NL' }, { code: 'DE' }] } });
    });

    it('other methods are 405 METHOD_NOT_ALLOWED with Allow', async () => {
      const res = await ctx().api('/graphql', {
        method: 'PATCH',
        headers: { ...admin, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(res.status).to.equal(405);
      expect(res.headers.get('allow')).to.equal('GET, POST');
      const body = (await res.json()) as { errors: { extensions: Record<string, unknown> }[] };
      expect(body.errors[0]?.extensions).to.deep.equal({
        current: 'PATCH',
        allowed: ['GET', 'POST'],
        code: 'METHOD_NOT_ALLOWED',
      });
    });

    it('an invalid token is refused before execution with the REST error body', async () => {
      const res = await graphql(ctx(), '{ articles { id } }', { token: 'not-a-known-token' });
      expect(res.status).to.equal(401);
      expect(res.body).to.deep.equal({
        errors: [{ message: 'Invalid user credentials.', extensions: { code: 'INVALID_CREDENTIALS' } }],
      });
    });
  });

  describe('scopes', () => {
    it('/graphql/system serves the system collections without the svc_ prefix', async () => {
      const data = await graphqlData(
        ctx(),
        '{ users { email role { name admin_access } } roles_aggregated { countAll } }',
        { scope: 'system' },
      );
      expect(data).to.deep.equal({
        users: [{ email: TEST_ADMIN.email, role: { name: 'Administrator', admin_access: true } }],
        roles_aggregated: [{ countAll: 1 }],
      });
    });

    it('each scope has only its own root fields', async () => {
      const items = await graphql(ctx(), '{ users { email } }');
      expect(items.status).to.equal(400);
      const system = await graphql(ctx(), '{ articles { id } }', { scope: 'system' });
      expect(system.status).to.equal(400);
      const [error] = system.body.errors?.[0]?.extensions['errors'] as { message: string }[];
      expect(error?.message).to.match(/^Cannot query field "articles" on type "Query"\./);
    });

    it('relations cross scopes: user items nest system items', async () => {
      const data = await graphqlData(ctx(), '{ notes { text owner { email role { name } } } }');
      expect(data).to.deep.equal({
        notes: [{ text: 'mine', owner: { email: TEST_ADMIN.email, role: { name: 'Administrator' } } }],
      });
    });

    it('without a token the schema has nothing to read: data stays private', async () => {
      const res = await graphql(ctx(), '{ articles { id } }', { token: null });
      expect(res.status).to.equal(400);
      expect(res.body.errors?.[0]?.extensions['code']).to.equal('GRAPHQL_VALIDATION');
      expect(await graphqlData(ctx(), '{ _empty __typename }', { token: null })).to.deep.equal({
        _empty: null,
        __typename: 'Query',
      });
    });

    it('a schema change is served after the schema cache moves on', async () => {
      expect((await graphql(ctx(), '{ later { id } }')).status).to.equal(400);
      await ctx().server.db.schema.createTable('later', (t) => {
        t.increments('id').primary();
      });
      await ctx().server.schema.invalidate();
      expect(await graphqlData(ctx(), '{ later { id } }')).to.deep.equal({ later: [] });
    });
  });

  describe('errors', () => {
    it('an invalid document is 400 GRAPHQL_VALIDATION with the graphql-js errors inside', async () => {
      const res = await graphql(ctx(), '{ articles { nope } }');
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({
        errors: [
          {
            message: 'GraphQL validation error.',
            extensions: {
              errors: [
                { message: 'Cannot query field "nope" on type "articles".', locations: [{ line: 1, column: 14 }] },
              ],
              code: 'GRAPHQL_VALIDATION',
            },
          },
        ],
      });
    });

    it('a syntax error is GRAPHQL_VALIDATION too', async () => {
      const res = await graphql(ctx(), '{ articles { id }');
      expect(res.status).to.equal(400);
      expect(res.body.errors?.[0]?.extensions['code']).to.equal('GRAPHQL_VALIDATION');
    });

    it('variables that do not coerce and unknown operations are 400 GRAPHQL_EXECUTION', async () => {
      const bad = await graphql(ctx(), 'query ($id: ID!) { articles_by_id(id: $id) { id } }', { variables: {} });
      expect(bad.status).to.equal(400);
      expect(bad.body.errors?.[0]?.message).to.equal('GraphQL execution error.');
      expect(bad.body.errors?.[0]?.extensions['code']).to.equal('GRAPHQL_EXECUTION');
      const unknown = await graphql(ctx(), 'query A { countries { id } }', { operationName: 'B' });
      expect(unknown.status).to.equal(400);
      expect(unknown.body.errors?.[0]?.extensions['errors']).to.deep.equal([
        { message: 'Unknown operation named "B".' },
      ]);
    });

    it('a document seen before still runs the operation named by each request', async () => {
      const document =
        'query A { countries(sort: ["id"], limit: 1) { code } } query B { categories(sort: ["id"], limit: 1) { name } }';
      expect(await graphqlData(ctx(), document, { operationName: 'A' })).to.deep.equal({ countries: [{ code: 'NL' }] });
      expect(await graphqlData(ctx(), document, { operationName: 'B' })).to.deep.equal({
        categories: [{ name: 'news' }],
      });
      const missing = await graphql(ctx(), document);
      expect(missing.status).to.equal(400);
      expect(missing.body.errors?.[0]?.extensions['code']).to.equal('GRAPHQL_EXECUTION');
    });

    it('a resolver error leaves its root field null and carries the REST code and keys', async () => {
      const res = await graphql(
        ctx(),
        '{ countries(sort: ["id"], limit: 1) { code } articles_by_id(id: 1) { comments(sort: ["nope"]) { id } } }',
      );
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        data: { countries: [{ code: 'NL' }], articles_by_id: null },
        errors: [
          {
            message: 'Invalid query. Invalid sort field "nope" on "comments".',
            locations: [{ line: 1, column: 46 }],
            path: ['articles_by_id'],
            extensions: { reason: 'Invalid sort field "nope" on "comments"', code: 'INVALID_QUERY' },
          },
        ],
      });
    });

    it('arguments are checked like REST query parameters', async () => {
      const res = await graphql(ctx(), '{ articles(limit: -2) { id } }');
      expect(res.status).to.equal(200);
      expect(res.body.data).to.equal(null);
      expect(res.body.errors?.[0]?.extensions).to.deep.equal({
        reason: '"limit" must be greater than or equal to -1',
        code: 'INVALID_QUERY',
      });
    });
  });
});

describeEachDatabase(
  'graphql: query limits',
  (ctx) => {
    before(async () => {
      await createQueryFixture(ctx());
    });

    it('a document with more tokens than GRAPHQL_QUERY_TOKEN_LIMIT is refused', async () => {
      const fields = Array.from({ length: 30 }, (_, i) => `a${i}: id`).join(' ');
      const res = await graphql(ctx(), `{ articles { ${fields} } }`);
      expect(res.status).to.equal(400);
      expect(res.body.errors?.[0]?.extensions['code']).to.equal('GRAPHQL_VALIDATION');
      const [error] = res.body.errors?.[0]?.extensions['errors'] as { message: string }[];
      expect(error?.message).to.match(/^Syntax Error: Document contains more tha[nt] 40 tokens\. Parsing aborted\.$/);
    });

    it('selections nested deeper than MAX_RELATIONAL_DEPTH allows are refused before reading', async () => {
      const ok = await graphql(ctx(), '{ comments { article { author { name } } } }');
      expect(ok.status).to.equal(200);
      const res = await graphql(ctx(), '{ comments { article { author { country { name } } } } }');
      expect(res.status).to.equal(400);
      expect(res.body.errors?.[0]?.extensions['errors']).to.deep.equal([
        {
          message: 'Max query depth exceeded: "comments" nests more than 3 levels.',
          locations: [{ line: 1, column: 3 }],
        },
      ]);
    });

    it('GRAPHQL_INTROSPECTION=false refuses introspection', async () => {
      const res = await graphql(ctx(), '{ __schema { queryType { name } } }');
      expect(res.status).to.equal(400);
      expect(res.body.errors?.[0]?.extensions['code']).to.equal('GRAPHQL_VALIDATION');
      expect(await graphqlData(ctx(), '{ __typename }')).to.deep.equal({ __typename: 'Query' });
    });
  },
  {
    targets: [sqliteTarget],
    env: { GRAPHQL_QUERY_TOKEN_LIMIT: '40', MAX_RELATIONAL_DEPTH: '2', GRAPHQL_INTROSPECTION: 'false' },
  },
);
