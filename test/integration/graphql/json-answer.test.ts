import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { postgresTarget } from '../../support/services.js';
import { createCaller, grant } from '../access/permission-helpers.js';
import { createQueryFixture } from '../query/fixture-schema.js';
import { statementsDuring } from '../query/read-client.js';
import { graphql, type GraphqlError, type GraphqlRequest, type GraphqlResponse } from './graphql-client.js';

/** An error without what differs between two requests (its request id) or two documents (its locations). */
function comparable({ locations: _locations, ...error }: GraphqlError): Omit<GraphqlError, 'locations'> {
  const { request_id: _id, ...extensions } = error.extensions;
  return { ...error, extensions };
}

/**
 * On PostgreSQL a query of item reads is answered with the JSON text the database writes
 * (src/graphql/json-answer.ts); graphql-js executes the same document when it asks for the
 * query type's `__typename`. Each document here is sent both ways: the answers must be the
 * same, key order included, and only the first may be written by the database.
 */
describeEachDatabase(
  'graphql: answers written by the database are the answers graphql-js gives',
  (ctx) => {
    let reader: string;

    before(async () => {
      const c = ctx();
      await createQueryFixture(c);
      const caller = await createCaller(c.server.db);
      reader = caller.token;
      await grant(c, caller.role, [
        {
          collection: 'articles',
          action: 'read',
          fields: ['id', 'title', 'rating', 'author', 'comments'],
          permissions: { status: { _eq: 'published' } },
        },
        { collection: 'comments', action: 'read', fields: ['*'], permissions: { text: { _contains: 'good' } } },
      ]);
      await c.server.schema.invalidate();
    });

    /** The answer, and whether the database wrote it (its statement builds the JSON array). */
    async function answer(query: string, request: GraphqlRequest = {}): Promise<{ body: string; written: boolean }> {
      let res: GraphqlResponse | undefined;
      const statements = await statementsDuring(ctx(), async (token) => {
        res = await graphql(ctx(), query, { token: request.token ?? token, ...request });
      });
      if (res === undefined) throw new Error('no answer');
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return { body: JSON.stringify(res.body), written: statements.some((sql) => sql.includes('array_to_json(')) };
    }

    /** The document with `__typename` first in its operation's selection: graphql-js executes it. */
    async function executed(query: string, request: GraphqlRequest = {}): Promise<string> {
      const brace = query.indexOf('{');
      const res = await graphql(ctx(), `${query.slice(0, brace + 1)} __typename ${query.slice(brace + 1)}`, request);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const { __typename, ...data } = res.body.data ?? {};
      expect(__typename).to.equal('Query');
      const errors = res.body.errors?.map(comparable);
      return JSON.stringify(errors === undefined ? { data } : { data, errors });
    }

    async function expectSameAnswer(query: string, request: GraphqlRequest = {}): Promise<string> {
      const { body, written } = await answer(query, request);
      expect(written, 'written by the database').to.equal(true);
      expect(body).to.equal(await executed(query, request));
      return body;
    }

    it('every value type: ids as text, decimals and numbers as numbers, dates, csv, uuid, a masked hash', async () => {
      const body = await expectSameAnswer(
        `{ articles(sort: ["id"]) { id status title body views rating big featured published_on published created
             starts tags uid secret } }`,
      );
      const [first] = (JSON.parse(body) as { data: { articles: Record<string, unknown>[] } }).data.articles;
      expect(first).to.include({ id: '1', rating: 4.5, big: '9007199254740993', views: 5, featured: true });
      expect(first?.['tags']).to.deep.equal(['red', 'green']);
      expect(first?.['secret']).to.equal('**********');
    });

    it('nested items, their arguments, aliases, fragments and directives keep graphql-js order', async () => {
      await expectSameAnswer(
        `query Nested($status: String!, $skip: Boolean!, $first: Int) {
           pub: articles(filter: { status: { _eq: $status } }, sort: ["-views"], limit: $first) {
             ...Figures
             key: id
             heading: title
             author @skip(if: $skip) { name }
             writer: author { id name country { code id } }
             comments(sort: ["-sort"], limit: 2) { text id author { email } }
             categories { categories_id { name } }
           }
           people: authors(sort: ["name"]) { id name articles(sort: ["id"]) { id title } }
         }
         fragment Figures on articles { views rating ... on articles { title } }`,
        { variables: { status: 'published', skip: false, first: 5 } },
      );
    });

    it('a document sent again reads with its own variables each time (the reads are planned per variables)', async () => {
      const query = `query Again($status: String!, $first: Int, $id: ID!) {
        articles(filter: { status: { _eq: $status } }, sort: ["id"], limit: $first) { id status }
        one: articles_by_id(id: $id) { id }
      }`;
      const ids = (body: string) => {
        const { data } = JSON.parse(body) as { data: { articles: { id: string }[]; one: { id: string } } };
        return { list: data.articles.map((article) => article.id), one: data.one.id };
      };
      const first = ids(await expectSameAnswer(query, { variables: { status: 'published', first: 2, id: 1 } }));
      const other = ids(await expectSameAnswer(query, { variables: { status: 'draft', first: 1, id: 2 } }));
      const again = ids(await expectSameAnswer(query, { variables: { status: 'published', first: 2, id: 1 } }));
      expect(first.list).to.have.length(2);
      expect(other.list).to.have.length(1);
      expect(other.list[0]).to.not.be.oneOf(first.list);
      expect([first.one, other.one]).to.deep.equal(['1', '2']);
      expect(again).to.deep.equal(first);
    });

    it('by-id fields of different selections, a missing item and an unreadable one', async () => {
      await expectSameAnswer(
        '{ a: articles_by_id(id: 1) { id title author { name } } c: authors_by_id(id: 3) { id name country { name } } }',
      );
      // Missing: the database's answer fails, and graphql-js answers null without an error.
      const missing = '{ articles_by_id(id: 999) { id } authors(sort: ["id"], limit: 1) { id } }';
      const { body } = await answer(missing);
      expect(JSON.parse(body)).to.deep.equal({ data: { articles_by_id: null, authors: [{ id: '1' }] } });
      expect(body).to.equal(await executed(missing));
    });

    it("Apollo Client's __typename on every item level, aliased, in fragments, alone, on a missing relation", async () => {
      const body = await expectSameAnswer(
        `query Apollo($id: ID!) {
           articles(sort: ["id"]) {
             __typename id kind: __typename ...Figures
             author { __typename id country { __typename code } }
             writer: author { __typename }
             comments(sort: ["id"]) { __typename }
           }
           one: articles_by_id(id: $id) { __typename title author { name __typename } }
         }
         fragment Figures on articles { __typename rating }`,
        { variables: { id: 1 } },
      );
      const { articles } = (JSON.parse(body) as { data: { articles: Record<string, unknown>[] } }).data;
      expect(Object.keys(articles[0] ?? {})).to.deep.equal([
        '__typename',
        'id',
        'kind',
        'rating',
        'author',
        'writer',
        'comments',
      ]);
      expect(articles[0]).to.deep.include({ kind: 'articles', writer: { __typename: 'authors' } });
      expect(articles.find((a) => a['id'] === '4')).to.deep.include({ author: null, writer: null, comments: [] });
    });

    it('__typename of the query type, a union or a function is executed', async () => {
      for (const query of [
        '{ __typename articles(sort: ["id"]) { id } }',
        '{ articles(sort: ["id"]) { id sections { item { __typename ... on headings { title } } } } }',
        '{ articles(sort: ["id"]) { id published_on_func { __typename year } } }',
      ]) {
        const { written } = await answer(query);
        expect(written, query).to.equal(false);
      }
    });

    it("a limited role: its filter, its fields and a relation it cannot read (the key's value)", async () => {
      const body = await expectSameAnswer(
        '{ articles(sort: ["id"]) { id title rating author comments(sort: ["id"]) { id text } } }',
        { token: reader },
      );
      expect(JSON.parse(body)).to.deep.equal({
        data: {
          articles: [
            {
              id: '1',
              title: 'Hello world',
              rating: 4.5,
              author: 1,
              comments: [
                { id: '1', text: 'c1 good' },
                { id: '3', text: 'c3 good' },
              ],
            },
            { id: '3', title: 'Quantum leap', rating: null, author: 1, comments: [{ id: '5', text: 'e1 good' }] },
          ],
        },
      });
      // __typename is no field of the role's: the type's name all the same, as graphql-js answers.
      const typed = await expectSameAnswer('{ articles_by_id(id: 3) { __typename id comments { __typename text } } }', {
        token: reader,
      });
      expect(JSON.parse(typed)).to.deep.equal({
        data: {
          articles_by_id: { __typename: 'articles', id: '3', comments: [{ __typename: 'comments', text: 'e1 good' }] },
        },
      });
    });

    it('a decimal that is not a number: the error graphql-js gives, not a silent null', async () => {
      const db = ctx().server.db;
      await db('articles').where({ id: 2 }).update({ rating: 'NaN' });
      try {
        const query = '{ articles(sort: ["id"], filter: { id: { _in: [1, 2] } }) { id rating } }';
        const { body, written } = await answer(query);
        expect(written, 'the database was asked first').to.equal(true);
        const parsed = JSON.parse(body) as GraphqlResponse['body'];
        expect(parsed.errors?.[0]?.path).to.deep.equal(['articles', 1, 'rating']);
        expect(parsed.data).to.deep.equal({
          articles: [
            { id: '1', rating: 4.5 },
            { id: '2', rating: null },
          ],
        });
        expect(JSON.stringify({ data: parsed.data, errors: parsed.errors?.map(comparable) })).to.equal(
          await executed(query),
        );
      } finally {
        await db('articles').where({ id: 2 }).update({ rating: '1.00' });
      }
    });

    it('what the database does not write is executed: json values, many-to-any items, functions, aggregates', async () => {
      for (const query of [
        '{ articles(sort: ["id"]) { id data } }',
        '{ articles(sort: ["id"]) { id sections { item { ... on headings { title } } } } }',
        '{ articles(sort: ["id"]) { id published_on_func { year } } }',
        '{ articles_aggregated { countAll } }',
      ]) {
        const { body, written } = await answer(query);
        expect(written, query).to.equal(false);
        expect(body, query).to.equal(await executed(query));
      }
    });
  },
  { targets: [postgresTarget] },
);
