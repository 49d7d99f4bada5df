import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { expectError, expectOk, schemaApi } from './schema-api.js';

const id = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };

/**
 * The type of a field a relation uses (its foreign key, an a2o's collection field) changes
 * only to the type of the key at the other end: an m2o's foreign key to another type was a
 * 500 on PostgreSQL and MariaDB (the constraint refused it) and made on SQLite, leaving a key
 * of another type than the one it refers to. Now a 400 naming the relation, nothing changed.
 */
describeEachDatabase('schema routes: types of fields relations use', (ctx) => {
  const api = schemaApi(ctx);

  before(async () => {
    expectOk(
      await api('POST', '/collections', [
        { collection: 'authors', schema: {}, fields: [id, { field: 'name', type: 'string' }] },
        {
          collection: 'labels',
          schema: {},
          fields: [{ field: 'code', type: 'string', schema: { is_primary_key: true } }],
        },
        {
          collection: 'things',
          schema: {},
          fields: [
            id,
            { field: 's_str', type: 'string' },
            { field: 'author', type: 'integer' },
            { field: 'label', type: 'hash' },
            { field: 'item', type: 'string' },
            { field: 'kind', type: 'string' },
          ],
        },
      ]),
    );
    expectOk(await api('POST', '/relations', { collection: 'things', field: 'author', related_collection: 'authors' }));
    expectOk(await api('POST', '/relations', { collection: 'things', field: 'label', related_collection: 'labels' }));
    expectOk(
      await api('POST', '/relations', {
        collection: 'things',
        field: 'item',
        related_collection: null,
        meta: { one_collection_field: 'kind', one_allowed_collections: ['authors'] },
      }),
    );
    const author = expectOk(await api('POST', '/items/authors', { name: 'Ann' }));
    expectOk(await api('POST', '/items/things', { s_str: 'a', author: author.id }));
  });

  it("PATCH an m2o's foreign key to another type than its key's: INVALID_PAYLOAD naming the relation", async () => {
    const before = expectOk(await api('GET', '/fields/things'));
    for (const type of ['string', 'bigInteger']) {
      expectError(
        await api('PATCH', '/fields/things/author', { type }),
        400,
        'INVALID_PAYLOAD',
        new RegExp(
          `Field "author" of collection "things" can't be altered to "${type}": relation "things.author" to "authors" uses it as its foreign key, and "authors.id" is of type "integer"`,
        ),
      );
    }
    expectError(
      await api('PATCH', '/fields/things/item', { type: 'text' }),
      400,
      'INVALID_PAYLOAD',
      /relation "things.item" \(many-to-any\) uses it as its foreign key/,
    );
    expectError(
      await api('PATCH', '/fields/things/kind', { type: 'text' }),
      400,
      'INVALID_PAYLOAD',
      /relation "things.item" \(many-to-any\) uses it for the collection of each item/,
    );
    expect(expectOk(await api('GET', '/fields/things'))).to.deep.equal(before);
    const [item] = expectOk(await api('GET', '/items/things?fields=author.name'));
    expect(item).to.deep.equal({ author: { name: 'Ann' } });
  });

  it("changes that keep the key's type still work", async () => {
    // To the key's type (hash and string are both a varchar(255)).
    expectOk(await api('PATCH', '/fields/things/label', { type: 'string' }));
    expectOk(await api('PATCH', '/fields/things/author', { meta: { note: 'who wrote it' } }));
    expectOk(await api('PATCH', '/fields/things/s_str', { type: 'text' }));
    const [item] = expectOk(await api('GET', '/items/things?fields=s_str,author.name'));
    expect(item).to.deep.equal({ s_str: 'a', author: { name: 'Ann' } });
  });
});
