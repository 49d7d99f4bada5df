import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { expectError, expectOk, schemaApi } from './schema-api.js';

/**
 * Collection and field names are unique ignoring case, on every database: a second `THINGS`
 * beside `things` was a 500 on MariaDB (a duplicate svc_collections row) and SQLite (table
 * names ignore case there) and a second table on PostgreSQL; a field `S_STR` beside `s_str`
 * a 500 (duplicate column) on SQLite and MariaDB and a second column on PostgreSQL. Now a
 * 400 INVALID_PAYLOAD naming the existing name, before any DDL, nothing changed.
 */
describeEachDatabase('schema routes: names unique ignoring case', (ctx) => {
  const api = schemaApi(ctx);
  const collections = async () =>
    (expectOk(await api('GET', '/collections')) as { collection: string }[]).map((c) => c.collection);
  const fields = async (collection: string) =>
    (expectOk(await api('GET', `/fields/${collection}`)) as { field: string }[]).map((f) => f.field);

  before(async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'things',
        schema: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 's_str', type: 'string' },
        ],
      }),
    );
    expectOk(await api('POST', '/items/things', { s_str: 'a' }));
  });

  it('POST /collections: a name an existing collection has in another case is refused', async () => {
    const before = await collections();
    expectError(
      await api('POST', '/collections', { collection: 'THINGS', schema: {} }),
      400,
      'INVALID_PAYLOAD',
      /Collection "THINGS" already exists as "things"/,
    );
    // The same name in one request, in two cases: neither is created.
    expectError(
      await api('POST', '/collections', [
        { collection: 'crates', schema: {} },
        { collection: 'Crates', schema: {} },
      ]),
      400,
      'INVALID_PAYLOAD',
      /Collection "Crates" already exists as "crates"/,
    );
    expect(await collections()).to.have.members(before);
    expect(expectOk(await api('GET', '/items/things'))).to.have.length(1);
  });

  it('POST /fields: a name an existing field has in another case is refused, no column added', async () => {
    expectError(
      await api('POST', '/fields/things', { field: 'S_STR', type: 'string' }),
      400,
      'INVALID_PAYLOAD',
      /Field "S_STR" already exists in collection "things" as "s_str"/,
    );
    expectError(
      await api('POST', '/collections', {
        collection: 'boxes',
        schema: {},
        fields: [
          { field: 'label', type: 'string' },
          { field: 'Label', type: 'text' },
        ],
      }),
      400,
      'INVALID_PAYLOAD',
      /Field "Label" is given twice for collection "boxes" \(as "label"\)/,
    );
    expect(await fields('things')).to.have.members(['id', 's_str']);
    expect(await collections()).not.to.include('boxes');
    expect(expectOk(await api('GET', '/items/things'))[0]).to.deep.equal({ id: 1, s_str: 'a' });
  });

  it('/schema/diff: a new field clashing in case is refused before any step runs', async () => {
    const snapshot = expectOk(await api('GET', '/schema/snapshot'));
    const s = snapshot.fields.find((f: any) => f.collection === 'things' && f.field === 's_str');
    snapshot.collections.push({ collection: 'crates', meta: null, schema: { name: 'crates' } });
    snapshot.fields.push({ ...s, collection: 'things', field: 'S_STR', meta: null });
    expectError(
      await api('POST', '/schema/diff', snapshot),
      400,
      'INVALID_PAYLOAD',
      /Field "S_STR" already exists in collection "things" as "s_str"/,
    );
    expect(await collections()).not.to.include('crates');
    expect(await fields('things')).to.have.members(['id', 's_str']);
  });

  it('names that differ in more than case still work', async () => {
    expectOk(await api('POST', '/fields/things', { field: 's_str2', type: 'string' }));
    expectOk(await api('POST', '/collections', { collection: 'things2', schema: {} }));
  });
});
