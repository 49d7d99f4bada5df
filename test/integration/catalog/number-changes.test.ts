import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { sendForm } from '../files/helpers.js';
import { expectError, expectOk, schemaApi } from './schema-api.js';

const id = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };

/**
 * A new type, precision or scale that would store a number as another value (a fraction
 * dropped, digits rounded) is refused naming the field and a value, through PATCH /fields and
 * /schema/apply alike, unless the caller allows destructive changes; then every database,
 * SQLite included, stores the values PostgreSQL and MariaDB convert them to.
 */
describeEachDatabase('schema changes that would change stored numbers', (ctx) => {
  const api = schemaApi(ctx);
  const fieldOf = async (collection: string, field: string) =>
    expectOk(await api('GET', `/fields/${collection}/${field}`));
  /** One column of every row, as the database holds it (numbers as numbers, decimals as text). */
  const valuesOf = async (collection: string, field: string): Promise<unknown[]> => {
    const rows: Record<string, unknown>[] = await ctx().server.db(collection).orderBy('id').select(field);
    return rows.map((row) => (typeof row[field] === 'string' ? Number(row[field]) : row[field]));
  };
  /** SQLite keeps any value in any column: the stored type says whether it was converted. */
  const expectSqliteTypes = async (collection: string, field: string, types: string[]): Promise<void> => {
    if (ctx().dialect !== 'sqlite') return;
    const rows: { t: unknown }[] = await ctx()
      .server.db(collection)
      .orderBy('id')
      .select(ctx().server.db.raw('typeof(??) as t', [field]));
    expect(rows.map((r) => r.t)).to.deep.equal(types);
  };
  const createArticles = async (collection: string, rows: Record<string, unknown>[]) => {
    expectOk(
      await api('POST', '/collections', {
        collection,
        schema: {},
        fields: [
          id,
          { field: 'price', type: 'decimal', schema: { numeric_precision: 10, numeric_scale: 2 } },
          { field: 'ratio', type: 'float' },
          { field: 'whole', type: 'float' },
          { field: 'amount', type: 'string' },
        ],
      }),
    );
    expectOk(await api('POST', `/items/${collection}`, rows));
  };

  before(async () => {
    await createArticles('articles', [
      { price: '12.34', ratio: 0.1, whole: 3, amount: '12.346' },
      { price: '2.5', ratio: 2.5, whole: -4, amount: '7' },
    ]);
  });

  it('PATCH /fields: a smaller scale or an integer type over fractions is refused, naming the field and a value', async () => {
    const price = await fieldOf('articles', 'price');
    const scale = await api('PATCH', '/fields/articles/price', { schema: { numeric_scale: 0 } });
    expectError(
      scale,
      400,
      'INVALID_PAYLOAD',
      /Field "price" of collection "articles" can't be altered to "decimal\(10, 0\)"/,
    );
    expect(scale.body.errors[0].message)
      .to.match(/12\.34 would become 12\b/)
      .and.match(/allow_destructive=true/);
    expect(await fieldOf('articles', 'price')).to.deep.equal(price);

    const ratio = await fieldOf('articles', 'ratio');
    const integer = await api('PATCH', '/fields/articles/ratio', { type: 'integer' });
    expectError(
      integer,
      400,
      'INVALID_PAYLOAD',
      /Field "ratio" of collection "articles" can't be altered to "integer"/,
    );
    expect(integer.body.errors[0].message).to.match(/0\.1 would become 0\b/);
    expect(await fieldOf('articles', 'ratio')).to.deep.equal(ratio);

    // Text to a number: digits the scale would round away.
    const amount = await api('PATCH', '/fields/articles/amount', {
      type: 'decimal',
      schema: { numeric_precision: 10, numeric_scale: 2 },
    });
    expectError(amount, 400, 'INVALID_PAYLOAD', /Field "amount" .* \(12\.346 would become 12\.35\)/);
    expect(await valuesOf('articles', 'price')).to.deep.equal([12.34, 2.5]);
    expect(await valuesOf('articles', 'ratio')).to.deep.equal([0.1, 2.5]);
    expect(await valuesOf('articles', 'amount')).to.deep.equal([12.346, 7]);
  });

  it('PATCH /fields: a change no stored value minds is applied, the values taking the new type', async () => {
    expectOk(await api('PATCH', '/fields/articles/whole', { type: 'integer' }));
    expect(await valuesOf('articles', 'whole')).to.deep.equal([3, -4]);
    await expectSqliteTypes('articles', 'whole', ['integer', 'integer']);
    expectOk(await api('PATCH', '/fields/articles/price', { schema: { numeric_precision: 12, numeric_scale: 3 } }));
    expect(await valuesOf('articles', 'price')).to.deep.equal([12.34, 2.5]);
  });

  it('PATCH /fields: a precision too small for a stored value is VALUE_OUT_OF_RANGE, even when allowed', async () => {
    const price = await fieldOf('articles', 'price');
    for (const query of ['', '?allow_destructive=true']) {
      const result = await api('PATCH', `/fields/articles/price${query}`, {
        schema: { numeric_precision: 3, numeric_scale: 2 },
      });
      expectError(result, 400, 'VALUE_OUT_OF_RANGE', /field "price" in collection "articles"/);
    }
    expect(await fieldOf('articles', 'price')).to.deep.equal(price);
  });

  it('PATCH /fields?allow_destructive=true: the values converted as PostgreSQL and MariaDB convert them, on every database', async () => {
    expectOk(await api('PATCH', '/fields/articles/price?allow_destructive=true', { schema: { numeric_scale: 0 } }));
    // A decimal's tie rounds away from zero, a float's to even.
    expect(await valuesOf('articles', 'price')).to.deep.equal([12, 3]);
    expectOk(await api('PATCH', '/fields/articles/ratio?allow_destructive=true', { type: 'integer' }));
    expect(await valuesOf('articles', 'ratio')).to.deep.equal([0, 2]);
    await expectSqliteTypes('articles', 'ratio', ['integer', 'integer']);
    expectOk(
      await api('PATCH', '/fields/articles/amount?allow_destructive=true', {
        type: 'decimal',
        schema: { numeric_precision: 10, numeric_scale: 2 },
      }),
    );
    expect(await valuesOf('articles', 'amount')).to.deep.equal([12.35, 7]);
    // What the API reads back is what it takes again: an exported item imports.
    const items = expectOk(await api('GET', '/items/articles?sort=id'));
    expect(items.map((item: any) => Number(item.price))).to.deep.equal([12, 3]);
    expect(items.map((item: any) => item.ratio)).to.deep.equal([0, 2]);
    expectOk(await api('PATCH', '/items/articles', items));
  });

  it('/schema/apply: the change is listed as destructive, refused without the flag, applied with it', async () => {
    await createArticles('products', [{ price: '12.34', ratio: 0.1, whole: 3, amount: '5' }]);
    const snapshot = expectOk(await api('GET', '/schema/snapshot'));
    const fieldIn = (field: string) =>
      snapshot.fields.find((f: any) => f.collection === 'products' && f.field === field);
    fieldIn('price').schema.numeric_scale = 0;
    fieldIn('ratio').type = 'integer';
    fieldIn('whole').type = 'integer';
    const plan = expectOk(await api('POST', '/schema/diff', snapshot));
    expect(plan.diff.destructive).to.deep.equal(['update field "products.price"', 'update field "products.ratio"']);
    const refused = await api('POST', '/schema/apply', plan);
    expectError(refused, 400, 'INVALID_PAYLOAD', /changes stored values/);
    expect(await valuesOf('products', 'price')).to.deep.equal([12.34]);
    expect(await valuesOf('products', 'ratio')).to.deep.equal([0.1]);
    expect((await fieldOf('products', 'ratio')).type).to.equal('float');

    expectOk(await api('POST', '/schema/apply?allow_destructive=true', plan), 204);
    expect(await valuesOf('products', 'price')).to.deep.equal([12]);
    expect(await valuesOf('products', 'ratio')).to.deep.equal([0]);
    expect(await valuesOf('products', 'whole')).to.deep.equal([3]);
    await expectSqliteTypes('products', 'ratio', ['integer']);
    expect((await api('POST', '/schema/diff', snapshot)).status).to.equal(204);
  });
});

/** What PostgreSQL and MariaDB store for a decimal with more digits than its scale, SQLite too. */
describeEachDatabase('decimals written with more digits than the scale', (ctx) => {
  const api = schemaApi(ctx);

  before(async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'prices',
        schema: {},
        fields: [id, { field: 'd', type: 'decimal', schema: { numeric_precision: 10, numeric_scale: 2 } }],
      }),
    );
  });

  it('are stored rounded to the scale, half away from zero on the digits as written', async () => {
    expectOk(await api('POST', '/items/prices', [{ d: 1.005 }, { d: '2.675' }, { d: -0.125 }, { d: '1e-3' }]));
    const imported = await sendForm(ctx(), 'POST', '/utils/import/prices', [
      ['file', JSON.stringify([{ d: 1.005 }, { d: '12.344' }]), 'data.json', 'application/json'],
    ]);
    expect(imported.status, JSON.stringify(imported.body)).to.be.oneOf([200, 204]);
    const rows: { d: unknown }[] = await ctx().server.db('prices').orderBy('id').select('d');
    expect(rows.map((r) => Number(r.d))).to.deep.equal([1.01, 2.68, -0.13, 0, 1.01, 12.34]);
  });
});

/**
 * An integer to a boolean keeps 0 and 1 and makes any other number true: refused naming such
 * a value unless allowed, through PATCH /fields, GraphQL and /schema/apply alike; allowed,
 * every database stores true (MariaDB's tinyint(1) and SQLite kept 5, which no filter on
 * true found). Text to a float: text a float can't hold is refused on every database
 * (PostgreSQL read NaN and Infinity, which then read back as null; SQLite kept 1e39).
 */
describeEachDatabase('schema changes to a boolean, and from text to a float', (ctx) => {
  const api = schemaApi(ctx);
  const fieldOf = async (field: string) => expectOk(await api('GET', `/fields/flags/${field}`));
  const valuesOf = async (field: string): Promise<unknown[]> => {
    const rows: Record<string, unknown>[] = await ctx().server.db('flags').orderBy('id').select(field);
    return rows.map((row) => (typeof row[field] === 'boolean' ? Number(row[field]) : row[field]));
  };
  const texts = ['NaN', 'Infinity', '-inf', '1e39', ' 12 '];

  before(async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'flags',
        schema: {},
        fields: [
          id,
          { field: 'n', type: 'integer' },
          { field: 'm', type: 'integer' },
          { field: 'z', type: 'integer' },
          ...texts.map((_, i) => ({ field: `t${String(i)}`, type: 'string' })),
        ],
      }),
    );
    expectOk(
      await api('POST', '/items/flags', [
        { n: 5, m: -2, z: 1, ...Object.fromEntries(texts.map((text, i) => [`t${String(i)}`, text])) },
        { n: 0, m: 1, z: 0 },
      ]),
    );
  });

  it('integer → boolean over other values than 0 and 1: refused naming one, through PATCH, GraphQL and /schema/apply', async () => {
    const n = await fieldOf('n');
    const refused = await api('PATCH', '/fields/flags/n', { type: 'boolean' });
    expectError(
      refused,
      400,
      'INVALID_PAYLOAD',
      /Field "n" of collection "flags" can't be altered to "boolean" without changing stored values \(5 would become true\)/,
    );
    expect(refused.body.errors[0].message).to.match(/allow_destructive=true/);
    const graphql = await api('POST', '/graphql/system', {
      query: 'mutation { update_fields_item(collection: "flags", field: "n", data: { type: "boolean" }) { type } }',
    });
    expect(graphql.body.errors?.[0]?.message).to.match(/5 would become true/);
    const snapshot = expectOk(await api('GET', '/schema/snapshot'));
    snapshot.fields.find((f: any) => f.collection === 'flags' && f.field === 'n').type = 'boolean';
    const plan = expectOk(await api('POST', '/schema/diff', snapshot));
    expect(plan.diff.destructive).to.deep.equal(['update field "flags.n"']);
    expectError(await api('POST', '/schema/apply', plan), 400, 'INVALID_PAYLOAD', /changes stored values/);
    expect(await fieldOf('n')).to.deep.equal(n);
    expect(await valuesOf('n')).to.deep.equal([5, 0]);
    // Only 0 and 1 (and null): nothing to allow.
    expect(expectOk(await api('PATCH', '/fields/flags/z', { type: 'boolean' })).type).to.equal('boolean');
    expect(await valuesOf('z')).to.deep.equal([1, 0]);
  });

  it('integer → boolean allowed: every other number is stored as true, on every database', async () => {
    expectOk(await api('PATCH', '/fields/flags/n?allow_destructive=true', { type: 'boolean' }));
    expect(await valuesOf('n')).to.deep.equal([1, 0]);
    const snapshot = expectOk(await api('GET', '/schema/snapshot'));
    snapshot.fields.find((f: any) => f.collection === 'flags' && f.field === 'm').type = 'boolean';
    const plan = expectOk(await api('POST', '/schema/diff', snapshot));
    expectOk(await api('POST', '/schema/apply?allow_destructive=true', plan), 204);
    expect(await valuesOf('m')).to.deep.equal([1, 1]);
    const trues = expectOk(await api('GET', '/items/flags?fields=id&filter[m][_eq]=true&sort=id'));
    expect(trues).to.deep.equal([{ id: 1 }, { id: 2 }]);
  });

  it('text → float: NaN and Infinity are refused, a number a float cannot hold is out of range, on every database', async () => {
    for (const [i, text] of texts.slice(0, 3).entries()) {
      const field = `t${String(i)}`;
      const before = await fieldOf(field);
      for (const query of ['', '?allow_destructive=true']) {
        expectError(
          await api('PATCH', `/fields/flags/${field}${query}`, { type: 'float' }),
          400,
          'INVALID_PAYLOAD',
          new RegExp(`Field "${field}" of collection "flags" can't be altered to "float"`),
        );
      }
      expect(await fieldOf(field), text).to.deep.equal(before);
      expect(await valuesOf(field)).to.deep.equal([text, null]);
    }
    expectError(
      await api('PATCH', '/fields/flags/t3', { type: 'float' }),
      400,
      'VALUE_OUT_OF_RANGE',
      /field "t3" in collection "flags"/,
    );
    expect(await valuesOf('t3')).to.deep.equal(['1e39', null]);
    expectOk(await api('PATCH', '/fields/flags/t4', { type: 'float' }));
    expect(await valuesOf('t4')).to.deep.equal([12, null]);
  });
});
