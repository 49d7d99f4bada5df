import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { createQueryFixture } from './fixture-schema.js';
import { adminData, statementsDuring } from './read-client.js';

describeEachDatabase('read: relations, deep, alias', (ctx) => {
  before(async () => {
    await createQueryFixture(ctx());
  });

  it('m2o at depth 3: comment → article → author → country', async () => {
    const data = await adminData(ctx(), '/items/comments?fields=id,article.author.country.name&filter[id][_in]=1,4');
    expect(data).to.deep.equal([
      { id: 1, article: { author: { country: { name: 'Netherlands' } } } },
      { id: 4, article: { author: { country: { name: 'Germany' } } } },
    ]);
  });

  it('m2o without subfields is the key; a missing related row is null', async () => {
    const data = await adminData(ctx(), '/items/articles?fields=id,author,author.name&filter[id][_in]=3,4');
    expect(data).to.deep.equal([
      { id: 3, author: { name: 'Ann' } },
      { id: 4, author: null },
    ]);
    expect(await adminData(ctx(), '/items/articles?fields=author&filter[id][_eq]=2')).to.deep.equal([{ author: 2 }]);
    const noCountry = await adminData(ctx(), '/items/authors?fields=name,country.name&filter[id][_eq]=3');
    expect(noCountry).to.deep.equal([{ name: 'Cid', country: null }]);
  });

  it('o2m at depth 3: country → authors → articles → comments', async () => {
    const data = await adminData(
      ctx(),
      '/items/countries?fields=code,authors.name,authors.articles.id,authors.articles.comments.text',
    );
    expect(data).to.deep.equal([
      {
        code: 'NL',
        authors: [
          {
            name: 'Ann',
            articles: [
              { id: 1, comments: [{ text: 'c1 good' }, { text: 'c2 spam' }, { text: 'c3 good' }] },
              { id: 3, comments: [{ text: 'e1 good' }] },
            ],
          },
        ],
      },
      { code: 'DE', authors: [{ name: 'Bob', articles: [{ id: 2, comments: [{ text: 'd1' }] }] }] },
    ]);
  });

  it('o2m without subfields lists the related keys, [] when none', async () => {
    const data = await adminData(ctx(), '/items/articles?fields=id,comments,categories,sections&sort=id');
    expect(data).to.deep.equal([
      { id: 1, comments: [1, 2, 3], categories: [1, 2], sections: [2, 1, 3] },
      { id: 2, comments: [4], categories: [3], sections: [4] },
      { id: 3, comments: [5], categories: [4], sections: [] },
      { id: 4, comments: [], categories: [], sections: [] },
    ]);
  });

  it('m2m at depth 3 (through the junction row): country → authors → articles → categories', async () => {
    const data = await adminData(
      ctx(),
      '/items/countries?fields=code,authors.articles.categories.categories_id.name&filter[code][_eq]=NL',
    );
    expect(data).to.deep.equal([
      {
        code: 'NL',
        authors: [
          {
            articles: [
              { categories: [{ categories_id: { name: 'news' } }, { categories_id: { name: 'tech' } }] },
              { categories: [{ categories_id: { name: 'news' } }] },
            ],
          },
        ],
      },
    ]);
  });

  it('m2a at depth 3, scoped per collection; unscoped collections give the raw key', async () => {
    const data = await adminData(
      ctx(),
      '/items/countries?fields=code,authors.articles.sections.collection,authors.articles.sections.item:headings.title&filter[code][_eq]=NL',
    );
    expect(data).to.deep.equal([
      {
        code: 'NL',
        authors: [
          {
            articles: [
              {
                sections: [
                  { collection: 'texts', item: '1' },
                  { collection: 'headings', item: { title: 'H1' } },
                  { collection: 'headings', item: { title: 'H2' } },
                ],
              },
              { sections: [] },
            ],
          },
        ],
      },
    ]);
  });

  it('m2a with item.* reads every allowed collection; item alone is the stored key', async () => {
    const all = await adminData(ctx(), '/items/articles?fields=sections.item.*&filter[id][_eq]=1');
    expect(all).to.deep.equal([
      {
        sections: [
          { item: { id: 1, body: 'T1 body' } },
          { item: { id: 1, level: 1, title: 'H1' } },
          { item: { id: 2, level: 2, title: 'H2' } },
        ],
      },
    ]);
    const raw = await adminData(ctx(), '/items/articles?fields=sections.item,sections.collection&filter[id][_eq]=2');
    expect(raw).to.deep.equal([{ sections: [{ item: '2', collection: 'headings' }] }]);
  });

  it('deep filters, sorts and windows nested lists without removing parents', async () => {
    const data = await adminData(
      ctx(),
      '/items/articles?fields=id,comments.text&sort=id&filter[id][_in]=1,2&deep[comments][_filter][text][_contains]=good&deep[comments][_sort]=-id&deep[comments][_limit]=1&deep[comments][_offset]=1',
    );
    expect(data).to.deep.equal([
      { id: 1, comments: [{ text: 'c1 good' }] },
      { id: 2, comments: [] },
    ]);
  });

  it('deep reaches through m2m junctions and filters m2o rows to null', async () => {
    const deep = encodeURIComponent(
      JSON.stringify({
        categories: { _limit: 5, categories_id: { _filter: { name: { _eq: 'tech' } } } },
        author: { _filter: { name: { _eq: 'Bob' } } },
      }),
    );
    const data = await adminData(
      ctx(),
      `/items/articles?fields=id,author.name,categories.categories_id.name&filter[id][_eq]=1&deep=${deep}`,
    );
    expect(data).to.deep.equal([
      { id: 1, author: null, categories: [{ categories_id: null }, { categories_id: { name: 'tech' } }] },
    ]);
  });

  it('deep _page and _search apply per nested list', async () => {
    const data = await adminData(
      ctx(),
      '/items/articles?fields=comments.id&filter[id][_eq]=1&deep[comments][_limit]=2&deep[comments][_page]=2',
    );
    expect(data).to.deep.equal([{ comments: [{ id: 3 }] }]);
    const searched = await adminData(
      ctx(),
      '/items/articles?fields=comments.id&filter[id][_eq]=1&deep[comments][_search]=spam',
    );
    expect(searched).to.deep.equal([{ comments: [{ id: 2 }] }]);
  });

  it('alias reads a field (or a relation with its own deep) under a new key', async () => {
    const data = await adminData(
      ctx(),
      '/items/articles?alias[headline]=title&alias[top]=comments&alias[last]=comments&fields=id,headline,top.text,last.text&deep[top][_limit]=1&deep[last][_sort]=-id&deep[last][_limit]=1&filter[id][_eq]=1',
    );
    expect(data).to.deep.equal([
      { id: 1, headline: 'Hello world', top: [{ text: 'c1 good' }], last: [{ text: 'c3 good' }] },
    ]);
  });

  it('*.* expands one level of every relation; functions read as <field>_<fn>', async () => {
    const [comment] = (await adminData(ctx(), '/items/comments?fields=*.*&filter[id][_eq]=4')) as Record<
      string,
      unknown
    >[];
    expect(comment?.['text']).to.equal('d1');
    expect(comment?.['author']).to.deep.include({ id: 1, name: 'Ann', country: 1, articles: [1, 3] });
    expect(comment?.['article']).to.deep.include({ id: 2, title: 'Second thoughts', comments: [4] });
    const functions = await adminData(
      ctx(),
      '/items/articles?fields=id,year(published),month(published_on),weekday(published_on),count(comments),count(tags)&sort=id&limit=2',
    );
    expect(functions).to.deep.equal([
      { id: 1, published_year: 2024, published_on_month: 1, published_on_weekday: 1, comments_count: 3, tags_count: 2 },
      { id: 2, published_year: 2023, published_on_month: 6, published_on_weekday: 4, comments_count: 1, tags_count: 1 },
    ]);
  });

  it('sorts by m2o paths and functions', async () => {
    const data = await adminData(ctx(), '/items/articles?fields=id&filter[author][_nnull]=true&sort=-author.name,id');
    expect(data).to.deep.equal([{ id: 2 }, { id: 1 }, { id: 3 }]);
    const byYear = await adminData(
      ctx(),
      '/items/articles?fields=id&filter[published][_nnull]=true&sort=year(published)',
    );
    expect(byYear).to.deep.equal([{ id: 2 }, { id: 1 }]);
  });

  it('a nested read of every relation kind at depth 3 is ONE statement', async () => {
    // Warm the schema cache, so only the read itself is counted.
    await adminData(ctx(), '/items/countries?fields=id&limit=1');
    const path =
      '/items/countries?fields=code,authors.articles.comments.author.name,authors.articles.categories.categories_id.name,authors.articles.sections.item:headings.title,authors.articles.author.country.code&filter[authors][articles][comments][text][_contains]=good&deep[authors][articles][comments][_limit]=2';
    let body: unknown;
    const statements = await statementsDuring(ctx(), async (token) => {
      const res = await ctx().api(path, { headers: { Authorization: `Bearer ${token}` } });
      expect(res.status).to.equal(200);
      body = await res.json();
    });
    expect(statements, statements.join('\n')).to.have.length(1);
    const [nl] = (body as { data: Record<string, unknown>[] }).data;
    expect(nl?.['code']).to.equal('NL');
    expect(JSON.stringify(nl)).to.contain('"categories_id":{"name":"tech"}').and.contain('"item":{"title":"H2"}');
  });

  it('meta is one more statement; by-key reads are one statement', async () => {
    await adminData(ctx(), '/items/articles/1?fields=id');
    const statements = await statementsDuring(ctx(), async (token) => {
      const headers = { Authorization: `Bearer ${token}` };
      expect((await ctx().api('/items/articles?fields=id,comments.text&meta=*', { headers })).status).to.equal(200);
      expect((await ctx().api('/items/articles/1?fields=id,comments.text,author.name', { headers })).status).to.equal(
        200,
      );
    });
    expect(statements).to.have.length(3);
  });
});
