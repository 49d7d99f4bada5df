import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { createQueryFixture } from '../query/fixture-schema.js';
import { statementsDuring } from '../query/read-client.js';
import { graphql, graphqlData } from './graphql-client.js';

describeEachDatabase('graphql: item queries', (ctx) => {
  before(async () => {
    await createQueryFixture(ctx());
    // The first request after the fixture builds the overview: keep it out of statement counts.
    await graphqlData(ctx(), '{ countries { id } }');
  });

  describe('root fields', () => {
    it('C lists items with filter, sort, limit, offset, page and search', async () => {
      const data = await graphqlData(
        ctx(),
        `{
          published: articles(filter: { status: { _eq: "published" } }, sort: ["-views"]) { id views }
          window: articles(sort: ["id"], limit: 2, offset: 1) { id }
          paged: articles(sort: ["id"], limit: 3, page: 2) { id }
          found: articles(search: "quantum") { title }
        }`,
      );
      expect(data).to.deep.equal({
        published: [
          { id: '3', views: 6 },
          { id: '1', views: 5 },
        ],
        window: [{ id: '2' }, { id: '3' }],
        paged: [{ id: '4' }],
        found: [{ title: 'Quantum leap' }],
      });
    });

    it('C_by_id reads one item; a missing or impossible id is null without an error', async () => {
      const data = await graphqlData(
        ctx(),
        '{ one: articles_by_id(id: 2) { id title } missing: articles_by_id(id: 999) { id } odd: articles_by_id(id: "abc") { id } }',
      );
      expect(data).to.deep.equal({ one: { id: '2', title: 'Second thoughts' }, missing: null, odd: null });
    });

    it('C_aggregated groups and aggregates; without groupBy the group is null', async () => {
      const data = await graphqlData(
        ctx(),
        `{
          byStatus: articles_aggregated(groupBy: ["status"], sort: ["status"]) { group countAll sum { views } count { id } }
          all: articles_aggregated { group countAll max { views } avg { views } countDistinct { status } }
          filtered: articles_aggregated(filter: { status: { _eq: "published" } }) { countAll }
        }`,
      );
      expect(data['byStatus']).to.deep.equal([
        { group: { status: 'archived' }, countAll: 1, sum: { views: 0 }, count: { id: 1 } },
        { group: { status: 'draft' }, countAll: 1, sum: { views: 1 }, count: { id: 1 } },
        { group: { status: 'published' }, countAll: 2, sum: { views: 11 }, count: { id: 2 } },
      ]);
      expect(data['all']).to.deep.equal([
        { group: null, countAll: 4, max: { views: 6 }, avg: { views: 3 }, countDistinct: { status: 3 } },
      ]);
      expect(data['filtered']).to.deep.equal([{ countAll: 2 }]);
    });

    it('a singleton is an object: its row, or its defaults', async () => {
      expect(await graphqlData(ctx(), '{ site_settings { id headline visits } }')).to.deep.equal({
        site_settings: { id: null, headline: 'Hello', visits: 0 },
      });
      await ctx().server.db('site_settings').insert({ headline: 'Stored', visits: 3 });
      try {
        expect(await graphqlData(ctx(), '{ site_settings { headline visits } }')).to.deep.equal({
          site_settings: { headline: 'Stored', visits: 3 },
        });
      } finally {
        await ctx().server.db('site_settings').delete();
      }
    });

    it('a singleton has no _by_id or _aggregated root field', async () => {
      const res = await graphql(ctx(), '{ site_settings_by_id(id: 1) { id } }');
      expect(res.status).to.equal(400);
      expect(res.body.errors?.[0]?.extensions['code']).to.equal('GRAPHQL_VALIDATION');
    });
  });

  describe('relations', () => {
    it('m2o and o2m nest three levels, with arguments on nested lists', async () => {
      const data = await graphqlData(
        ctx(),
        `{ countries(sort: ["id"]) {
            code
            authors(sort: ["name"]) {
              name
              articles(filter: { status: { _neq: "archived" } }, sort: ["id"]) {
                id
                comments(limit: 2, sort: ["-id"]) { text author { name } }
              }
            }
        } }`,
      );
      expect(data['countries']).to.deep.equal([
        {
          code: 'NL',
          authors: [
            {
              name: 'Ann',
              articles: [
                {
                  id: '1',
                  comments: [
                    { text: 'c3 good', author: { name: 'Bob' } },
                    { text: 'c2 spam', author: { name: 'Cid' } },
                  ],
                },
                { id: '3', comments: [{ text: 'e1 good', author: { name: 'Ann' } }] },
              ],
            },
          ],
        },
        {
          code: 'DE',
          authors: [{ name: 'Bob', articles: [{ id: '2', comments: [{ text: 'd1', author: { name: 'Ann' } }] }] }],
        },
      ]);
    });

    it('a missing m2o row is null; a nested m2o filter that fails reads as null', async () => {
      const data = await graphqlData(
        ctx(),
        `{ articles(filter: { id: { _in: ["1", "4"] } }, sort: ["id"]) {
            id author { name } ann: author(filter: { name: { _eq: "Ann" } }) { name }
        } }`,
      );
      expect(data['articles']).to.deep.equal([
        { id: '1', author: { name: 'Ann' }, ann: { name: 'Ann' } },
        { id: '4', author: null, ann: null },
      ]);
    });

    it('m2m reads through the junction row', async () => {
      const data = await graphqlData(
        ctx(),
        '{ articles(sort: ["id"], limit: 2) { id categories { id categories_id { name } } } }',
      );
      expect(data['articles']).to.deep.equal([
        {
          id: '1',
          categories: [
            { id: '1', categories_id: { name: 'news' } },
            { id: '2', categories_id: { name: 'tech' } },
          ],
        },
        { id: '2', categories: [{ id: '3', categories_id: { name: 'tech' } }] },
      ]);
    });

    it('m2a reads a union selected with inline fragments; __typename names the collection', async () => {
      const data = await graphqlData(
        ctx(),
        `{ articles_by_id(id: 1) { sections { id collection item { __typename ... on headings { title level } ... on texts { body } } } } }`,
      );
      expect(data['articles_by_id']).to.deep.equal({
        sections: [
          { id: '2', collection: 'texts', item: { __typename: 'texts', body: 'T1 body' } },
          { id: '1', collection: 'headings', item: { __typename: 'headings', title: 'H1', level: 1 } },
          { id: '3', collection: 'headings', item: { __typename: 'headings', title: 'H2', level: 2 } },
        ],
      });
    });

    it('m2a members without a fragment still resolve to their type', async () => {
      const data = await graphqlData(
        ctx(),
        '{ articles_by_id(id: 1) { sections { item { __typename ... on headings { title } } } } }',
      );
      expect(data['articles_by_id']).to.deep.equal({
        sections: [
          { item: { __typename: 'texts' } },
          { item: { __typename: 'headings', title: 'H1' } },
          { item: { __typename: 'headings', title: 'H2' } },
        ],
      });
    });

    it('aliases read one relation twice with different arguments', async () => {
      const data = await graphqlData(
        ctx(),
        `{ articles_by_id(id: 1) {
            name: title
            first: comments(sort: ["id"], limit: 1) { text }
            good: comments(filter: { text: { _contains: "good" } }, sort: ["id"]) { id words: text }
        } }`,
      );
      expect(data['articles_by_id']).to.deep.equal({
        name: 'Hello world',
        first: [{ text: 'c1 good' }],
        good: [
          { id: '1', words: 'c1 good' },
          { id: '3', words: 'c3 good' },
        ],
      });
    });

    it('function fields: date parts and counts of relations, json and csv', async () => {
      const data = await graphqlData(
        ctx(),
        `{ one: articles_by_id(id: 1) { published_func { year month day } comments_func { count } p: published_func { y: year } }
           two: articles_by_id(id: 2) { data_func { count } tags_func { count } } }`,
      );
      expect(data).to.deep.equal({
        one: { published_func: { year: 2024, month: 1, day: 15 }, comments_func: { count: 3 }, p: { y: 2024 } },
        two: { data_func: { count: 3 }, tags_func: { count: 1 } },
      });
    });

    it('fragments, variables, @skip and @include shape the read', async () => {
      const data = await graphqlData(
        ctx(),
        `query Read($id: ID!, $withAuthor: Boolean!, $status: String) {
          articles_by_id(id: $id) { ...Basics author @include(if: $withAuthor) { name } views @skip(if: true) }
          articles(filter: { status: { _eq: $status } }, sort: ["id"]) { id }
        }
        fragment Basics on articles { id title }`,
        { variables: { id: '2', withAuthor: true, status: 'draft' } },
      );
      expect(data).to.deep.equal({
        articles_by_id: { id: '2', title: 'Second thoughts', author: { name: 'Bob' } },
        articles: [{ id: '2' }],
      });
    });

    it('an object selecting only __typename still reads its row', async () => {
      const data = await graphqlData(
        ctx(),
        '{ articles(sort: ["id"], limit: 2) { __typename author { __typename } } }',
      );
      expect(data['articles']).to.deep.equal([
        { __typename: 'articles', author: { __typename: 'authors' } },
        { __typename: 'articles', author: { __typename: 'authors' } },
      ]);
    });
  });

  describe('filters', () => {
    const ids = async (filter: string): Promise<unknown> => {
      const data = await graphqlData(ctx(), `{ articles(filter: ${filter}, sort: ["id"]) { id } }`);
      return (data['articles'] as { id: string }[]).map((a) => a.id);
    };

    it('relational filters follow m2o, o2m and m2m', async () => {
      expect(await ids('{ author: { country: { code: { _eq: "DE" } } } }')).to.deep.equal(['2']);
      expect(await ids('{ comments: { text: { _eq: "d1" } } }')).to.deep.equal(['2']);
      expect(await ids('{ categories: { categories_id: { name: { _eq: "news" } } } }')).to.deep.equal(['1', '3']);
    });

    it('_some and _none on one-to-many filters', async () => {
      expect(await ids('{ comments: { _some: { text: { _contains: "spam" } } } }')).to.deep.equal(['1']);
      expect(await ids('{ comments: { _none: { text: { _contains: "good" } } } }')).to.deep.equal(['2', '4']);
    });

    it('_and, _or and function filters', async () => {
      expect(await ids('{ _or: [{ views: { _gt: 5 } }, { status: { _eq: "draft" } }] }')).to.deep.equal(['2', '3']);
      expect(
        await ids('{ _and: [{ views: { _gte: 1 } }, { published_func: { year: { _eq: 2024 } } }] }'),
      ).to.deep.equal(['1']);
      expect(await ids('{ comments_func: { count: { _gt: 1 } } }')).to.deep.equal(['1']);
    });

    it('many-to-any filters scope the item with item__<collection>', async () => {
      const data = await graphqlData(
        ctx(),
        '{ articles_sections(filter: { item__headings: { title: { _eq: "H2" } } }, sort: ["id"]) { id } }',
      );
      expect(data['articles_sections']).to.deep.equal([{ id: '3' }, { id: '4' }]);
      expect(await ids('{ sections: { item__texts: { body: { _contains: "T1" } } } }')).to.deep.equal(['1']);
    });

    it('number filters take numbers and strings; dynamic variables work as strings', async () => {
      expect(await ids('{ views: { _between: [1, "5"] } }')).to.deep.equal(['1', '2']);
      expect(await ids('{ published: { _lt: "$NOW" }, id: { _nin: ["1"] } }')).to.deep.equal(['2']);
    });
  });

  describe('one statement per root field', () => {
    it('a three-level selection with every relation kind is one statement', async () => {
      const statements = await statementsDuring(ctx(), async (token) => {
        await graphqlData(
          ctx(),
          `{ countries { code authors { name articles {
              title author { name } comments { text author { name } } categories { categories_id { name } }
              sections { item { ... on headings { title } ... on texts { body } } }
          } } } }`,
          { token },
        );
      });
      expect(statements).to.have.length(1);
    });

    it('each root field is one statement; by-id fields with one selection share one', async () => {
      const statements = await statementsDuring(ctx(), async (token) => {
        await graphqlData(
          ctx(),
          `{ articles { id author { name } } authors { name }
             a: articles_by_id(id: 1) { title } b: articles_by_id(id: 2) { title } c: articles_by_id(id: 3) { title } }`,
          { token },
        );
      });
      expect(statements).to.have.length(3);
    });
  });
});
