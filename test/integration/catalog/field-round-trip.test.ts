import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { EVERY_TYPE_FIELDS, expectOk, schemaApi } from './schema-api.js';

const FIELDS = [
  ...EVERY_TYPE_FIELDS,
  { field: 'si', type: 'string', schema: { is_indexed: true } },
  { field: 'dz', type: 'decimal', schema: { numeric_precision: 10, numeric_scale: 0 } },
  { field: 'owner', type: 'integer' },
];

// Directus clients read a field and send it back as it was (the app's field editor does):
// every GET /fields/:collection/:field object PATCHed back is accepted and changes nothing.
describeEachDatabase('schema routes: a field read back and PATCHed unchanged', (ctx) => {
  const api = schemaApi(ctx);

  before(async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'round_owners',
        schema: {},
        fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } }],
      }),
    );
    expectOk(await api('POST', '/collections', { collection: 'round_trip', schema: {}, fields: FIELDS }));
    expectOk(
      await api('POST', '/relations', {
        collection: 'round_trip',
        field: 'owner',
        related_collection: 'round_owners',
        meta: { one_field: 'things' },
      }),
    );
    expectOk(await api('POST', '/items/round_trip', { s: 'row', ha: 'secret', cs: ['a', 'b'], de: '1.5', dz: '7' }));
  });

  it('every field of every type, and the o2m alias on the other side', async () => {
    const fields: any[] = [
      ...expectOk(await api('GET', '/fields/round_trip')),
      expectOk(await api('GET', '/fields/round_owners/things')),
    ];
    const rowsBefore = await ctx().server.db('round_trip').select();
    for (const field of fields) {
      const path = `/fields/${String(field.collection)}/${String(field.field)}`;
      const result = await api('PATCH', path, field);
      expect(result.status, `${String(field.field)}: ${JSON.stringify(result.body)}`).to.equal(200);
      expect(result.body.data, String(field.field)).to.deep.equal(field);
      expect(expectOk(await api('GET', path)), String(field.field)).to.deep.equal(field);
    }
    expect(await ctx().server.db('round_trip').select()).to.deep.equal(rowsBefore);
  });

  it('the whole list of GET /fields/:collection PATCHed back at once', async () => {
    const fields: any[] = expectOk(await api('GET', '/fields/round_trip'));
    const rowsBefore = await ctx().server.db('round_trip').select();
    const result = await api('PATCH', '/fields/round_trip', fields);
    expect(result.status, JSON.stringify(result.body)).to.equal(200);
    expect(expectOk(await api('GET', '/fields/round_trip'))).to.deep.equal(fields);
    expect(await ctx().server.db('round_trip').select()).to.deep.equal(rowsBefore);
  });

  it('a column of a type the service does not know (unknown) round-trips too; no field becomes one', async () => {
    const odd = { sqlite: 'xml', postgres: 'xml', mariadb: 'bit(8)' }[ctx().dialect];
    await ctx().server.db.raw(`alter table round_trip add column odd ${odd}`);
    await ctx().server.schema.invalidate();
    const field = expectOk(await api('GET', '/fields/round_trip/odd'));
    expect(field.type).to.equal('unknown');
    expect(expectOk(await api('PATCH', '/fields/round_trip/odd', field))).to.deep.equal(field);
    const text = expectOk(await api('GET', '/fields/round_trip/tx'));
    const refused = await api('PATCH', '/fields/round_trip/tx', { type: 'unknown' });
    expect(refused.status).to.equal(400);
    expect(refused.body.errors[0].extensions.code).to.equal('INVALID_PAYLOAD');
    expect(expectOk(await api('GET', '/fields/round_trip/tx'))).to.deep.equal(text);
  });

  it('a scale of 0 is a valid scale; a negative one is still refused', async () => {
    const dz = expectOk(await api('GET', '/fields/round_trip/dz'));
    expect(dz.schema).to.include({ numeric_precision: 10, numeric_scale: 0 });
    const refused = await api('PATCH', '/fields/round_trip/dz', { schema: { numeric_scale: -1 } });
    expect(refused.status).to.equal(400);
    expect(refused.body.errors[0].extensions.code).to.equal('INVALID_PAYLOAD');
    expect(expectOk(await api('GET', '/fields/round_trip/dz'))).to.deep.equal(dz);
  });
});
