import { expect } from 'chai';
import { verifyPassword } from '../../../src/access/passwords.js';
import { describeEachDatabase } from '../../support/server.js';
import { adminApi, createCommandSchema, dataOf, errorsOf } from './schema.js';

type Row = Record<string, unknown>;

describeEachDatabase('sort and revert', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);

  before(async () => {
    await createCommandSchema(ctx());
  });

  describe('POST /utils/sort/:collection', () => {
    const sorts = async (): Promise<Record<string, number>> => {
      const rows = await db()('steps').orderBy('id').select<Row[]>('id', 'sort');
      return Object.fromEntries(rows.map((r) => [String(r['id']), Number(r['sort'])]));
    };

    beforeEach(async () => {
      await db()('steps').delete();
    });

    it('numbers unsorted rows in key order, then moves the item down to the target, shifting the rows between', async () => {
      await db()('steps').insert([1, 2, 3, 5].map((id) => ({ id, name: `s${id}`, sort: null })));
      const activityBefore = await db()('svc_activity').count({ n: '*' }).first<{ n: unknown }>();
      const res = await api('POST', '/utils/sort/steps', { item: 1, to: 3 });
      expect(res.status).to.equal(200);
      expect(res.body).to.equal(undefined);
      expect(await sorts()).to.deep.equal({ 1: 3, 2: 1, 3: 2, 5: 4 });
      // no activity or revision rows
      expect(await db()('svc_activity').count({ n: '*' }).first<{ n: unknown }>()).to.deep.equal(activityBefore);
    });

    it('moves an item up: it takes the target place and the rows between move down', async () => {
      await db()('steps').insert([1, 2, 3, 4].map((id) => ({ id, name: `s${id}`, sort: id })));
      dataOf(await api('POST', '/utils/sort/steps', { item: 4, to: 2 }), 200);
      expect(await sorts()).to.deep.equal({ 1: 1, 2: 3, 3: 4, 4: 2 });
    });

    it('renumbers duplicated sort values 1..n first', async () => {
      await db()('steps').insert([
        { id: 1, sort: 5 },
        { id: 2, sort: 5 },
        { id: 3, sort: 1 },
      ]);
      dataOf(await api('POST', '/utils/sort/steps', { item: '3', to: '2' }), 200);
      // renumbered by (sort, key): 3→1, 1→2, 2→3; then 3 moves to 2's place (3), 1 and 2 shift down
      expect(await sorts()).to.deep.equal({ 1: 1, 2: 2, 3: 3 });
    });

    it('a collection without sort field is INVALID_PAYLOAD; missing keys are INVALID_PAYLOAD; missing items FORBIDDEN', async () => {
      expect(errorsOf(await api('POST', '/utils/sort/articles', { item: 1, to: 2 }), 400)).to.deep.equal([
        ['INVALID_PAYLOAD', { reason: 'Collection "articles" doesn\'t have a sort field' }],
      ]);
      expect(errorsOf(await api('POST', '/utils/sort/steps', { item: 1 }), 400)).to.deep.equal([
        ['INVALID_PAYLOAD', { reason: '"to" is required' }],
      ]);
      await db()('steps').insert([{ id: 1, sort: 1 }]);
      errorsOf(await api('POST', '/utils/sort/steps', { item: 1, to: 99 }), 403);
      errorsOf(await api('POST', '/utils/sort/nothing_here', { item: 1, to: 2 }), 403);
    });
  });

  describe('POST /utils/revert/:revision', () => {
    const revisionsOf = async (collection: string, item: unknown) =>
      (
        await db()('svc_revisions')
          .where({ collection, item: String(item) })
          .orderBy('id')
          .select<Row[]>('id')
      ).map((r) => Number(r['id']));

    it("applies the revision's data back as an audited update, answering 204", async () => {
      const { id } = dataOf<Row>(await api('POST', '/items/articles', { title: 'Original', views: 1 }));
      dataOf(await api('PATCH', `/items/articles/${String(id)}`, { title: 'Edited', views: 2 }));
      const [created, edited] = await revisionsOf('articles', id);
      const res = await api('POST', `/utils/revert/${String(created)}`);
      expect(res.status).to.equal(204);
      expect(res.body).to.equal(undefined);
      expect(await db()('articles').where({ id }).first<Row>('title', 'views')).to.deep.include({ title: 'Original' });
      expect(Number((await db()('articles').where({ id }).first<Row>('views'))['views'])).to.equal(1);
      const after = await revisionsOf('articles', id);
      expect(after).to.have.length(3);
      expect(after.slice(0, 2)).to.deep.equal([created, edited]);
      const activity = await db()('svc_revisions as r')
        .join('svc_activity as a', 'a.id', 'r.activity')
        .where('r.id', after[2])
        .first<Row>('a.action');
      expect(activity['action']).to.equal('update');
    });

    it('re-sets one-to-many relations from the arrays in data; rows deleted since are skipped', async () => {
      const { id } = dataOf<Row>(
        await api('POST', '/items/articles', {
          title: 'Set',
          comments: [{ text: 'a' }, { text: 'b' }],
          tags: [{ tags_id: { label: 'x' } }],
        }),
      );
      const [a] = await db()('comments').where({ article: id }).orderBy('id').select<Row[]>('id');
      dataOf(await api('PATCH', `/items/articles/${String(id)}`, { comments: [a?.['id']], tags: [] }));
      expect(await db()('comments').where({ article: id })).to.have.length(1);
      const [created] = await revisionsOf('articles', id);
      expect((await api('POST', `/utils/revert/${String(created)}`)).status).to.equal(204);
      expect(
        (await db()('comments').where({ article: id }).orderBy('id').select<Row[]>('text')).map((c) => c['text']),
      ).to.deep.equal(['a', 'b']);
      // the junction row was deleted by the update (deselect delete): it cannot come back
      expect(await db()('articles_tags').where({ articles_id: id })).to.deep.equal([]);
    });

    it('keeps a hash field whose revision value is masked', async () => {
      const { id } = dataOf<Row>(await api('POST', '/items/gadgets', { name: 'g', note: 'first', secret: 'keep me' }));
      dataOf(await api('PATCH', `/items/gadgets/${String(id)}`, { note: 'second' }));
      const [created] = await revisionsOf('gadgets', id);
      expect((await api('POST', `/utils/revert/${String(created)}`)).status).to.equal(204);
      const row = await db()('gadgets').where({ id }).first<Row>('note', 'secret');
      expect(row['note']).to.equal('first');
      expect(await verifyPassword(String(row['secret']), 'keep me')).to.equal(true);
    });

    it('an unknown revision is FORBIDDEN; a revision without data is INVALID_PAYLOAD', async () => {
      errorsOf(await api('POST', '/utils/revert/999999'), 403);
      errorsOf(await api('POST', '/utils/revert/abc'), 403);
      const { id } = dataOf<Row>(await api('POST', '/items/authors', { name: 'empty' }));
      const [revision] = await revisionsOf('authors', id);
      await db()('svc_revisions')
        .where({ id: revision })
        .update({ data: JSON.stringify({}) });
      expect(errorsOf(await api('POST', `/utils/revert/${String(revision)}`), 400)).to.deep.equal([
        ['INVALID_PAYLOAD', { reason: "Revision doesn't contain data to revert to" }],
      ]);
    });

    it('reverting onto an item deleted since is FORBIDDEN', async () => {
      const { id } = dataOf<Row>(await api('POST', '/items/authors', { name: 'gone soon' }));
      const [revision] = await revisionsOf('authors', id);
      expect((await api('DELETE', `/items/authors/${String(id)}`)).status).to.equal(204);
      errorsOf(await api('POST', `/utils/revert/${String(revision)}`), 403);
    });

    it('without a token nothing is reverted', async () => {
      const { id } = dataOf<Row>(await api('POST', '/items/authors', { name: 'safe' }));
      const [revision] = await revisionsOf('authors', id);
      const res = await ctx().api(`/utils/revert/${String(revision)}`, { method: 'POST' });
      expect(res.status).to.equal(403);
    });
  });
});
