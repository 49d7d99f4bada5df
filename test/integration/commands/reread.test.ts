import { expect } from 'chai';
import { publicAccountability } from '../../../src/access/accountability.js';
import { PermissionStore } from '../../../src/access/permission-store.js';
import { ItemsService } from '../../../src/items/items-service.js';
import { testConfig } from '../../support/server.js';
import { describeEachDatabase } from '../../support/server.js';
import { adminApi, createCommandSchema, dataOf, errorsOf } from './schema.js';

type Row = Record<string, unknown>;

describeEachDatabase('written items re-read through the read side', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);

  before(async () => {
    await createCommandSchema(ctx());
  });

  it('POST answers the created item shaped by the caller’s fields, nested relations included', async () => {
    const item = dataOf<Row>(
      await api('POST', '/items/articles?fields=title,author.name,comments.text,tags.tags_id.label', {
        title: 'Shaped',
        author: { name: 'Ada' },
        comments: [{ text: 'one' }, { text: 'two' }],
        tags: [{ tags_id: { label: 'news' } }],
      }),
    );
    expect(item).to.deep.equal({
      title: 'Shaped',
      author: { name: 'Ada' },
      comments: [{ text: 'one' }, { text: 'two' }],
      tags: [{ tags_id: { label: 'news' } }],
    });
  });

  it('without fields the whole item comes back, typed as reads type it', async () => {
    const item = dataOf<Row>(await api('POST', '/items/articles', { title: 'Plain', views: '5' }));
    expect(item).to.include({ title: 'Plain', views: 5, status: 'draft', author: null });
    expect(item['comments']).to.deep.equal([]);
    // SQLite declares knex timestamps as datetime, which the catalogue reads as dateTime (no zone)
    expect(item['date_created']).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z?$/);
    expect(Date.parse(`${String(item['date_created']).replace(/Z$/, '')}Z`)).to.be.closeTo(Date.now(), 60_000);
  });

  it('POST of an array and PATCH by keys answer the items in input order', async () => {
    const created = dataOf<Row[]>(
      await api('POST', '/items/articles?fields=id,title', [{ title: 'A' }, { title: 'B' }]),
    );
    expect(created.map((r) => r['title'])).to.deep.equal(['A', 'B']);
    const keys = created.map((r) => r['id']).reverse();
    const updated = dataOf<Row[]>(await api('PATCH', '/items/articles?fields=title', { keys, data: { views: 1 } }));
    expect(updated).to.deep.equal([{ title: 'B' }, { title: 'A' }]);
  });

  it('PATCH /items/:c/:id and the singleton answer one item', async () => {
    const { id } = dataOf<Row>(await api('POST', '/items/articles', { title: 'One' }));
    expect(
      dataOf<Row>(await api('PATCH', `/items/articles/${String(id)}?fields=title`, { title: 'Uno' })),
    ).to.deep.equal({ title: 'Uno' });
    expect(dataOf<Row>(await api('PATCH', '/items/home?fields=headline', { headline: 'Hi' }))).to.deep.equal({
      headline: 'Hi',
    });
  });

  it('a malformed query string fails before anything is written', async () => {
    const before = await db()('articles').count({ n: '*' }).first<{ n: unknown }>();
    expect(errorsOf(await api('POST', '/items/articles?limit=abc', { title: 'Never' }), 400)[0]?.[0]).to.equal(
      'INVALID_QUERY',
    );
    expect(await db()('articles').count({ n: '*' }).first<{ n: unknown }>()).to.deep.equal(before);
  });

  it('a re-read the caller may not make answers nothing (the route then answers 204)', async () => {
    const { id } = dataOf<Row>(await api('POST', '/items/articles', { title: 'Hidden' }));
    const overview = await ctx().server.schema.getOverview();
    const articles = overview.collections['articles'];
    if (articles === undefined) throw new Error('articles missing');
    const caller = publicAccountability({ ip: null, userAgent: null, origin: null });
    const config = testConfig(ctx().database);
    const permissions = new PermissionStore(db(), { enabled: false });
    const schema = ctx().server.schema;
    const invalidation = { changed: () => Promise.resolve() };
    const items = new ItemsService(
      articles.collection,
      { config, db: db(), permissions, schema, invalidation },
      {
        accountability: caller,
      },
    );
    expect(await items.readWritten([id as number], {}, 'one')).to.equal(null);
  });

  describe('writes by query', () => {
    it('PATCH {query, data} updates what the query selects, within its limit', async () => {
      const created = dataOf<Row[]>(
        await api('POST', '/items/articles', [
          { title: 'q', views: 1 },
          { title: 'q', views: 2 },
          { title: 'q', views: 3 },
        ]),
      );
      const updated = dataOf<Row[]>(
        await api('PATCH', '/items/articles?fields=views', {
          query: { filter: { title: { _eq: 'q' } }, sort: ['-views'], limit: 2 },
          data: { status: 'published' },
        }),
      );
      expect(updated).to.deep.equal([{ views: 3 }, { views: 2 }]);
      const statuses = await db()('articles')
        .whereIn(
          'id',
          created.map((r) => Number(r['id'])),
        )
        .orderBy('id')
        .select<Row[]>('status');
      expect(statuses.map((r) => r['status'])).to.deep.equal(['draft', 'published', 'published']);
    });

    it('DELETE {query} deletes what the query selects', async () => {
      dataOf(await api('POST', '/items/articles', [{ title: 'del me' }, { title: 'del me' }, { title: 'keep me' }]));
      expect(
        (await api('DELETE', '/items/articles', { query: { filter: { title: { _eq: 'del me' } } } })).status,
      ).to.equal(204);
      expect(await db()('articles').where({ title: 'del me' })).to.deep.equal([]);
      expect(await db()('articles').where({ title: 'keep me' })).to.have.length(1);
    });

    it('an invalid query in the body is INVALID_QUERY and changes nothing', async () => {
      const result = await api('PATCH', '/items/articles', { query: { limit: 'many' }, data: { title: 'x' } });
      expect(errorsOf(result, 400)[0]?.[0]).to.equal('INVALID_QUERY');
      expect(await db()('articles').where({ title: 'x' })).to.deep.equal([]);
    });
  });
});
