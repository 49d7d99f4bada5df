import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { expectError, expectOk, schemaApi, serialKey } from './schema-api.js';

describeEachDatabase('POST /utils/cache/clear and tables made outside the service', (ctx) => {
  const api = schemaApi(ctx);

  it('is for admins only', async () => {
    expectError(await api('POST', '/utils/cache/clear', undefined, null), 403, 'FORBIDDEN');
  });

  it('serves a table created with plain SQL after a clear, with its foreign key as a relation', async () => {
    const { db, dialect } = { db: ctx().server.db, dialect: ctx().dialect };
    await db.raw(`CREATE TABLE legacy_owner (id ${serialKey(dialect)}, label varchar(30) NOT NULL)`);
    await db.raw(
      `CREATE TABLE legacy_item (id ${serialKey(dialect)}, owner integer, price decimal(9,2) DEFAULT 0, ` +
        'CONSTRAINT legacy_item_owner_fk FOREIGN KEY (owner) REFERENCES legacy_owner (id) ON DELETE CASCADE)',
    );
    await db.raw('CREATE TABLE legacy_log (message text)');
    expectError(await api('GET', '/collections/legacy_item'), 403, 'FORBIDDEN');

    const cleared = await ctx().api('/utils/cache/clear?system', {
      method: 'POST',
      headers: { Authorization: 'Bearer test-admin-static-token' },
    });
    expect(cleared.status).to.equal(200);
    expect(await cleared.text()).to.equal('');

    expect(expectOk(await api('GET', '/collections/legacy_item'))).to.deep.include({ meta: null });
    const fields: any[] = expectOk(await api('GET', '/fields/legacy_item'));
    expect(Object.fromEntries(fields.map((f) => [f.field, f.type]))).to.deep.equal({
      id: 'integer',
      owner: 'integer',
      price: 'decimal',
    });
    expect(fields.find((f) => f.field === 'price').schema).to.include({
      numeric_precision: 9,
      numeric_scale: 2,
      default_value: '0',
    });
    expect(fields.find((f) => f.field === 'owner').schema).to.include({
      foreign_key_table: 'legacy_owner',
      foreign_key_column: 'id',
    });
    const [relation] = expectOk(await api('GET', '/relations/legacy_item')) as any[];
    expect(relation).to.deep.include({
      collection: 'legacy_item',
      field: 'owner',
      related_collection: 'legacy_owner',
      meta: null,
    });
    expect(relation.schema).to.include({ on_delete: 'CASCADE', foreign_key_column: 'id' });
    if (dialect !== 'sqlite') expect(relation.schema.constraint_name).to.equal('legacy_item_owner_fk');

    // A table without a primary key is reported in the log and not served.
    expectError(await api('GET', '/collections/legacy_log'), 403, 'FORBIDDEN');
  });

  it('lets the service manage such a table afterwards', async () => {
    expectOk(await api('PATCH', '/collections/legacy_item', { meta: { note: 'adopted' } }));
    expectOk(await api('PATCH', '/relations/legacy_item/owner', { meta: { one_field: 'items' } }));
    expect(expectOk(await api('GET', '/fields/legacy_owner/items')).type).to.equal('alias');
    expectOk(await api('DELETE', '/relations/legacy_item/owner'), 204);
    expect(expectOk(await api('GET', '/relations/legacy_item'))).to.deep.equal([]);
    expectOk(await api('DELETE', '/collections/legacy_owner'), 204);
    expect(await ctx().server.db.schema.hasTable('legacy_owner')).to.equal(false);
  });

  it('a column or table dropped outside the service: 503 once, the schema is dropped, the next read is right', async () => {
    const { db, dialect } = { db: ctx().server.db, dialect: ctx().dialect };
    await db.raw(`CREATE TABLE going (id ${serialKey(dialect)}, label varchar(30), extra varchar(30))`);
    expectOk(await api('POST', '/utils/cache/clear', undefined), 200);
    expectOk(await api('POST', '/items/going', { label: 'kept', extra: 'dropped' }));

    // As the CLI or another instance without Redis would: this instance is not told.
    await db.schema.alterTable('going', (t) => {
      t.dropColumn('extra');
    });
    const stale = await api('GET', '/items/going');
    expectError(stale, 503, 'SERVICE_UNAVAILABLE', /The database schema changed under this instance, retry/);
    expect(JSON.stringify(stale.body)).not.to.match(/extra|no such|does not exist|Unknown column/);
    expect(expectOk(await api('GET', '/items/going'))).to.deep.equal([{ id: 1, label: 'kept' }]);

    await db.schema.dropTable('going');
    expectError(await api('GET', '/items/going'), 503, 'SERVICE_UNAVAILABLE');
    expectError(await api('GET', '/items/going'), 403, 'FORBIDDEN');
  });
});
