import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { expectError, expectOk, keysOf, schemaApi, serialKey } from './schema-api.js';

/** PATCH /fields is_unique false on unique keys made outside the service, whatever their names. */
describeEachDatabase('schema routes: unique keys made outside the service', (ctx) => {
  const api = schemaApi(ctx);
  /** Two items with the same value: both stored, or the key refuses the second. */
  const insertTwice = async (collection: string, item: Record<string, unknown>) => {
    expectOk(await api('POST', `/items/${collection}`, item));
    return api('POST', `/items/${collection}`, item);
  };

  before(async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'bulbs',
        schema: {},
        fields: [
          { field: 'serial', type: 'string' },
          { field: 'watts', type: 'integer' },
          { field: 'socket', type: 'string' },
        ],
      }),
    );
  });

  it('a unique index under its own name: is_unique false drops it, duplicates go in', async () => {
    const { db, schema } = ctx().server;
    await db.raw('CREATE UNIQUE INDEX bulbs_one_per_serial ON bulbs (serial)');
    await schema.invalidate();
    expect(await keysOf(api, 'bulbs', 'serial')).to.deep.equal({ is_unique: true, is_indexed: true });
    expectError(await insertTwice('bulbs', { serial: 'a-1' }), 400, 'RECORD_NOT_UNIQUE');

    expectOk(await api('PATCH', '/fields/bulbs/serial', { schema: { is_unique: false } }));
    expect(await keysOf(api, 'bulbs', 'serial')).to.deep.equal({ is_unique: false, is_indexed: false });
    expectOk(await api('POST', '/items/bulbs', { serial: 'a-1' }));
  });

  it("a unique key another table's foreign key needs (PostgreSQL, MariaDB): 400 naming the field, the key stays", async function () {
    // SQLite checks a foreign key's parent key only when rows are written, not when it is dropped.
    if (ctx().dialect === 'sqlite') this.skip();
    const { db, schema } = ctx().server;
    expectOk(
      await api('POST', '/collections', {
        collection: 'fittings',
        schema: {},
        fields: [{ field: 'code', type: 'string', schema: { is_unique: true } }],
      }),
    );
    await db.schema.createTable('lamps', (t) => {
      t.increments('id');
      t.string('fitting', 255).references('code').inTable('fittings');
    });
    await schema.invalidate();

    expectError(
      await api('PATCH', '/fields/fittings/code', { schema: { is_unique: false } }),
      400,
      'INVALID_PAYLOAD',
      /"code" of collection "fittings".*foreign key/,
    );
    expect(await keysOf(api, 'fittings', 'code')).to.include({ is_unique: true });
    expectError(await insertTwice('fittings', { code: 'E27' }), 400, 'RECORD_NOT_UNIQUE');
  });

  it("a UNIQUE constraint added under its own name (PostgreSQL, MariaDB) and the service's own key: both dropped", async function () {
    if (ctx().dialect === 'sqlite') this.skip(); // SQLite has no ALTER TABLE … ADD CONSTRAINT
    const { db, schema } = ctx().server;
    expectOk(await api('PATCH', '/fields/bulbs/watts', { schema: { is_unique: true } }));
    await db.raw('ALTER TABLE bulbs ADD CONSTRAINT my_own_name UNIQUE (watts)');
    await schema.invalidate();
    expect(await keysOf(api, 'bulbs', 'watts')).to.deep.equal({ is_unique: true, is_indexed: true });

    expectOk(await api('PATCH', '/fields/bulbs/watts', { schema: { is_unique: false } }));
    expect(await keysOf(api, 'bulbs', 'watts')).to.deep.equal({ is_unique: false, is_indexed: false });
    expectOk(await insertTwice('bulbs', { watts: 60 }));
  });

  it("a multi-column unique key is not the column's: is_unique reads false, is_unique false leaves it", async () => {
    const { db, schema } = ctx().server;
    await db.raw('CREATE UNIQUE INDEX bulbs_socket_serial ON bulbs (socket, serial)');
    await schema.invalidate();
    expect(await keysOf(api, 'bulbs', 'socket')).to.deep.equal({ is_unique: false, is_indexed: false });

    expectOk(await api('PATCH', '/fields/bulbs/socket', { schema: { is_unique: true } }));
    expectOk(await api('PATCH', '/fields/bulbs/socket', { schema: { is_unique: false } }));
    expect(await keysOf(api, 'bulbs', 'socket')).to.deep.equal({ is_unique: false, is_indexed: false });
    expectOk(await api('POST', '/items/bulbs', { socket: 'E27', serial: 'b-1' }));
    expectOk(await api('POST', '/items/bulbs', { socket: 'E27', serial: 'b-2' }));
    // The two-column key is still there: the same pair again is refused.
    expectError(await api('POST', '/items/bulbs', { socket: 'E27', serial: 'b-1' }), 400, 'RECORD_NOT_UNIQUE');
  });

  it('UNIQUE in CREATE TABLE: dropped by its name, or on SQLite a 400 and the key stays', async () => {
    const { db, schema } = ctx().server;
    const dialect = ctx().dialect;
    await db.raw(`CREATE TABLE sockets (id ${serialKey(dialect)}, code varchar(20) UNIQUE)`);
    await schema.invalidate();
    expect(await keysOf(api, 'sockets', 'code')).to.deep.equal({ is_unique: true, is_indexed: true });

    const result = await api('PATCH', '/fields/sockets/code', { schema: { is_unique: false } });
    if (dialect === 'sqlite') {
      expectError(
        result,
        400,
        'INVALID_PAYLOAD',
        /Field "code" of collection "sockets" is unique by its table's definition.*SQLite/,
      );
      expect(await keysOf(api, 'sockets', 'code')).to.deep.equal({ is_unique: true, is_indexed: true });
      expectError(await insertTwice('sockets', { code: 'GU10' }), 400, 'RECORD_NOT_UNIQUE');
      return;
    }
    expectOk(result);
    expect(await keysOf(api, 'sockets', 'code')).to.deep.equal({ is_unique: false, is_indexed: false });
    expectOk(await insertTwice('sockets', { code: 'GU10' }));
  });
});
