import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { createQueryFixture } from './fixture-schema.js';
import { adminData, adminIds, adminRead, errorOf } from './read-client.js';

// Sorts, groups, functions and filters that depend on a field's type answer alike on every
// database: what one database cannot do is refused everywhere (400), never a 500 on one.
describeEachDatabase('read: operations that depend on the field type', (ctx) => {
  before(async () => {
    await createQueryFixture(ctx());
  });

  describe('json fields sort, group and count distinct as their text', () => {
    it('on an items collection: sort (also through a relation), groupBy, countDistinct', async () => {
      // Articles 1 {"a":[1,2]}, 2 [1,2,3], 3 and 4 null; NULLs sort as largest.
      expect(await adminIds(ctx(), '/items/articles?fields=id&sort=data,id')).to.deep.equal([2, 1, 3, 4]);
      expect(await adminIds(ctx(), '/items/articles?fields=id&sort=-data,id')).to.deep.equal([3, 4, 1, 2]);
      expect(await adminIds(ctx(), '/items/comments?fields=id&sort=article.data,id')).to.deep.equal([4, 1, 2, 3, 5]);
      expect(
        await adminData(ctx(), '/items/authors?fields=id,articles&sort=id&deep[articles][_sort]=data'),
      ).to.deep.equal([
        { id: 1, articles: [1, 3] },
        { id: 2, articles: [2] },
        { id: 3, articles: [] },
      ]);
      expect(await adminData(ctx(), '/items/articles?aggregate[count]=*&groupBy[]=data')).to.deep.equal([
        { data: [1, 2, 3], count: 1 },
        { data: { a: [1, 2] }, count: 1 },
        { data: null, count: 2 },
      ]);
      expect(await adminData(ctx(), '/items/articles?aggregate[count]=*&groupBy[]=data&sort=-data')).to.deep.equal([
        { data: null, count: 2 },
        { data: { a: [1, 2] }, count: 1 },
        { data: [1, 2, 3], count: 1 },
      ]);
      expect(await adminData(ctx(), '/items/articles?aggregate[countDistinct]=data')).to.deep.equal([
        { countDistinct: { data: 2 } },
      ]);
      // An aggregate sorts on its outputs only, whatever the field's type.
      for (const field of ['data', 'title']) {
        expect(await errorOf(adminRead(ctx(), `/items/articles?aggregate[count]=*&sort=${field}`))).to.deep.equal({
          status: 400,
          code: 'INVALID_QUERY',
          reason: `Invalid sort field "${field}" on "articles"`,
        });
      }
    });

    it('on system collections: revisions, permissions and presets', async () => {
      const db = ctx().server.db;
      await db('svc_presets').insert([
        { collection: 'articles', layout_query: JSON.stringify({ tabular: { page: 2 } }), filter: null },
        { collection: 'articles', layout_query: JSON.stringify({ tabular: { page: 1 } }), filter: '{"id":{"_eq":1}}' },
        { collection: 'comments', layout_query: JSON.stringify({ tabular: { page: 1 } }), filter: '{"id":{"_eq":1}}' },
      ]);
      for (const title of ['First', 'Second']) {
        const res = await ctx().api('/items/categories', {
          method: 'POST',
          headers: { Authorization: 'Bearer test-admin-static-token', 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: title }),
        });
        expect(res.status).to.equal(200);
      }
      const revisions = (await adminData(ctx(), '/revisions?fields=data&sort=-data')) as { data: { name: string } }[];
      expect(revisions.map((r) => r.data.name)).to.deep.equal(['Second', 'First']);
      expect(await adminData(ctx(), '/revisions?aggregate[countDistinct]=data')).to.deep.equal([
        { countDistinct: { data: 2 } },
      ]);
      expect(await adminData(ctx(), '/permissions?fields=id&sort=permissions')).to.be.an('array');
      const presets = (await adminData(ctx(), '/presets?fields=collection,filter&sort=filter,collection')) as unknown[];
      expect(presets).to.deep.equal([
        { collection: 'articles', filter: { id: { _eq: 1 } } },
        { collection: 'comments', filter: { id: { _eq: 1 } } },
        { collection: 'articles', filter: null },
      ]);
      expect(await adminData(ctx(), '/presets?aggregate[count]=*&groupBy[]=layout_query')).to.deep.equal([
        { layout_query: { tabular: { page: 1 } }, count: 2 },
        { layout_query: { tabular: { page: 2 } }, count: 1 },
      ]);
    });
  });

  describe('date functions apply to the temporal types that have the part (Directus 10)', () => {
    it('date: year, month, week, day, weekday; time: hour, minute, second', async () => {
      expect(
        await adminData(
          ctx(),
          '/items/articles?fields=id,year(published_on),weekday(published_on),hour(starts),minute(starts)&filter[id][_in]=1,2&sort=id',
        ),
      ).to.deep.equal([
        { id: 1, published_on_year: 2024, published_on_weekday: 1, starts_hour: 8, starts_minute: 30 },
        { id: 2, published_on_year: 2023, published_on_weekday: 4, starts_hour: 9, starts_minute: 0 },
      ]);
      expect(await adminIds(ctx(), '/items/articles?fields=id&filter[hour(starts)][_eq]=9')).to.deep.equal([2]);
      expect(
        await adminData(
          ctx(),
          '/items/articles?aggregate[count]=*&groupBy[]=month(published_on)&sort=-count,published_on_month',
        ),
      ).to.deep.equal([
        { published_on_month: null, count: 2 },
        { published_on_month: 1, count: 1 },
        { published_on_month: 6, count: 1 },
      ]);
    });

    it('refuses the others with 400 INVALID_QUERY, in fields, filter, groupBy and sort', async () => {
      const refused = [
        ['year', 'starts'],
        ['weekday', 'starts'],
        ['hour', 'published_on'],
        ['second', 'published_on'],
      ] as const;
      for (const [fn, field] of refused) {
        const key = `${fn}(${field})`;
        for (const qs of [
          `fields=${key}`,
          `filter[${key}][_eq]=2000`,
          `aggregate[count]=*&groupBy[]=${key}`,
          `fields=id&sort=${key}`,
        ]) {
          expect(await errorOf(adminRead(ctx(), `/items/articles?${qs}`)), qs).to.deep.equal({
            status: 400,
            code: 'INVALID_QUERY',
            reason: `"${fn}" can't be applied to "${field}" on "articles"`,
          });
        }
      }
    });
  });

  it('groups by a count of related rows (m2m and o2m)', async () => {
    expect(await adminData(ctx(), '/items/articles?aggregate[count]=*&groupBy[]=count(categories)')).to.deep.equal([
      { categories_count: 0, count: 1 },
      { categories_count: 1, count: 2 },
      { categories_count: 2, count: 1 },
    ]);
    expect(
      await adminData(
        ctx(),
        '/items/articles?aggregate[count]=*&groupBy[]=count(comments),status&filter[status][_neq]=archived&sort=-comments_count,status',
      ),
    ).to.deep.equal([
      { comments_count: 3, status: 'published', count: 1 },
      { comments_count: 1, status: 'draft', count: 1 },
      { comments_count: 1, status: 'published', count: 1 },
    ]);
  });

  describe('long _in and _nin lists (under the 1 MB body limit)', () => {
    const search = (filter: unknown, extra: Record<string, unknown> = {}) =>
      adminData(ctx(), '/items/articles', { query: { fields: ['id'], sort: ['id'], filter, ...extra } });
    const range = (count: number, from = 0) => Array.from({ length: count }, (_, i) => from + i);

    it('100,000 integer keys, in a filter and as SEARCH keys', async () => {
      expect(await search({ id: { _in: range(100_000) } })).to.deep.equal([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }]);
      expect(await search({ id: { _nin: range(100_000, 2) } })).to.deep.equal([{ id: 1 }]);
      const keys = await adminData(ctx(), '/items/articles', { keys: range(100_000, 3), query: { fields: ['id'] } });
      expect(keys).to.deep.equal([{ id: 3 }, { id: 4 }]);
    });

    it('70,000 strings, and lists of big integers, dates and date parts', async () => {
      const titles = [...range(70_000).map((i) => `title ${i}`), 'Hello world'];
      expect(await search({ title: { _in: titles } })).to.deep.equal([{ id: 1 }]);
      expect(await search({ title: { _nin: titles }, status: { _neq: 'archived' } })).to.deep.equal([
        { id: 2 },
        { id: 3 },
      ]);
      const bigs = [...range(5_000, 1_000_000).map(String), '9007199254740993'];
      expect(await search({ big: { _in: bigs } })).to.deep.equal([{ id: 1 }]);
      const days = range(2_000).map((i) => new Date(Date.UTC(2023, 6, 1 + i)).toISOString().slice(0, 10));
      expect(days).to.include('2024-01-15');
      expect(await search({ published_on: { _in: days } })).to.deep.equal([{ id: 1 }]);
      expect(await search({ 'year(published)': { _in: range(5_000) } })).to.deep.equal([{ id: 1 }, { id: 2 }]);
    });
  });
});
