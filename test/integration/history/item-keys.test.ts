import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { adminApi, dataOf } from '../commands/schema.js';

type Row = Record<string, unknown>;

describeEachDatabase("an item's history is its own key's", (ctx) => {
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const create = async (collection: string, title: string): Promise<number> =>
    Number(dataOf<Row>(await api('POST', `/items/${collection}`, { title }))['id']);

  const createCollection = async (collection: string): Promise<void> => {
    dataOf(
      await api('POST', '/collections', {
        collection,
        schema: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'title', type: 'string' },
          { field: 'notes', type: 'string' },
        ],
      }),
    );
  };

  it('after a field change that rebuilds the table (SQLite), keys go on from the highest ever given', async () => {
    await createCollection('notebooks');
    const first = await create('notebooks', 'kept');
    const deleted = await create('notebooks', 'deleted');
    dataOf(await api('PATCH', `/items/notebooks/${String(deleted)}`, { title: 'edited, then deleted' }));
    expect((await api('DELETE', `/items/notebooks/${String(deleted)}`)).status).to.equal(204);
    // SQLite rebuilt the table for these, and its counter started again at the highest key left.
    dataOf(await api('PATCH', '/fields/notebooks/notes', { type: 'text' }));
    expect((await api('DELETE', '/fields/notebooks/notes')).status).to.equal(204);
    const next = await create('notebooks', 'new');
    expect(next).to.be.greaterThan(deleted);
    expect(first).to.be.lessThan(deleted);
    const history = dataOf<Row[]>(await api('GET', `/items/notebooks/${String(next)}/history`));
    expect(history.map((h) => h['action'])).to.deep.equal(['create']);
  });

  it('a key in another case names no item on any database, nor its history (MariaDB answered it)', async () => {
    dataOf(
      await api('POST', '/collections', {
        collection: 'labels',
        schema: {},
        fields: [
          { field: 'code', type: 'string', schema: { is_primary_key: true } },
          { field: 'title', type: 'string' },
        ],
      }),
    );
    dataOf(await api('POST', '/items/labels', { code: 'Key', title: 'one' }));
    dataOf(await api('PATCH', '/items/labels/Key', { title: 'two' }));
    expect(dataOf<Row[]>(await api('GET', '/items/labels/Key/history'))).to.have.length(2);
    for (const path of ['/items/labels/key', '/items/labels/key/history', '/items/labels/KEY?as_of=2999-01-01']) {
      const res = await api('GET', path);
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).to.equal(403);
    }
  });

  it('an emptied table keeps its counter through a rebuild too', async () => {
    await createCollection('jotters');
    const only = await create('jotters', 'only');
    expect((await api('DELETE', `/items/jotters/${String(only)}`)).status).to.equal(204);
    expect((await api('DELETE', '/fields/jotters/notes')).status).to.equal(204);
    expect(await create('jotters', 'next')).to.be.greaterThan(only);
  });
});
