import { statementsRunOn } from '../../support/statements.js';
import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { sendForm } from '../files/helpers.js';
import { adminApi, createCommandSchema, dataOf } from './schema.js';

type Row = Record<string, unknown>;

/**
 * Creates that give integer keys to an auto-increment key: the keys the database generates
 * afterwards never collide with them (PostgreSQL's sequence is moved past them; MariaDB and
 * SQLite move their counters themselves), and never go back below keys generated before.
 */
describeEachDatabase('explicit keys of auto-increment primary keys', (ctx) => {
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const idOf = (row: Row) => Number(row['id']);

  before(async () => {
    await createCommandSchema(ctx());
  });

  it('POST /items with a given key, then without: the generated key follows it', async () => {
    expect(idOf(dataOf<Row>(await api('POST', '/items/authors', { id: 10, name: 'Given' })))).to.equal(10);
    expect(idOf(dataOf<Row>(await api('POST', '/items/authors', { name: 'Generated' })))).to.equal(11);
  });

  it('given and generated keys in one POST of many items', async () => {
    const created = dataOf<Row[]>(
      await api('POST', '/items/authors', [{ id: 20, name: 'a' }, { name: 'b' }, { id: 30, name: 'c' }, { name: 'd' }]),
    );
    expect(created.map(idOf)).to.deep.equal([20, 21, 30, 31]);
    expect(idOf(dataOf<Row>(await api('POST', '/items/authors', { name: 'after' })))).to.equal(32);
  });

  it('moves the sequence once per table and request, not per row', async () => {
    const statements = await statementsRunOn(ctx().server.db, async () => {
      const content = JSON.stringify([
        { id: 200, label: 'x' },
        { id: 201, label: 'y' },
        { id: 202, label: 'z' },
      ]);
      const res = await sendForm(ctx(), 'POST', '/utils/import/tags', [
        ['file', content, 'tags.json', 'application/json'],
      ]);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    });
    expect(statements.filter((sql) => sql.includes('setval'))).to.have.length(ctx().dialect === 'postgres' ? 1 : 0);
    expect(idOf(dataOf<Row>(await api('POST', '/items/tags', { label: 'after' })))).to.equal(203);
  });

  it('a lower given key leaves the generated keys where they were', async () => {
    expect(idOf(dataOf<Row>(await api('POST', '/items/authors', { id: 2, name: 'low' })))).to.equal(2);
    expect(idOf(dataOf<Row>(await api('POST', '/items/authors', { name: 'next' })))).to.equal(33);
  });

  it('nested creates with given keys (one-to-many and many-to-one)', async () => {
    const article = dataOf<Row>(
      await api('POST', '/items/articles?fields=id,author,comments.id', {
        id: 40,
        title: 'Nested',
        author: { id: 50, name: 'Nested author' },
        comments: { create: [{ id: 60, text: 'one' }, { text: 'two' }] },
      }),
    );
    expect(article).to.deep.include({ id: 40, author: 50 });
    expect((article['comments'] as Row[]).map(idOf)).to.deep.equal([60, 61]);
    expect(idOf(dataOf<Row>(await api('POST', '/items/articles', { title: 'Next' })))).to.equal(41);
    expect(idOf(dataOf<Row>(await api('POST', '/items/authors', { name: 'Next' })))).to.equal(51);
    expect(idOf(dataOf<Row>(await api('POST', '/items/comments', { text: 'Next' })))).to.equal(62);
  });

  it('POST /utils/import with given keys', async () => {
    const content = JSON.stringify([{ id: 100, title: 'first' }, { id: 101, title: 'second' }, { title: 'third' }]);
    const res = await sendForm(ctx(), 'POST', '/utils/import/headings', [
      ['file', content, 'headings.json', 'application/json'],
    ]);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const headings = await ctx().server.db('headings').orderBy('id').select<Row[]>('id', 'title');
    expect(headings.map((h) => [Number(h['id']), h['title']])).to.deep.equal([
      [100, 'first'],
      [101, 'second'],
      [102, 'third'],
    ]);
    expect(idOf(dataOf<Row>(await api('POST', '/items/headings', { title: 'Next' })))).to.equal(103);
  });

  it('a given key 0 is stored as 0, answered and journaled as 0 (MariaDB too)', async () => {
    const created = dataOf<Row>(await api('POST', '/items/authors', { id: 0, name: 'Zero' }));
    expect(created).to.deep.include({ id: 0, name: 'Zero' });
    const stored = await ctx().server.db('authors').where({ name: 'Zero' }).select<Row[]>('id');
    expect(stored.map(idOf)).to.deep.equal([0]);
    const journal = await ctx()
      .server.db('svc_activity')
      .where({ collection: 'authors', action: 'create' })
      .orderBy('id', 'desc')
      .first<Row>('item');
    expect(journal['item']).to.equal('0');
  });

  it('a generated key given as null is generated, on POST and on import, as on every database', async () => {
    const created = dataOf<Row>(await api('POST', '/items/authors', { id: null, name: 'Null key' }));
    expect(idOf(created)).to.be.greaterThan(0);
    const res = await sendForm(ctx(), 'POST', '/utils/import/authors', [
      ['file', JSON.stringify([{ id: null, name: 'Null key imported' }]), 'authors.json', 'application/json'],
    ]);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const stored = await ctx().server.db('authors').where({ name: 'Null key imported' }).select<Row[]>('id');
    expect(stored.map(idOf)).to.deep.equal([idOf(created) + 1]);
  });
});
