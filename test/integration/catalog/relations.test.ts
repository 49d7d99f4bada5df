import { expect } from 'chai';
import { getFieldRelation } from '../../../catalog/overview/lookup.js';
import { describeEachDatabase } from '../../support/server.js';
import { expectError, expectOk, insertRow, schemaApi } from './schema-api.js';

const id = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };
const int = (field: string) => ({ field, type: 'integer' });
const str = (field: string) => ({ field, type: 'string' });

describeEachDatabase('schema routes: relations', (ctx) => {
  const api = schemaApi(ctx);
  const overview = () => ctx().server.schema.getOverview();

  before(async () => {
    expectOk(
      await api('POST', '/collections', [
        { collection: 'authors', schema: {}, fields: [id, str('name')] },
        { collection: 'categories', schema: {}, fields: [id, str('name')] },
        { collection: 'posts', schema: {}, fields: [id, str('title'), int('author'), int('category'), int('editor')] },
        { collection: 'comments', schema: {}, fields: [id, int('post'), str('body')] },
        { collection: 'tags', schema: {}, fields: [id, str('name')] },
        { collection: 'posts_tags', schema: {}, fields: [id, int('posts_id'), int('tags_id')] },
        { collection: 'headings', schema: {}, fields: [id, str('title')] },
        { collection: 'texts', schema: {}, fields: [id, str('body')] },
        {
          collection: 'posts_sections',
          schema: {},
          fields: [id, int('posts_id'), str('item'), str('collection'), int('sort')],
        },
      ]),
    );
  });

  it('creates a many-to-one with its FK and on-delete rule', async () => {
    const relation = expectOk(
      await api('POST', '/relations', {
        collection: 'posts',
        field: 'author',
        related_collection: 'authors',
        schema: { on_delete: 'CASCADE' },
      }),
    );
    expect(relation).to.deep.include({ collection: 'posts', field: 'author', related_collection: 'authors' });
    expect(relation.schema).to.include({
      table: 'posts',
      column: 'author',
      foreign_key_table: 'authors',
      foreign_key_column: 'id',
      on_delete: 'CASCADE',
    });
    expect(relation.meta).to.include({
      many_collection: 'posts',
      many_field: 'author',
      one_collection: 'authors',
      one_field: null,
      one_deselect_action: 'nullify',
    });
    expect(relation.meta.id).to.be.a('number');
    expect(expectOk(await api('GET', '/fields/posts/author')).schema).to.include({
      foreign_key_table: 'authors',
      foreign_key_column: 'id',
    });

    const m2o = getFieldRelation(await overview(), 'posts', 'author');
    expect(m2o?.kind === 'm2o' && m2o.related).to.equal('authors');

    const { db } = ctx().server;
    const author = await insertRow(ctx, 'authors', { name: 'Ann' });
    await insertRow(ctx, 'posts', { title: 'by Ann', author });
    await expectRejection(db('posts').insert({ title: 'nobody', author: 9999 }));
    await db('authors').where({ id: author }).delete();
    expect(await db('posts').where({ title: 'by Ann' })).to.deep.equal([]);
  });

  it('creates a one-to-many: the reverse alias appears on the related collection', async () => {
    const relation = expectOk(
      await api('POST', '/relations', {
        collection: 'comments',
        field: 'post',
        related_collection: 'posts',
        meta: { one_field: 'comments', sort_field: null },
      }),
    );
    expect(relation.schema.on_delete).to.equal('SET NULL');
    expect(relation.meta.one_field).to.equal('comments');
    const alias = expectOk(await api('GET', '/fields/posts/comments'));
    expect(alias).to.deep.include({ type: 'alias', schema: null });
    expect(alias.meta.special).to.deep.equal(['o2m']);

    const o2m = getFieldRelation(await overview(), 'posts', 'comments');
    expect(o2m?.kind === 'o2m' && o2m.related).to.equal('comments');

    const { db } = ctx().server;
    const post = await insertRow(ctx, 'posts', { title: 'commented' });
    await insertRow(ctx, 'comments', { post, body: 'first' });
    await db('posts').where({ id: post }).delete();
    expect((await db('comments').where({ body: 'first' }).first('post'))?.['post']).to.equal(null);
  });

  it('creates a many-to-many through a junction', async () => {
    expectOk(
      await api('POST', '/fields/posts', {
        field: 'tags',
        type: 'alias',
        meta: { special: ['m2m'], interface: 'list-m2m' },
      }),
    );
    expectOk(
      await api('POST', '/relations', {
        collection: 'posts_tags',
        field: 'posts_id',
        related_collection: 'posts',
        meta: { one_field: 'tags', junction_field: 'tags_id' },
        schema: { on_delete: 'CASCADE' },
      }),
    );
    expectOk(
      await api('POST', '/relations', {
        collection: 'posts_tags',
        field: 'tags_id',
        related_collection: 'tags',
        meta: { junction_field: 'posts_id' },
      }),
    );

    const listed: any[] = expectOk(await api('GET', '/relations/posts_tags'));
    expect(listed.map((r) => [r.field, r.related_collection, r.meta.junction_field])).to.have.deep.members([
      ['posts_id', 'posts', 'tags_id'],
      ['tags_id', 'tags', 'posts_id'],
    ]);
    const current = await overview();
    const first = getFieldRelation(current, 'posts', 'tags');
    expect(first?.kind === 'o2m' && first.related).to.equal('posts_tags');
    expect(first?.relation.meta?.junctionField).to.equal('tags_id');
    const second = getFieldRelation(current, 'posts_tags', 'tags_id');
    expect(second?.kind === 'm2o' && second.related).to.equal('tags');
    expect(expectOk(await api('GET', '/fields/posts/tags')).meta.special).to.deep.equal(['m2m']);
  });

  it('creates a many-to-any: the item column has no FK and names its allowed collections', async () => {
    expectOk(await api('POST', '/fields/posts', { field: 'sections', type: 'alias', meta: { special: ['m2a'] } }));
    expectOk(
      await api('POST', '/relations', {
        collection: 'posts_sections',
        field: 'posts_id',
        related_collection: 'posts',
        meta: { one_field: 'sections', junction_field: 'item', sort_field: 'sort' },
      }),
    );
    const item = expectOk(
      await api('POST', '/relations', {
        collection: 'posts_sections',
        field: 'item',
        related_collection: null,
        meta: {
          one_collection_field: 'collection',
          one_allowed_collections: ['headings', 'texts'],
          junction_field: 'posts_id',
        },
      }),
    );
    expect(item).to.deep.include({ related_collection: null, schema: null });
    expect(item.meta.one_allowed_collections).to.deep.equal(['headings', 'texts']);

    const current = await overview();
    const a2o = getFieldRelation(current, 'posts_sections', 'item');
    expect(a2o?.kind).to.equal('a2o');
    expect(a2o?.kind === 'a2o' && [a2o.allowed, a2o.collectionField]).to.deep.equal([
      ['headings', 'texts'],
      'collection',
    ]);
    const sections = getFieldRelation(current, 'posts', 'sections');
    expect(sections?.kind === 'o2m' && [sections.related, sections.relation.meta?.sortField]).to.deep.equal([
      'posts_sections',
      'sort',
    ]);
    // The item column stays a plain string column: any collection's key fits.
    await insertRow(ctx, 'posts_sections', { item: '12345', collection: 'headings' });
  });

  it('relates to a system collection, with a reverse alias on it', async () => {
    expectOk(await api('POST', '/fields/posts', { field: 'owner', type: 'uuid' }));
    expectOk(
      await api('POST', '/relations', {
        collection: 'posts',
        field: 'owner',
        related_collection: 'svc_users',
        meta: { one_field: 'owned_posts' },
      }),
    );
    expect(expectOk(await api('GET', '/fields/svc_users/owned_posts'))).to.deep.include({ type: 'alias' });
    const owned = getFieldRelation(await overview(), 'svc_users', 'owned_posts');
    expect(owned?.kind === 'o2m' && owned.related).to.equal('posts');
  });

  it('refuses missing collections and fields, duplicates and incomplete many-to-any, naming them', async () => {
    const cases: [unknown, RegExp][] = [
      [
        { collection: 'posts', field: 'category', related_collection: 'nowhere' },
        /Related collection "nowhere" doesn't exist/,
      ],
      [{ collection: 'nope', field: 'x', related_collection: 'posts' }, /Collection "nope" doesn't exist/],
      [
        { collection: 'posts', field: 'nope', related_collection: 'authors' },
        /Field "nope" doesn't exist in collection "posts"/,
      ],
      [
        { collection: 'posts', field: 'author', related_collection: 'authors' },
        /already has an associated relationship/,
      ],
      [
        { collection: 'posts', field: 'category', related_collection: null },
        /needs "meta.one_allowed_collections" and "meta.one_collection_field"/,
      ],
      [
        {
          collection: 'posts',
          field: 'category',
          related_collection: null,
          meta: { one_collection_field: 'title', one_allowed_collections: ['ghost'] },
        },
        /Allowed collection "ghost" doesn't exist/,
      ],
      [
        { collection: 'posts', field: 'category', related_collection: 'categories', schema: { on_delete: 'EXPLODE' } },
        /"schema.on_delete" must be one of/,
      ],
      [
        { collection: 'posts', field: 'category', related_collection: 'categories', meta: { one_field: 'name' } },
        /Field "name" of collection "categories" is a column/,
      ],
      [
        { collection: 'posts', field: 'category', related_collection: 'categories', meta: { junction_field: 'nope' } },
        /"meta.junction_field": field "nope" doesn't exist in collection "posts"/,
      ],
      [{ field: 'category', related_collection: 'categories' }, /"collection" is required/],
    ];
    for (const [body, message] of cases)
      expectError(await api('POST', '/relations', body), 400, 'INVALID_PAYLOAD', message);
    expectError(
      await api(
        'POST',
        '/relations',
        { collection: 'posts', field: 'category', related_collection: 'categories' },
        null,
      ),
      403,
      'FORBIDDEN',
    );
  });

  it('leaves nothing behind when the database refuses the foreign key', async () => {
    const { db } = ctx().server;
    await insertRow(ctx, 'posts', { title: 'orphan', category: 42 });
    expectError(
      await api('POST', '/relations', {
        collection: 'posts',
        field: 'category',
        related_collection: 'categories',
        meta: { one_field: 'posts' },
      }),
      400,
      'INVALID_PAYLOAD',
    );
    expect(await db('svc_relations').where({ many_collection: 'posts', many_field: 'category' })).to.deep.equal([]);
    expect(await db('svc_fields').where({ collection: 'categories', field: 'posts' })).to.deep.equal([]);
    expectError(await api('GET', '/relations/posts/category'), 403, 'FORBIDDEN');
    // No constraint either: another missing category is still accepted.
    await db('posts').where({ title: 'orphan' }).update({ category: 43 });
    await db('posts').where({ title: 'orphan' }).delete();
  });

  it('keeps the rows of referencing tables when a referenced table is rebuilt (SQLite alters by copy)', async () => {
    const { db } = ctx().server;
    const post = await insertRow(ctx, 'posts', { title: 'kept' });
    const tag = await insertRow(ctx, 'tags', { name: 't' });
    await insertRow(ctx, 'comments', { post, body: 'kept comment' });
    await insertRow(ctx, 'posts_tags', { posts_id: post, tags_id: tag });

    expectOk(await api('POST', '/relations', { collection: 'posts', field: 'editor', related_collection: 'authors' }));
    expectOk(await api('POST', '/fields/posts', { field: 'subtitle', type: 'string' }));
    expectOk(await api('PATCH', '/fields/posts/title', { schema: { max_length: 300 } }));

    expect((await db('comments').where({ body: 'kept comment' }).first('post'))?.['post']).to.equal(post);
    expect(await db('posts_tags').where({ posts_id: post, tags_id: tag })).to.have.length(1);
  });

  it('updates meta and the on-delete rule', async () => {
    const updated = expectOk(
      await api('PATCH', '/relations/posts/author', {
        meta: { one_field: 'posts' },
        schema: { on_delete: 'SET NULL' },
      }),
    );
    expect(updated.schema.on_delete).to.equal('SET NULL');
    expect(updated.meta.one_field).to.equal('posts');
    expect(expectOk(await api('GET', '/fields/authors/posts')).type).to.equal('alias');

    const { db } = ctx().server;
    const author = await insertRow(ctx, 'authors', { name: 'Bo' });
    await insertRow(ctx, 'posts', { title: 'by Bo', author });
    await db('authors').where({ id: author }).delete();
    expect((await db('posts').where({ title: 'by Bo' }).first('author'))?.['author']).to.equal(null);
  });

  it('deletes a relation: FK, row and reverse alias', async () => {
    expectOk(await api('DELETE', '/relations/comments/post'), 204);
    expectError(await api('GET', '/relations/comments/post'), 403, 'FORBIDDEN');
    expectError(await api('GET', '/fields/posts/comments'), 403, 'FORBIDDEN');
    const { db } = ctx().server;
    expect(await db('svc_relations').where({ many_collection: 'comments', many_field: 'post' })).to.deep.equal([]);
    await insertRow(ctx, 'comments', { post: 9999, body: 'dangling is fine now' });
    expect(expectOk(await api('GET', '/fields/comments/post')).schema.foreign_key_table).to.equal(null);
  });

  it('shows the system relations and keeps them fixed', async () => {
    const all: any[] = expectOk(await api('GET', '/relations'));
    const role = all.find((r) => r.collection === 'svc_users' && r.field === 'role');
    expect(role.related_collection).to.equal('svc_roles');
    expect(role.meta).to.include({ one_field: 'users', system: true });
    expect(expectOk(await api('GET', '/relations/directus_users/role')).related_collection).to.equal('svc_roles');
    expectError(
      await api('PATCH', '/relations/svc_users/role', { meta: { one_field: 'x' } }),
      422,
      'UNPROCESSABLE_ENTITY',
    );
    expectError(await api('DELETE', '/relations/svc_users/role'), 422, 'UNPROCESSABLE_ENTITY');
    expectError(await api('GET', '/relations/nowhere'), 403, 'FORBIDDEN');
    expectError(await api('GET', '/relations/posts/title'), 403, 'FORBIDDEN');
    expect(expectOk(await api('GET', '/relations', undefined, null))).to.deep.equal([]);
  });
});

async function expectRejection(promise: PromiseLike<unknown>): Promise<void> {
  let failed = false;
  try {
    await promise;
  } catch {
    failed = true;
  }
  expect(failed, 'the database accepted a row it should refuse').to.equal(true);
}
