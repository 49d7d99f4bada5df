import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { ARTICLE_TABLES, adminApi, countRows, createCommandSchema, dataOf, errorsOf } from './schema.js';

type Row = Record<string, unknown>;

/*
 * PATCH of many items with a new related object (Directus 10, ItemsService.updateMany): the
 * many-to-one item is created once and every item is linked to it; MAX_BATCH_MUTATION counts
 * the keys and that one item, not one item per key.
 */
describeEachDatabase(
  'PATCH by keys or query with a new many-to-one object: one related item for all',
  (ctx) => {
    const db = () => ctx().server.db;
    const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
    let ids: number[] = [];

    before(async () => {
      await createCommandSchema(ctx());
    });

    beforeEach(async () => {
      const payload = ['one', 'two', 'three', 'four'].map((title) => ({ title }));
      ids = dataOf<Row[]>(await api('POST', '/items/articles?fields=id', payload)).map((a) => Number(a['id']));
    });

    afterEach(async () => {
      await db()('comments').delete();
      await db()('articles').delete();
      await db()('authors').delete();
    });

    async function authorsOf(keys: readonly number[]): Promise<unknown[]> {
      const rows = await db()('articles').whereIn('id', keys).orderBy('id').select<Row[]>('author');
      return rows.map((row) => row['author']);
    }

    it('by keys: one author is created and every item points at it; its revision is a child of the first item', async () => {
      const keys = ids.slice(0, 3);
      const since = Number((await db()('svc_revisions').max({ id: 'id' }).first<{ id: number | null }>())?.id ?? 0);
      dataOf(await api('PATCH', '/items/articles', { keys, data: { author: { name: 'New' } } }));
      const authors = await db()('authors').select<Row[]>('id', 'name');
      expect(authors.map((a) => a['name'])).to.deep.equal(['New']);
      const id = Number(authors[0]?.['id']);
      expect((await authorsOf(keys)).map(Number)).to.deep.equal([id, id, id]);
      expect((await authorsOf(ids.slice(3))).map((a) => a ?? null)).to.deep.equal([null]);

      const revisions = await db()('svc_revisions').where('id', '>', since).orderBy('id').select<Row[]>('*');
      const created = revisions.filter((r) => r['collection'] === 'authors');
      const updated = revisions.filter((r) => r['collection'] === 'articles');
      expect(created).to.have.length(1);
      expect(updated.map((r) => Number(r['item'])).sort((a, b) => a - b)).to.deep.equal(keys);
      const first = updated.find((r) => Number(r['item']) === keys[0]);
      expect(Number(created[0]?.['parent'])).to.equal(Number(first?.['id']));
    });

    it('by query, and with one-to-many items as well: still one author, the o2m items written per item', async () => {
      dataOf(
        await api('PATCH', '/items/articles', {
          query: { filter: { title: { _in: ['one', 'two'] } } },
          data: { author: { name: 'Both' }, comments: [{ text: 'hi' }] },
        }),
      );
      const authors = await db()('authors').select<Row[]>('id', 'name');
      expect(authors.map((a) => a['name'])).to.deep.equal(['Both']);
      const id = Number(authors[0]?.['id']);
      expect((await authorsOf(ids.slice(0, 2))).map(Number)).to.deep.equal([id, id]);
      const comments = await db()('comments').orderBy('article').select<Row[]>('article', 'text');
      expect(comments.map((c) => [Number(c['article']), c['text']])).to.deep.equal([
        [ids[0], 'hi'],
        [ids[1], 'hi'],
      ]);
    });

    it('MAX_BATCH_MUTATION counts the keys and the one related item: 4 keys + 1 pass a limit of 5, 4 + 1 + 4 comments do not', async () => {
      dataOf(await api('PATCH', '/items/articles', { keys: ids, data: { author: { name: 'Four' } } }));
      const before = await countRows(db(), ARTICLE_TABLES);
      const data = { author: { name: 'Again' }, comments: [{ text: 'one each' }] };
      expect(errorsOf(await api('PATCH', '/items/articles', { keys: ids, data }), 400)).to.deep.equal([
        ['INVALID_PAYLOAD', { reason: 'Exceeded max batch mutation limit of 5' }],
      ]);
      expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
    });
  },
  { env: { MAX_BATCH_MUTATION: '5' } },
);
