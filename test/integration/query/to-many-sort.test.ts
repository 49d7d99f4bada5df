import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { call, createCaller, expectForbidden, grant, idsOf, type Caller } from '../access/permission-helpers.js';
import { graphql, graphqlData } from '../graphql/graphql-client.js';
import { createQueryFixture } from './fixture-schema.js';
import { adminData, adminIds, adminRead, errorOf } from './read-client.js';

/**
 * Sorting through to-many paths (o2m, m2m, m2a): a parent sorts by
 * the smallest related value ascending and the largest descending, NULL (sorting as the
 * largest value) when it has none; each parent appears once, windows and meta counts as
 * without the sort. Fixture: article 1 is in categories news + tech, 2 in tech, 3 in news, 4
 * in none; article 1 has sections H1, H2 (and a text), 2 has H2.
 */
describeEachDatabase('read: sort through to-many paths', (ctx) => {
  let reader: Caller;

  before(async () => {
    await createQueryFixture(ctx());
    reader = await createCaller(ctx().server.db);
    await grant(ctx(), reader.role, [
      { collection: 'articles', action: 'read', fields: ['id', 'title', 'categories', 'comments'] },
      { collection: 'articles_categories', action: 'read' },
      { collection: 'categories', action: 'read', permissions: { name: { _neq: 'news' } }, fields: ['id', 'name'] },
      { collection: 'comments', action: 'read', fields: ['id', 'article'] },
    ]);
  });

  it('m2m: the smallest related value ascending, the largest descending, ties by the next sort', async () => {
    expect(await adminIds(ctx(), '/items/articles?fields=id&sort=categories.categories_id.name,id')).to.deep.equal([
      1, 3, 2, 4,
    ]);
    expect(await adminIds(ctx(), '/items/articles?fields=id&sort=-categories.categories_id.name,id')).to.deep.equal([
      4, 1, 2, 3,
    ]);
  });

  it('o2m: each parent once, after its first related value; parents without related rows sort as NULL', async () => {
    expect(await adminIds(ctx(), '/items/articles?fields=id&sort=comments.text')).to.deep.equal([1, 2, 3, 4]);
    expect(await adminIds(ctx(), '/items/articles?fields=id&sort=-comments.text')).to.deep.equal([4, 3, 2, 1]);
    // A date function at the end of an o2m path: Bob's articles are from 2023, Ann's 2024, Cid has none.
    expect(await adminIds(ctx(), '/items/authors?fields=id&sort=articles.year(published)')).to.deep.equal([2, 1, 3]);
    expect(await adminIds(ctx(), '/items/authors?fields=id&sort=-articles.year(published)')).to.deep.equal([3, 1, 2]);
  });

  it('boolean and uuid values through an o2m path (types PostgreSQL has no plain min/max for)', async () => {
    // Ann's articles are featured (true) and unknown (null); Bob's is not featured; Cid has none.
    expect(await adminIds(ctx(), '/items/authors?fields=id&sort=articles.featured,id')).to.deep.equal([2, 1, 3]);
    expect(await adminIds(ctx(), '/items/authors?fields=id&sort=-articles.featured,id')).to.deep.equal([3, 1, 2]);
    // Only Ann's first article has a uid.
    expect(await adminIds(ctx(), '/items/authors?fields=id&sort=articles.uid,id')).to.deep.equal([1, 2, 3]);
    expect(await adminIds(ctx(), '/items/authors?fields=id&sort=-articles.uid,id')).to.deep.equal([2, 3, 1]);
  });

  it('m2a: through the scoped item of the junction, functions included', async () => {
    expect(await adminIds(ctx(), '/items/articles?fields=id&sort=sections.item:headings.title,id')).to.deep.equal([
      1, 2, 3, 4,
    ]);
    expect(await adminIds(ctx(), '/items/articles?fields=id&sort=-sections.item:headings.title,id')).to.deep.equal([
      3, 4, 1, 2,
    ]);
    expect(await adminIds(ctx(), '/items/articles?fields=id&sort=-sections.item:headings.level,id')).to.deep.equal([
      3, 4, 1, 2,
    ]);
    const unscoped = await errorOf(adminRead(ctx(), '/items/articles?sort=sections.item.title'));
    expect(unscoped).to.deep.equal({
      status: 400,
      code: 'INVALID_QUERY',
      reason: 'Invalid sort field "sections.item.title" on "articles_sections"',
    });
    const outside = await errorOf(adminRead(ctx(), '/items/articles?sort=sections.item:comments.text'));
    expect(outside.status).to.equal(400);
    expect(outside.code).to.equal('INVALID_QUERY');
  });

  it('limit, offset and meta counts are those of the parents, never of the joined rows', async () => {
    const res = await adminRead(
      ctx(),
      '/items/articles?fields=id&sort=categories.categories_id.name,id&limit=2&offset=1&meta=*',
    );
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ data: [{ id: 3 }, { id: 2 }], meta: { total_count: 4, filter_count: 4 } });
    const all = await adminIds(ctx(), '/items/articles?fields=id&sort=comments.text&limit=-1');
    expect(all).to.deep.equal([1, 2, 3, 4]);
    const paged = await adminIds(
      ctx(),
      '/items/articles?fields=id&sort=-sections.item:headings.title,id&limit=1&page=3',
    );
    expect(paged).to.deep.equal([1]);
  });

  it('the same order in a nested list (deep _sort) and through SEARCH', async () => {
    const nested = (await adminData(
      ctx(),
      '/items/authors?fields=id,articles.id&filter[id][_eq]=1&deep[articles][_sort]=-categories.categories_id.name,id',
    )) as { articles: { id: number }[] }[];
    expect(nested[0]?.articles.map((a) => a.id)).to.deep.equal([1, 3]);
    const searched = await adminData(ctx(), '/items/articles', {
      query: { fields: ['id'], sort: ['-categories.categories_id.name', 'id'] },
    });
    expect(searched).to.deep.equal([{ id: 4 }, { id: 1 }, { id: 2 }, { id: 3 }]);
  });

  it('GraphQL sorts the same way', async () => {
    const data = await graphqlData(ctx(), '{ articles(sort: ["-categories.categories_id.name", "id"]) { id } }');
    expect(data['articles']).to.deep.equal([{ id: '4' }, { id: '1' }, { id: '2' }, { id: '3' }]);
    const m2a = await graphqlData(ctx(), '{ articles(sort: ["sections.item:headings.title", "id"], limit: 2) { id } }');
    expect(m2a['articles']).to.deep.equal([{ id: '1' }, { id: '2' }]);
  });

  it('a role: related rows it may not read do not count; fields it may not read are refused as in a filter', async () => {
    // The role cannot see the "news" category: article 1 sorts by tech, article 3 by nothing.
    const asc = await call(
      ctx(),
      reader.token,
      'GET',
      '/items/articles?fields=id&sort=categories.categories_id.name,id',
    );
    expect(idsOf(asc)).to.deep.equal([1, 2, 3, 4]);
    for (const path of ['sort=comments.text', 'filter[comments][text][_eq]=d1']) {
      expectForbidden(await call(ctx(), reader.token, 'GET', `/items/articles?fields=id&${path}`));
    }
    expectForbidden(
      await call(ctx(), reader.token, 'GET', '/items/articles?fields=id&sort=sections.item:headings.title'),
    );
    const gql = await graphql(ctx(), '{ articles(sort: ["comments.text"]) { id } }', { token: reader.token });
    expect(gql.body.errors?.[0]?.extensions['code']).to.equal('FORBIDDEN');
    // Comments it may read but not their text: sorting by their keys is allowed.
    expect(idsOf(await call(ctx(), reader.token, 'GET', '/items/articles?fields=id&sort=-comments.id'))).to.deep.equal([
      4, 3, 2, 1,
    ]);
  });
});
