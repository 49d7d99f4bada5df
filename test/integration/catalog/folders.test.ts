import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { asAdmin, call, createCaller, dataOf, expectForbidden, grant } from '../access/permission-helpers.js';

const REASON =
  'articles is a folder (a collection without a table): delete it and create it again with "schema": {} to store items and fields';

/**
 * `POST /collections` without `schema` makes a folder, as in Directus 10 (a svc_collections
 * row, no table). The answer keeps Directus's body and adds a note saying so. An administrator,
 * who may do everything, is never answered 403 for it: its requests for the folder's items or a
 * new field are 422 naming the reason, its fields and relations are read as none; anyone else's
 * 403 stays the plain one (a folder is no business of theirs).
 */
describeEachDatabase('catalog: a collection made without a schema is a folder, and says so', (ctx) => {
  before(async () => {
    const made = await asAdmin(ctx(), 'POST', '/collections', { collection: 'articles' });
    expect(made.status).to.equal(200);
    expect(made.body).to.deep.equal({
      data: { collection: 'articles', meta: dataOf<{ meta: unknown }>(made).meta, schema: null },
      meta: {
        notes: [
          'articles is a folder: no "schema" was given, so it has no table and holds no items (it groups collections, as in Directus 10); to store items, delete it and create it again with "schema": {}',
        ],
      },
    });
  });

  it('a collection made with a schema gets no note', async () => {
    const made = await asAdmin(ctx(), 'POST', '/collections', { collection: 'notes_table', schema: {} });
    expect(Object.keys(made.body ?? {})).to.deep.equal(['data']);
    expect(dataOf<{ schema: unknown }>(made).schema).to.deep.include({ name: 'notes_table' });
  });

  for (const [method, path, body] of [
    ['GET', '/items/articles', undefined],
    ['SEARCH', '/items/articles', { query: {} }],
    ['POST', '/items/articles', { title: 'Hello' }],
    ['GET', '/items/articles/1', undefined],
    ['PATCH', '/items/articles/1', { title: 'Hello' }],
    ['DELETE', '/items/articles/1', undefined],
    ['POST', '/fields/articles', { field: 'title', type: 'string' }],
  ] as const) {
    it(`${method} ${path} as an administrator: 422 UNPROCESSABLE_ENTITY naming the folder`, async () => {
      const res = await asAdmin(ctx(), method, path, body);
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.equal({
        errors: [
          {
            message: `Can't process content. ${REASON}.`,
            extensions: { reason: REASON, code: 'UNPROCESSABLE_ENTITY' },
          },
        ],
      });
    });
  }

  it("an administrator reads the folder's fields and relations as none, and sees it among the collections", async () => {
    expect(await asAdmin(ctx(), 'GET', '/fields/articles')).to.deep.include({ status: 200, body: { data: [] } });
    expect(await asAdmin(ctx(), 'GET', '/relations/articles')).to.deep.include({ status: 200, body: { data: [] } });
    const collections = dataOf<{ collection: string }[]>(await asAdmin(ctx(), 'GET', '/collections'));
    expect(collections.map((c) => c.collection)).to.include('articles');
  });

  it('fields without "schema" are refused, 400 saying to add it, rather than dropped for a folder', async () => {
    const res = await asAdmin(ctx(), 'POST', '/collections', {
      collection: 'drafts',
      fields: [{ field: 'title', type: 'string' }],
    });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({
      errors: [
        {
          message:
            'Invalid payload. "fields" need a table: add "schema": {} (without "schema", "drafts" would be a folder, which has no fields).',
          extensions: {
            reason:
              '"fields" need a table: add "schema": {} (without "schema", "drafts" would be a folder, which has no fields)',
            code: 'INVALID_PAYLOAD',
          },
        },
      ],
    });
    const collections = dataOf<{ collection: string }[]>(await asAdmin(ctx(), 'GET', '/collections'));
    expect(collections.map((c) => c.collection)).not.to.include('drafts');
  });

  it('a missing collection stays a plain 403 for an administrator, and a folder for anyone else', async () => {
    expectForbidden(await asAdmin(ctx(), 'GET', '/items/nothing_here'));
    expectForbidden(await asAdmin(ctx(), 'POST', '/items/nothing_here', {}));
    const caller = await createCaller(ctx().server.db);
    await grant(ctx(), caller.role, [{ collection: 'notes_table', action: 'read' }]);
    expectForbidden(await call(ctx(), caller.token, 'GET', '/items/articles'));
    expectForbidden(await call(ctx(), caller.token, 'POST', '/items/articles', { title: 'x' }));
    expectForbidden(await call(ctx(), caller.token, 'GET', '/fields/articles'));
  });

  it('deleted and made again with "schema": {}, it stores items', async () => {
    expect((await asAdmin(ctx(), 'DELETE', '/collections/articles')).status).to.equal(204);
    dataOf(
      await asAdmin(ctx(), 'POST', '/collections', {
        collection: 'articles',
        schema: {},
        fields: [{ field: 'title', type: 'string' }],
      }),
    );
    expect(dataOf<{ title: string }>(await asAdmin(ctx(), 'POST', '/items/articles', { title: 'Hello' }))).to.include({
      title: 'Hello',
    });
  });
});
