import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { expectError, expectOk, schemaApi } from './schema-api.js';

const id = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };

/** Defaults that are not values of their field's type, with the words the refusal uses. */
const WRONG_DEFAULTS: readonly (readonly [field: string, value: unknown, expected: RegExp])[] = [
  ['n', { x: 1 }, /is not an integer/],
  ['n', 'abc', /is not an integer/],
  ['n', 1.5, /is not an integer/],
  ['n', 2 ** 31, /is not an integer/],
  ['f', { x: 1 }, /is not a number/],
  ['f', 'twelve', /is not a number/],
  ['f', 1e300, /is not a number \(of a 4-byte float column\)/],
  ['de', 1e20, /is not a number of at most 8 digits before the point \(decimal\(10, 2\)\)/],
  ['de', '123456789', /at most 8 digits/],
  ['b', 'notabool', /is not a boolean/],
  ['b', 2, /is not a boolean/],
  ['d', 'tomorrow', /is not a date/],
  ['d', '2024-02-30', /is not a date/],
  ['u', 'not-a-uuid', /is not a uuid/],
  ['s', { x: 1 }, /is not a text/],
];

/**
 * A field's `default_value` is checked against its type before any DDL runs, on every
 * database and through every door (POST and PATCH /fields, POST /collections, /schema/diff
 * and /schema/apply): INVALID_PAYLOAD naming the field, nothing changed. MariaDB answered
 * 500, PostgreSQL a stored value that can't be converted, SQLite stored it (an integer field
 * then read a string), and a boolean took any text as true.
 */
describeEachDatabase('schema routes: field defaults', (ctx) => {
  const api = schemaApi(ctx);
  const fieldOf = async (field: string) => expectOk(await api('GET', `/fields/gauges/${field}`));

  before(async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'gauges',
        schema: {},
        fields: [
          id,
          { field: 'n', type: 'integer' },
          { field: 'f', type: 'float' },
          { field: 'de', type: 'decimal', schema: { numeric_precision: 10, numeric_scale: 2 } },
          { field: 'b', type: 'boolean' },
          { field: 'd', type: 'date' },
          { field: 'u', type: 'uuid' },
          { field: 's', type: 'string' },
        ],
      }),
    );
    expectOk(await api('POST', '/items/gauges', { n: 1 }));
  });

  it('PATCH /fields: a default of another type is INVALID_PAYLOAD naming the field, nothing changed', async () => {
    for (const [field, value, expected] of WRONG_DEFAULTS) {
      const before = await fieldOf(field);
      const result = await api('PATCH', `/fields/gauges/${field}`, { schema: { default_value: value } });
      expectError(result, 400, 'INVALID_PAYLOAD', new RegExp(`field "${field}" of collection "gauges"`));
      expect(result.body.errors[0].message, JSON.stringify(value)).to.match(expected);
      expect(await fieldOf(field)).to.deep.equal(before);
    }
    const item = expectOk(await api('POST', '/items/gauges', {}));
    expect(item).to.include({ n: null, f: null, de: null, b: null, d: null, u: null, s: null });
  });

  it('POST /fields and POST /collections: refused, no column or table added', async () => {
    const field = await api('POST', '/fields/gauges', {
      field: 'm',
      type: 'integer',
      schema: { default_value: { x: 1 } },
    });
    expectError(
      field,
      400,
      'INVALID_PAYLOAD',
      /The default value \{"x":1\} of field "m" of collection "gauges" is not an integer/,
    );
    expect(await ctx().server.db.schema.hasColumn('gauges', 'm')).to.equal(false);
    const flag = await api('POST', '/fields/gauges', {
      field: 'on',
      type: 'boolean',
      schema: { default_value: 'notabool' },
    });
    expectError(flag, 400, 'INVALID_PAYLOAD', /field "on" of collection "gauges" is not a boolean/);
    const collection = await api('POST', '/collections', {
      collection: 'dials',
      schema: {},
      fields: [id, { field: 'level', type: 'float', schema: { default_value: { x: 1 } } }],
    });
    expectError(collection, 400, 'INVALID_PAYLOAD', /field "level" of collection "dials" is not a number/);
    expect(await ctx().server.db.schema.hasTable('dials')).to.equal(false);
  });

  it('/schema/diff and /schema/apply: refused before any step runs', async () => {
    const snapshot = expectOk(await api('GET', '/schema/snapshot'));
    const n = snapshot.fields.find((f: any) => f.collection === 'gauges' && f.field === 'n');
    n.schema.default_value = { x: 1 };
    expectError(
      await api('POST', '/schema/diff', snapshot),
      400,
      'INVALID_PAYLOAD',
      /field "n" of collection "gauges" is not an integer/,
    );
    // A plan made before (or by hand) is refused by the apply as well, with the steps before it not run.
    const good = expectOk(await api('GET', '/schema/snapshot'));
    good.collections.push({ collection: 'meters', meta: null, schema: { name: 'meters' } });
    good.fields.push({ ...id, collection: 'meters', meta: null });
    good.fields
      .filter((f: any) => f.collection === 'gauges' && f.field === 'b')
      .forEach((f: any) => (f.schema.default_value = true));
    const plan = expectOk(await api('POST', '/schema/diff', good));
    const fieldDiff = plan.diff.fields.find((f: any) => f.collection === 'gauges' && f.field === 'b');
    for (const entry of fieldDiff.diff) if (entry.rhs === true) entry.rhs = 'notabool';
    expectError(
      await api('POST', '/schema/apply', plan),
      400,
      'INVALID_PAYLOAD',
      /field "b" of collection "gauges" is not a boolean/,
    );
    expect(await ctx().server.db.schema.hasTable('meters')).to.equal(false);
    expect((await fieldOf('b')).schema.default_value).to.equal(null);
    const fresh = structuredClone(plan);
    fresh.diff.fields = [
      {
        collection: 'meters',
        field: 'level',
        diff: [
          {
            kind: 'N',
            rhs: {
              collection: 'meters',
              field: 'level',
              type: 'integer',
              meta: null,
              schema: { default_value: 'high' },
            },
          },
        ],
      },
    ];
    expectError(
      await api('POST', '/schema/apply', fresh),
      400,
      'INVALID_PAYLOAD',
      /field "level" of collection "meters" is not an integer/,
    );
    expect(await ctx().server.db.schema.hasTable('meters')).to.equal(false);
  });

  it('a type or size change keeps the default only if the new column holds it: PATCH, GraphQL and /schema/diff', async () => {
    expectOk(await api('POST', '/fields/gauges', { field: 'kept', type: 'integer', schema: { default_value: 7 } }));
    expectOk(
      await api('POST', '/fields/gauges', {
        field: 'kept_de',
        type: 'decimal',
        schema: { numeric_precision: 10, numeric_scale: 2, default_value: '12345.5' },
      }),
    );
    const kept = await fieldOf('kept');
    const keptDecimal = await fieldOf('kept_de');
    // knex wrote 7 as a boolean's false.
    expectError(
      await api('PATCH', '/fields/gauges/kept', { type: 'boolean' }),
      400,
      'INVALID_PAYLOAD',
      /The default value 7 of field "kept" of collection "gauges" is not a boolean/,
    );
    const graphql = await api('POST', '/graphql/system', {
      query: 'mutation { update_fields_item(collection: "gauges", field: "kept", data: { type: "boolean" }) { type } }',
    });
    expect(graphql.body.errors?.[0]?.message).to.match(/The default value 7 of field "kept"/);
    expectError(
      await api('PATCH', '/fields/gauges/kept_de', { schema: { numeric_precision: 5 } }),
      400,
      'INVALID_PAYLOAD',
      /The default value "12345.5" of field "kept_de" of collection "gauges" is not a number of at most 3 digits/,
    );
    const snapshot = expectOk(await api('GET', '/schema/snapshot'));
    snapshot.fields.find((f: any) => f.collection === 'gauges' && f.field === 'kept').type = 'boolean';
    expectError(
      await api('POST', '/schema/diff', snapshot),
      400,
      'INVALID_PAYLOAD',
      /The default value 7 of field "kept" of collection "gauges" is not a boolean/,
    );
    expect(await fieldOf('kept')).to.deep.equal(kept);
    expect(await fieldOf('kept_de')).to.deep.equal(keptDecimal);
    // The current time is no text: knex wrote it as '{"fn":"now"}'.
    expectOk(
      await api('POST', '/fields/gauges', { field: 'kept_ts', type: 'timestamp', schema: { default_value: 'now()' } }),
    );
    expectError(
      await api('PATCH', '/fields/gauges/kept_ts', { type: 'string' }),
      400,
      'INVALID_PAYLOAD',
      /The default value CURRENT_TIMESTAMP of field "kept_ts" of collection "gauges" is not a text or a number/,
    );
    expectOk(await api('PATCH', '/fields/gauges/kept_ts', { type: 'string', schema: { default_value: null } }));
    expectOk(await api('DELETE', '/fields/gauges/kept_ts'), 204);
    // One the new type holds stays (the row there when the field came holds 7: allowed to become true).
    expectOk(await api('PATCH', '/fields/gauges/kept', { schema: { default_value: 1 } }));
    const changed = expectOk(await api('PATCH', '/fields/gauges/kept?allow_destructive=true', { type: 'boolean' }));
    expect(changed.schema.default_value).to.equal(true);
    expectOk(await api('DELETE', '/fields/gauges/kept'), 204);
    expectOk(await api('DELETE', '/fields/gauges/kept_de'), 204);
  });

  it('valid defaults keep working, and new items get them as values of their type', async () => {
    const uuid = '6f1c3c1e-8f5e-4d0e-9a57-0c1d2e3f4a5b';
    const defaults: Record<string, unknown> = {
      n: 42,
      f: 1.5,
      de: '12345678.99',
      b: false,
      d: '2024-02-29',
      u: uuid,
      s: 'hello',
    };
    for (const [field, value] of Object.entries(defaults)) {
      const changed = expectOk(await api('PATCH', `/fields/gauges/${field}`, { schema: { default_value: value } }));
      expect(changed.schema.default_value, field).to.deep.equal(value);
    }
    // Numeric text as today, and the boolean's other spellings as the boolean they name.
    expect(
      expectOk(await api('PATCH', '/fields/gauges/n', { schema: { default_value: '7' } })).schema.default_value,
    ).to.equal(7);
    expect(
      expectOk(await api('PATCH', '/fields/gauges/b', { schema: { default_value: '0' } })).schema.default_value,
    ).to.equal(false);
    expect(
      expectOk(await api('PATCH', '/fields/gauges/b', { schema: { default_value: 'true' } })).schema.default_value,
    ).to.equal(true);
    const added = expectOk(
      await api('POST', '/fields/gauges', {
        field: 'seen',
        type: 'timestamp',
        schema: { default_value: 'CURRENT_TIMESTAMP' },
      }),
    );
    expect(added.schema.default_value).to.equal('CURRENT_TIMESTAMP');
    expectOk(await api('POST', '/fields/gauges', { field: 'js', type: 'json', schema: { default_value: { x: 1 } } }));
    const item = expectOk(await api('POST', '/items/gauges', {}));
    expect(item).to.deep.include({ n: 7, f: 1.5, b: true, d: '2024-02-29', u: uuid, s: 'hello', js: { x: 1 } });
    expect(item.seen).to.be.a('string');
    // The rows already there got the time as well (SQLite adds such a column in two steps).
    expect(await ctx().server.db('gauges').whereNull('seen').first('id')).to.equal(undefined);
  });
});
