import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { expectError, expectOk, keysOf, schemaApi } from './schema-api.js';

/** schema.is_indexed and is_unique through POST/PATCH /fields, read back by introspection. */
describeEachDatabase('schema routes: indexes and unique keys', (ctx) => {
  const api = schemaApi(ctx);
  const lampKeys = (field: string) => keysOf(api, 'lamps', field);

  before(async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'lamps',
        schema: {},
        fields: [
          { field: 'name', type: 'string' },
          { field: 'code', type: 'string' },
          { field: 'body', type: 'text' },
          { field: 'doc', type: 'json' },
        ],
      }),
    );
  });

  it('PATCH is_indexed creates and drops the index', async () => {
    expect(await lampKeys('name')).to.deep.equal({ is_unique: false, is_indexed: false });
    const patched = expectOk(await api('PATCH', '/fields/lamps/name', { schema: { is_indexed: true } }));
    expect(patched.schema).to.include({ is_unique: false, is_indexed: true });
    expect(await lampKeys('name')).to.deep.equal({ is_unique: false, is_indexed: true });
    expectOk(await api('PATCH', '/fields/lamps/name', { schema: { is_indexed: true } }));
    expectOk(await api('PATCH', '/fields/lamps/name', { schema: { is_indexed: false } }));
    expect(await lampKeys('name')).to.deep.equal({ is_unique: false, is_indexed: false });
  });

  it('a new field with is_indexed, the primary key: indexed', async () => {
    const added = expectOk(
      await api('POST', '/fields/lamps', { field: 'rank', type: 'integer', schema: { is_indexed: true } }),
    );
    expect(added.schema).to.include({ is_unique: false, is_indexed: true });
    expect(await lampKeys('id')).to.deep.equal({ is_unique: true, is_indexed: true });
  });

  it('a unique key is an index; is_unique false with is_indexed true keeps one', async () => {
    expectOk(await api('PATCH', '/fields/lamps/code', { schema: { is_unique: true } }));
    expect(await lampKeys('code')).to.deep.equal({ is_unique: true, is_indexed: true });
    expectOk(await api('PATCH', '/fields/lamps/code', { schema: { is_unique: false, is_indexed: true } }));
    expect(await lampKeys('code')).to.deep.equal({ is_unique: false, is_indexed: true });
    expectOk(await api('PATCH', '/fields/lamps/code', { schema: { is_unique: true } }));
    expectOk(await api('PATCH', '/fields/lamps/code', { schema: { is_unique: false } }));
    expect(await lampKeys('code')).to.deep.equal({ is_unique: false, is_indexed: false });
  });

  it('refuses is_indexed false for a unique field and the primary key', async () => {
    expectOk(await api('PATCH', '/fields/lamps/code', { schema: { is_unique: true } }));
    expectError(
      await api('PATCH', '/fields/lamps/code', { schema: { is_indexed: false } }),
      400,
      'INVALID_PAYLOAD',
      /"code".*unique/,
    );
    expect(await lampKeys('code')).to.deep.equal({ is_unique: true, is_indexed: true });
    expect((await api('PATCH', '/fields/lamps/id', { schema: { is_indexed: false } })).status).to.be.oneOf([400, 422]);
  });

  it('text fields can be unique and indexed on every dialect; the key holds', async () => {
    expectOk(await api('PATCH', '/fields/lamps/body', { schema: { is_unique: true } }));
    expect(await lampKeys('body')).to.deep.equal({ is_unique: true, is_indexed: true });
    const long = 'x'.repeat(3000);
    expectOk(await api('POST', '/items/lamps', { body: `${long}a` }));
    expectOk(await api('POST', '/items/lamps', { body: `${long}b` }));
    const duplicate = await api('POST', '/items/lamps', { body: `${long}a` });
    expectError(duplicate, 400, 'RECORD_NOT_UNIQUE');
    expect(duplicate.body.errors[0].extensions).to.include({ collection: 'lamps', field: 'body' });
    expectOk(await api('PATCH', '/fields/lamps/body', { schema: { is_unique: false, is_indexed: true } }));
    expect(await lampKeys('body')).to.deep.equal({ is_unique: false, is_indexed: true });
  });

  it('an index made outside the service, whatever its name: is_indexed reads it, is_indexed false drops it', async () => {
    expectOk(await api('POST', '/fields/lamps', { field: 'shade', type: 'string' }));
    const { db, schema } = ctx().server;
    await db.schema.alterTable('lamps', (t) => {
      t.index(['shade'], 'lamps_by_shade');
    });
    await schema.invalidate();
    expect(await lampKeys('shade')).to.deep.equal({ is_unique: false, is_indexed: true });
    expectOk(await api('PATCH', '/fields/lamps/shade', { schema: { is_indexed: false } }));
    expect(await lampKeys('shade')).to.deep.equal({ is_unique: false, is_indexed: false });
  });

  it('an m2o: is_indexed is what the database keeps; MariaDB keeps an index on a foreign key (400)', async () => {
    // InnoDB creates an index with each foreign key and refuses to drop the last one.
    const keepsIndex = ctx().dialect === 'mariadb';
    const refused = async (schema: Record<string, unknown>) => {
      const result = await api('PATCH', '/fields/lamps/maker', { schema });
      if (!keepsIndex) return expectOk(result);
      expectError(result, 400, 'INVALID_PAYLOAD', /Field "maker" of collection "lamps" has a foreign key.*index/);
    };
    expectOk(await api('POST', '/collections', { collection: 'makers', schema: {}, fields: [] }));
    expectOk(await api('POST', '/fields/lamps', { field: 'maker', type: 'integer' }));
    expectOk(await api('POST', '/relations', { collection: 'lamps', field: 'maker', related_collection: 'makers' }));
    expect(await lampKeys('maker')).to.deep.equal({ is_unique: false, is_indexed: keepsIndex });
    await refused({ is_indexed: false });
    expect(await lampKeys('maker')).to.deep.equal({ is_unique: false, is_indexed: keepsIndex });

    expectOk(await api('PATCH', '/fields/lamps/maker', { schema: { is_indexed: true } }));
    expect(await lampKeys('maker')).to.deep.equal({ is_unique: false, is_indexed: true });
    await refused({ is_indexed: false });
    expect(await lampKeys('maker')).to.deep.equal({ is_unique: false, is_indexed: keepsIndex });

    expectOk(await api('PATCH', '/fields/lamps/maker', { schema: { is_unique: true } }));
    expect(await lampKeys('maker')).to.deep.equal({ is_unique: true, is_indexed: true });
    await refused({ is_unique: false, is_indexed: false });
    expect(await lampKeys('maker')).to.deep.equal({ is_unique: keepsIndex, is_indexed: keepsIndex });
    if (keepsIndex) {
      expectOk(await api('PATCH', '/fields/lamps/maker', { schema: { is_unique: false } }));
      expect(await lampKeys('maker')).to.deep.equal({ is_unique: false, is_indexed: true });
    }

    // Without its foreign key the column's index (MariaDB's own one included) can go.
    expectOk(await api('DELETE', '/relations/lamps/maker'), 204);
    expectOk(await api('PATCH', '/fields/lamps/maker', { schema: { is_indexed: false } }));
    expect(await lampKeys('maker')).to.deep.equal({ is_unique: false, is_indexed: false });
  });

  it('json fields can be neither unique nor indexed: a clear 400, nothing changed', async () => {
    const unique = await api('PATCH', '/fields/lamps/doc', { schema: { is_unique: true } });
    expectError(
      unique,
      400,
      'INVALID_PAYLOAD',
      /Field "doc" of collection "lamps" of type "json" can't be unique or indexed/,
    );
    expectError(await api('PATCH', '/fields/lamps/doc', { schema: { is_indexed: true } }), 400, 'INVALID_PAYLOAD');
    expectError(
      await api('POST', '/fields/lamps', { field: 'doc2', type: 'json', schema: { is_indexed: true } }),
      400,
      'INVALID_PAYLOAD',
    );
    expect(await lampKeys('doc')).to.deep.equal({ is_unique: false, is_indexed: false });
    expect(await ctx().server.db.schema.hasColumn('lamps', 'doc2')).to.equal(false);
  });
});
