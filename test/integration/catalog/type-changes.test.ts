import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { expectError, expectOk, schemaApi } from './schema-api.js';

const id = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };

/**
 * Type changes the database can't make are a 400 naming the field on every database, with
 * nothing changed: PostgreSQL has no cast from json to integer at all (`cannot cast type json
 * to integer`, a 500), where SQLite and MariaDB refuse the stored values they can't convert.
 */
describeEachDatabase('schema routes: type changes', (ctx) => {
  const api = schemaApi(ctx);

  before(async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'things',
        schema: {},
        fields: [
          id,
          { field: 's_str', type: 'string' },
          { field: 'j_json', type: 'json' },
          { field: 'h_hash', type: 'hash' },
          { field: 'n_big', type: 'bigInteger' },
          { field: 'n_float', type: 'float' },
          { field: 'n_dec', type: 'decimal' },
        ],
      }),
    );
    expectOk(
      await api('POST', '/items/things', {
        s_str: 'a',
        j_json: { a: 1 },
        h_hash: 'secret',
        n_big: 1,
        n_float: 0.5,
        n_dec: 2,
      }),
    );
  });

  it('PATCH json → integer: INVALID_PAYLOAD naming the field, the field and its values unchanged', async () => {
    const before = expectOk(await api('GET', '/fields/things/j_json'));
    expectError(
      await api('PATCH', '/fields/things/j_json', { type: 'integer' }),
      400,
      'INVALID_PAYLOAD',
      /Field "j_json" of collection "things" can't be altered to "integer": a stored value can't be converted/,
    );
    expect(expectOk(await api('GET', '/fields/things/j_json'))).to.deep.equal(before);
    expect(expectOk(await api('GET', '/items/things'))[0]).to.deep.include({ j_json: { a: 1 } });
  });

  // PostgreSQL has no cast from bigint, real or numeric to boolean; MariaDB rounded 0.5 to false, SQLite kept it.
  it('PATCH bigInteger, float or decimal → boolean: INVALID_PAYLOAD on every database, nothing changed', async () => {
    for (const field of ['n_big', 'n_float', 'n_dec']) {
      const before = expectOk(await api('GET', `/fields/things/${field}`));
      expectError(
        await api('PATCH', `/fields/things/${field}?allow_destructive=true`, { type: 'boolean' }),
        400,
        'INVALID_PAYLOAD',
        new RegExp(
          `Field "${field}" of type "${before.type}" can't be altered to "boolean": only an integer becomes a boolean`,
        ),
      );
      expect(expectOk(await api('GET', `/fields/things/${field}`))).to.deep.equal(before);
    }
    const [item] = expectOk(await api('GET', '/items/things?fields=n_big,n_float,n_dec'));
    expect([Number(item.n_big), item.n_float, Number(item.n_dec)]).to.deep.equal([1, 0.5, 2]);
  });

  // The hash special fixes the field's type (hash), whatever its column: it goes with the type.
  it('PATCH hash → string: the hash special goes with it, and the field reads as a string', async () => {
    const stored: { h_hash: string } = await ctx().server.db('things').first('h_hash');
    const changed = expectOk(await api('PATCH', '/fields/things/h_hash', { type: 'string' }));
    expect(changed).to.deep.include({ type: 'string' });
    expect(changed.meta.special).to.equal(null);
    expect(expectOk(await api('GET', '/fields/things/h_hash')).type).to.equal('string');
    // No longer masked: the stored text, as a string field reads it.
    expect(expectOk(await api('GET', '/items/things?fields=h_hash'))).to.deep.equal([{ h_hash: stored.h_hash }]);
    expect(expectOk(await api('PATCH', '/fields/things/h_hash', { type: 'hash' })).meta.special).to.deep.equal([
      'hash',
    ]);
  });

  it('PATCH of a type with a special that makes another type: INVALID_PAYLOAD, nothing changed', async () => {
    const before = expectOk(await api('GET', '/fields/things/s_str'));
    expectError(
      await api('PATCH', '/fields/things/s_str', { type: 'string', meta: { special: ['hash'] } }),
      400,
      'INVALID_PAYLOAD',
      /Field "s_str" of collection "things" can't be of type "string" with special "hash": that special makes its type "hash"/,
    );
    expect(expectOk(await api('GET', '/fields/things/s_str'))).to.deep.equal(before);
  });
});
