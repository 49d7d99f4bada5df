import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { expectError, expectOk, insertRow, schemaApi } from './schema-api.js';

/**
 * Schema changes the data refuses come out as 400 naming the field (never 500), and leave
 * the column, its keys and its metadata as they were.
 */
describeEachDatabase('schema routes: changes the data refuses', (ctx) => {
  const api = schemaApi(ctx);
  /** The field as GET /fields shows it. */
  const fieldOf = async (field: string) => expectOk(await api('GET', `/fields/crates/${field}`));

  before(async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'crates',
        schema: {},
        fields: [
          { field: 'label', type: 'string', schema: { max_length: 40 } },
          { field: 'code', type: 'string' },
          { field: 'weight', type: 'bigInteger' },
          { field: 'notes', type: 'text' },
        ],
      }),
    );
    await insertRow(ctx, 'crates', {
      label: 'a long label of many letters',
      code: 'same',
      weight: 5,
      notes: 'notes longer than twenty letters',
    });
    await insertRow(ctx, 'crates', { label: 'short', code: 'same', weight: '9007199254740993', notes: 'x' });
  });

  it('a unique key over duplicate values: RECORD_NOT_UNIQUE naming the field, nothing changed', async () => {
    const before = await fieldOf('code');
    // The length changes first (MySQL: committed, then undone when the unique key fails).
    const result = await api('PATCH', '/fields/crates/code', {
      schema: { is_unique: true, max_length: 100 },
      meta: { note: 'changed' },
    });
    expectError(result, 400, 'RECORD_NOT_UNIQUE', /field "code" in collection "crates"/);
    expect(result.body.errors[0].extensions).to.include({ collection: 'crates', field: 'code' });
    expect(await fieldOf('code')).to.deep.equal(before);
    await insertRow(ctx, 'crates', { label: 'third', code: 'same' });
  });

  it('a new unique field over duplicate defaults: RECORD_NOT_UNIQUE, no column added', async () => {
    const result = await api('POST', '/fields/crates', {
      field: 'tag',
      type: 'string',
      schema: { is_unique: true, default_value: 'x' },
    });
    expectError(result, 400, 'RECORD_NOT_UNIQUE', /field "tag" in collection "crates"/);
    expect(await ctx().server.db.schema.hasColumn('crates', 'tag')).to.equal(false);
    expectError(await api('GET', '/fields/crates/tag'), 403, 'FORBIDDEN');
  });

  it('a type the values cannot be converted to: INVALID_PAYLOAD naming the field, nothing changed', async () => {
    const before = await fieldOf('code');
    const result = await api('PATCH', '/fields/crates/code', { type: 'integer', meta: { note: 'changed' } });
    expectError(result, 400, 'INVALID_PAYLOAD', /"code"/);
    expect(result.body.errors[0].extensions.reason).to.match(
      /Field "code" of collection "crates" can't be altered to "integer"/,
    );
    expect(await fieldOf('code')).to.deep.equal(before);
    expect(
      (await ctx().server.db('crates').orderBy('id').select('code')).map((r: { code: unknown }) => r.code),
    ).to.deep.equal(['same', 'same', 'same']);
  });

  it('a length shorter than stored values: VALUE_TOO_LONG naming the field, nothing changed or cut', async () => {
    // PostgreSQL would cut the values (USING label::varchar(10)), SQLite keep them: refused on all.
    const before = await fieldOf('label');
    const result = await api('PATCH', '/fields/crates/label', { schema: { max_length: 10 } });
    expectError(result, 400, 'VALUE_TOO_LONG', /field "label" in collection "crates"/);
    expect(await fieldOf('label')).to.deep.equal(before);
    const notes = await api('PATCH', '/fields/crates/notes', { type: 'string', schema: { max_length: 20 } });
    expectError(notes, 400, 'VALUE_TOO_LONG', /field "notes" in collection "crates"/);
    const labels = await ctx().server.db('crates').orderBy('id').select('label');
    expect(labels.map((r: { label: unknown }) => r.label)).to.deep.equal([
      'a long label of many letters',
      'short',
      'third',
    ]);
  });

  it('a narrower number type than stored values: VALUE_OUT_OF_RANGE naming the field, nothing changed', async function () {
    // SQLite's integer affinity holds 64 bits whatever the declared type: nothing to refuse.
    if (ctx().dialect === 'sqlite') this.skip();
    const before = await fieldOf('weight');
    const result = await api('PATCH', '/fields/crates/weight', { type: 'integer' });
    expectError(result, 400, 'VALUE_OUT_OF_RANGE', /field "weight" in collection "crates"/);
    expect(await fieldOf('weight')).to.deep.equal(before);
  });
});
