import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { expectOk, schemaApi } from './schema-api.js';

type Row = Record<string, unknown>;

// Directus 10: a csv field is cast only with the `cast-csv` special, which its app adds;
// without it the column is text and values read and write as the stored string.
describeEachDatabase('csv fields and the cast-csv special', (ctx) => {
  const api = schemaApi(ctx);
  const db = () => ctx().server.db;

  before(async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'lists',
        schema: {},
        fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } }],
      }),
    );
    expectOk(await api('POST', '/fields/lists', { field: 'test_csv', type: 'csv', meta: {} }));
    expectOk(await api('POST', '/fields/lists', { field: 'tags', type: 'csv', meta: { special: ['cast-csv'] } }));
  });

  it('adds cast-csv only when asked; the special decides the type', async () => {
    const plain = expectOk(await api('GET', '/fields/lists/test_csv'));
    expect(plain.type).to.equal('text');
    expect(plain.meta.special).to.equal(null);
    const cast = expectOk(await api('GET', '/fields/lists/tags'));
    expect(cast.type).to.equal('csv');
    expect(cast.meta.special).to.deep.equal(['cast-csv']);
  });

  it('without cast-csv the string is stored as given and reads back as that string', async () => {
    const created = expectOk(await api('POST', '/items/lists', { test_csv: 'a,b,c' }));
    expect(created.test_csv).to.equal('a,b,c');
    expect(await db()('lists').where({ id: created.id }).first<Row>('test_csv')).to.deep.equal({ test_csv: 'a,b,c' });
    const read = expectOk(await api('GET', `/items/lists?filter[test_csv][_contains]=b&fields=id,test_csv`));
    expect(read).to.deep.equal([{ id: created.id, test_csv: 'a,b,c' }]);
  });

  it('with cast-csv an array is joined on write and split on read', async () => {
    const created = expectOk(await api('POST', '/items/lists', { tags: ['red', 'green'] }));
    expect(created.tags).to.deep.equal(['red', 'green']);
    expect(await db()('lists').where({ id: created.id }).first<Row>('tags')).to.deep.equal({ tags: 'red,green' });
    const read = expectOk(await api('GET', `/items/lists?filter[tags][_contains]=green&fields=id,tags`));
    expect(read).to.deep.equal([{ id: created.id, tags: ['red', 'green'] }]);
  });
});
