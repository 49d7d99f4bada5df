import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { expectError, expectOk, insertRow, schemaApi } from './schema-api.js';

describeEachDatabase('schema routes: fields', (ctx) => {
  const api = schemaApi(ctx);

  before(async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'books',
        schema: {},
        fields: [
          { field: 'title', type: 'string', meta: { sort: 1 } },
          { field: 'pages', type: 'integer', meta: { sort: 2 } },
        ],
      }),
    );
    await insertRow(ctx, 'books', { title: 'First' });
    await insertRow(ctx, 'books', { title: null, pages: 10 });
  });

  it('lists fields in meta.sort then name order, and all fields of all collections', async () => {
    const fields: any[] = expectOk(await api('GET', '/fields/books'));
    expect(fields.map((f) => f.field)).to.deep.equal(['title', 'pages', 'id']);
    const all: any[] = expectOk(await api('GET', '/fields'));
    expect(all.some((f) => f.collection === 'books' && f.field === 'pages')).to.equal(true);
    expect(all.find((f) => f.collection === 'svc_users' && f.field === 'password')).to.deep.include({ type: 'hash' });
    const password = expectOk(await api('GET', '/fields/directus_users/password'));
    expect(password.meta).to.include({ system: true });
    expect(password.meta.special).to.include('hash');
  });

  it('adds a column with its metadata, and an alias field with metadata only', async () => {
    const added = expectOk(
      await api('POST', '/fields/books', {
        field: 'isbn',
        type: 'string',
        meta: { interface: 'input', note: 'ISBN-13', required: true },
        schema: { max_length: 17, is_unique: true },
      }),
    );
    expect(added).to.deep.include({ collection: 'books', field: 'isbn', type: 'string' });
    expect(added.meta).to.include({ interface: 'input', note: 'ISBN-13', required: true });
    expect(added.schema).to.include({ max_length: 17, is_unique: true, is_nullable: true });
    expect(await ctx().server.db.schema.hasColumn('books', 'isbn')).to.equal(true);
    expect((await ctx().server.schema.getOverview()).collections['books']?.fields['isbn']?.required).to.equal(true);

    const alias = expectOk(
      await api('POST', '/fields/books', {
        field: 'notice',
        type: 'alias',
        meta: { interface: 'presentation-notice' },
      }),
    );
    expect(alias).to.deep.include({ type: 'alias', schema: null });
    expect(alias.meta.special).to.deep.equal(['alias', 'no-data']);
    expect(await ctx().server.db.schema.hasColumn('books', 'notice')).to.equal(false);
  });

  it('adds a NOT NULL column to an empty table, refuses one without default on a table with rows', async () => {
    expectOk(await api('POST', '/collections', { collection: 'empty_shelf', schema: {}, fields: [] }));
    const strict = expectOk(
      await api('POST', '/fields/empty_shelf', { field: 'label', type: 'string', schema: { is_nullable: false } }),
    );
    expect(strict.schema.is_nullable).to.equal(false);

    expectError(
      await api('POST', '/fields/books', { field: 'required_col', type: 'string', schema: { is_nullable: false } }),
      400,
      'CONTAINS_NULL_VALUES',
      /Field "required_col" in collection "books" contains null values/,
    );
    expect(await ctx().server.db.schema.hasColumn('books', 'required_col')).to.equal(false);
    const filled = expectOk(
      await api('POST', '/fields/books', {
        field: 'format',
        type: 'string',
        schema: { is_nullable: false, default_value: 'paper' },
      }),
    );
    expect(filled.schema).to.include({ is_nullable: false, default_value: 'paper' });
    expect((await ctx().server.db('books').first('format'))?.['format']).to.equal('paper');
  });

  it('alters length, default, type and nullability; refuses NOT NULL over nulls', async () => {
    const longer = expectOk(
      await api('PATCH', '/fields/books/title', { schema: { max_length: 500, default_value: 'Untitled' } }),
    );
    expect(longer.schema).to.include({ max_length: 500, default_value: 'Untitled' });
    expect(longer.meta.sort).to.equal(1);

    const text = expectOk(await api('PATCH', '/fields/books/isbn', { type: 'text' }));
    expect(text.type).to.equal('text');

    expectError(
      await api('PATCH', '/fields/books/title', { schema: { is_nullable: false } }),
      400,
      'CONTAINS_NULL_VALUES',
      /Field "title" in collection "books" contains null values/,
    );
    await ctx().server.db('books').whereNull('title').update({ title: 'Filled' });
    const strict = expectOk(await api('PATCH', '/fields/books/title', { schema: { is_nullable: false } }));
    expect(strict.schema).to.include({ is_nullable: false, max_length: 500 });
    // The rows survive every alteration (SQLite rebuilds the table to alter it).
    expect((await ctx().server.db('books').orderBy('id').select('title')).map((r) => r['title'])).to.deep.equal([
      'First',
      'Filled',
    ]);
  });

  it('updates meta only, one field or several', async () => {
    const one = expectOk(await api('PATCH', '/fields/books/pages', { meta: { note: 'page count', width: 'half' } }));
    expect(one.meta).to.include({ note: 'page count', width: 'half', sort: 2 });
    const many: any[] = expectOk(
      await api('PATCH', '/fields/books', [
        { field: 'pages', meta: { hidden: true } },
        { field: 'title', meta: { required: true } },
      ]),
    );
    expect(many.map((f) => [f.field, f.meta.hidden, f.meta.required])).to.deep.equal([
      ['pages', true, false],
      ['title', false, true],
    ]);
    // A field created outside the service gets its svc_fields row on the first meta update.
    await ctx().server.db.schema.alterTable('books', (t) => t.string('legacy'));
    expectOk(await api('POST', '/utils/cache/clear'));
    expect(expectOk(await api('GET', '/fields/books/legacy')).meta).to.equal(null);
    expect(expectOk(await api('PATCH', '/fields/books/legacy', { meta: { note: 'old' } })).meta).to.include({
      note: 'old',
      collection: 'books',
    });
  });

  it('refuses duplicates, bad names, unknown types and primary-key or system changes', async () => {
    expectError(
      await api('POST', '/fields/books', { field: 'title', type: 'string' }),
      400,
      'INVALID_PAYLOAD',
      /Field "title" already exists in collection "books"/,
    );
    expectError(
      await api('POST', '/fields/books', { field: 'bad name', type: 'string' }),
      400,
      'INVALID_PAYLOAD',
      /not an identifier/,
    );
    expectError(
      await api('POST', '/fields/books', { field: 'y'.repeat(64), type: 'string' }),
      400,
      'INVALID_PAYLOAD',
      /longer than 63/,
    );
    expectError(
      await api('POST', '/fields/books', { field: 'cost', type: 'money' }),
      400,
      'INVALID_PAYLOAD',
      /unknown type "money"/,
    );
    expectError(await api('POST', '/fields/books', { field: 'cost' }), 400, 'INVALID_PAYLOAD', /"type" is required/);
    expectError(
      await api('POST', '/fields/books', { field: 'key2', type: 'integer', schema: { is_primary_key: true } }),
      400,
      'INVALID_PAYLOAD',
      /primary key/,
    );
    expectError(
      await api('PATCH', '/fields/books/id', { type: 'string' }),
      422,
      'UNPROCESSABLE_ENTITY',
      /type of primary key "books.id" can't be changed/,
    );
    expectError(
      await api('DELETE', '/fields/books/id'),
      422,
      'UNPROCESSABLE_ENTITY',
      /Primary key "books.id" can't be deleted/,
    );
    expectError(
      await api('PATCH', '/fields/books/notice', { type: 'string' }),
      400,
      'INVALID_PAYLOAD',
      /between alias and column/,
    );
    expectError(
      await api('PATCH', '/fields/svc_users/email', { meta: { note: 'x' } }),
      422,
      'UNPROCESSABLE_ENTITY',
      /System field "svc_users.email"/,
    );
    expectError(await api('DELETE', '/fields/svc_users/email'), 422, 'UNPROCESSABLE_ENTITY');
  });

  it('answers FORBIDDEN for unknown collections and fields, and to non-admins', async () => {
    expectError(await api('GET', '/fields/nowhere'), 403, 'FORBIDDEN');
    expectError(await api('GET', '/fields/books/nothing'), 403, 'FORBIDDEN');
    expectError(await api('POST', '/fields/nowhere', { field: 'a', type: 'string' }), 403, 'FORBIDDEN');
    expectError(await api('PATCH', '/fields/books/nothing', { meta: {} }), 403, 'FORBIDDEN');
    expectError(await api('DELETE', '/fields/books/nothing'), 403, 'FORBIDDEN');
    expectError(await api('POST', '/fields/books', { field: 'a', type: 'string' }, null), 403, 'FORBIDDEN');
    expectError(await api('GET', '/fields/books', undefined, null), 403, 'FORBIDDEN');
    expect(expectOk(await api('GET', '/fields', undefined, null))).to.deep.equal([]);
  });

  it('deletes a column or an alias with its metadata', async () => {
    expectOk(await api('PATCH', '/collections/books', { meta: { sort_field: 'pages' } }));
    expectOk(await api('DELETE', '/fields/books/pages'), 204);
    expect(await ctx().server.db.schema.hasColumn('books', 'pages')).to.equal(false);
    expect(await ctx().server.db('svc_fields').where({ collection: 'books', field: 'pages' })).to.deep.equal([]);
    expect(expectOk(await api('GET', '/collections/books')).meta.sort_field).to.equal(null);
    expectError(await api('GET', '/fields/books/pages'), 403, 'FORBIDDEN');

    expectOk(await api('DELETE', '/fields/books/notice'), 204);
    expect(await ctx().server.db('svc_fields').where({ collection: 'books', field: 'notice' })).to.deep.equal([]);
    expect(await ctx().server.db('books').count({ n: '*' }).first()).to.satisfy(
      (r: { n: unknown }) => Number(r.n) === 2,
    );
  });
});
