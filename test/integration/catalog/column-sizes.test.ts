import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { expectError, expectOk, schemaApi } from './schema-api.js';

const id = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };

/** Sizes no database may get: every one holds at most a varchar(16383) and a decimal(65, 30). */
const TOO_LARGE: readonly (readonly [type: string, schema: Record<string, unknown>, message: RegExp])[] = [
  ['decimal', { numeric_precision: 999 }, /"schema.numeric_precision" of field "x" of collection "\w+" is 999/],
  ['decimal', { numeric_precision: 66, numeric_scale: 2 }, /at most 65 digits/],
  ['decimal', { numeric_precision: 40, numeric_scale: 31 }, /at most 30 digits after the point/],
  [
    'decimal',
    { numeric_precision: 3 },
    /"schema.numeric_scale" .* is 5: more digits after the point than the precision \(3\)/,
  ],
  ['string', { max_length: 99999999 }, /"schema.max_length" of field "x" of collection "\w+" is 99999999/],
  ['hash', { max_length: 16384 }, /at most 16383 characters/],
];

/**
 * Column sizes beyond what every database holds are a 400 INVALID_PAYLOAD naming the field
 * and the key, before any DDL: MariaDB answered a decimal of precision 999 or a string of
 * max_length 99999999 with a 500 (PostgreSQL and SQLite took them). A row too large for
 * MariaDB, which only it knows, is a 400 naming the field too.
 */
describeEachDatabase('schema routes: column sizes', (ctx) => {
  const api = schemaApi(ctx);
  const fields = async () => (expectOk(await api('GET', '/fields/things')) as { field: string }[]).map((f) => f.field);

  before(async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'things',
        schema: {},
        fields: [
          id,
          { field: 's_str', type: 'string', schema: { max_length: 40 } },
          { field: 'n', type: 'integer' },
          { field: 'de', type: 'decimal', schema: { numeric_precision: 10, numeric_scale: 2 } },
        ],
      }),
    );
    expectOk(await api('POST', '/items/things', { s_str: 'a', n: 1, de: '1.25' }));
  });

  it('POST /fields and POST /collections: sizes beyond every database are refused, nothing added', async () => {
    for (const [type, schema, message] of TOO_LARGE) {
      const result = await api('POST', '/fields/things', { field: 'x', type, schema });
      expectError(result, 400, 'INVALID_PAYLOAD', message);
      const collection = await api('POST', '/collections', {
        collection: 'crates',
        schema: {},
        fields: [id, { field: 'x', type, schema }],
      });
      expectError(collection, 400, 'INVALID_PAYLOAD', message);
    }
    expect(await fields()).to.have.members(['id', 's_str', 'n', 'de']);
    const names = (expectOk(await api('GET', '/collections')) as { collection: string }[]).map((c) => c.collection);
    expect(names).not.to.include('crates');
  });

  it('PATCH /fields: a size or a type change beyond every database is refused, the field unchanged', async () => {
    const before = expectOk(await api('GET', '/fields/things'));
    expectError(
      await api('PATCH', '/fields/things/s_str', { schema: { max_length: 99999999 } }),
      400,
      'INVALID_PAYLOAD',
      /"schema.max_length" of field "s_str" of collection "things" is 99999999/,
    );
    expectError(
      await api('PATCH', '/fields/things/de', { schema: { numeric_precision: 999 } }),
      400,
      'INVALID_PAYLOAD',
      /"schema.numeric_precision" of field "de" of collection "things" is 999/,
    );
    expectError(
      await api('PATCH', '/fields/things/de', { schema: { numeric_precision: 1 } }),
      400,
      'INVALID_PAYLOAD',
      /more digits after the point than the precision \(1\)/,
    );
    expectError(
      await api('PATCH', '/fields/things/n', { type: 'string', schema: { max_length: 20000 } }),
      400,
      'INVALID_PAYLOAD',
      /at most 16383 characters/,
    );
    expect(expectOk(await api('GET', '/fields/things'))).to.deep.equal(before);
    expect(expectOk(await api('GET', '/items/things'))[0]).to.deep.include({ s_str: 'a', n: 1 });
  });

  it('/schema/diff: a size beyond every database is refused before any step runs', async () => {
    const snapshot = expectOk(await api('GET', '/schema/snapshot'));
    snapshot.fields.find((f: any) => f.collection === 'things' && f.field === 's_str').schema.max_length = 99999999;
    expectError(
      await api('POST', '/schema/diff', snapshot),
      400,
      'INVALID_PAYLOAD',
      /"schema.max_length" of field "s_str" of collection "things" is 99999999/,
    );
  });

  it('the largest sizes work, and a MariaDB row too large is a 400 naming the field', async () => {
    expectOk(
      await api('POST', '/fields/things', {
        field: 'big',
        type: 'decimal',
        schema: { numeric_precision: 65, numeric_scale: 30 },
      }),
    );
    expectOk(await api('PATCH', '/fields/things/s_str', { schema: { max_length: 10000 } }));
    // MariaDB's rows hold 65,535 bytes, a utf8mb4 character counting 4: a second long string is too many.
    const second = await api('POST', '/fields/things', {
      field: 'long',
      type: 'string',
      schema: { max_length: 10000 },
    });
    if (ctx().dialect === 'mariadb') {
      expectError(
        second,
        400,
        'INVALID_PAYLOAD',
        /Field "long" of collection "things" of type "string" is larger than the database takes/,
      );
      expect(await fields()).not.to.include('long');
    } else {
      expectOk(second);
    }
  });

  it('an integer default beyond 4 bytes is refused (default-values.ts)', async () => {
    const body = '{"field":"m","type":"integer","schema":{"default_value":99999999999999999999}}';
    const res = await ctx().api('/fields/things', {
      method: 'POST',
      headers: { Authorization: 'Bearer test-admin-static-token', 'Content-Type': 'application/json' },
      body,
    });
    const result = { status: res.status, body: await res.json() };
    expectError(result, 400, 'INVALID_PAYLOAD', /field "m" of collection "things" is not an integer/);
    expect(await fields()).not.to.include('m');
  });
});
