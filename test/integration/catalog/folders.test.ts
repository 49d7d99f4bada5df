import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { asAdmin, call, createCaller, dataOf, expectForbidden, grant } from '../access/permission-helpers.js';

const REASON =
  'articles is a folder (a collection without a table): delete it and create it again with "schema": {} to store items';

/**
 * `POST /collections` without `schema` makes a folder, as in Directus 10 (a svc_collections
 * row, no table). The answer keeps Directus's body and adds a note saying so, and an
 * administrator's 403 on the folder's items and fields names the reason; anyone else's 403
 * stays the plain one (a folder is no business of theirs).
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
    ['POST', '/fields/articles', { field: 'title', type: 'string' }],
  ] as const) {
    it(`${method} ${path} as an administrator: 403 FORBIDDEN with extensions.reason naming the folder`, async () => {
      const res = await asAdmin(ctx(), method, path, body);
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.equal({
        errors: [
          { message: "You don't have permission to access this.", extensions: { code: 'FORBIDDEN', reason: REASON } },
        ],
      });
    });
  }

  it('a missing collection stays a plain 403 for an administrator, and a folder for anyone else', async () => {
    expectForbidden(await asAdmin(ctx(), 'GET', '/items/nothing_here'));
    expectForbidden(await asAdmin(ctx(), 'POST', '/items/nothing_here', {}));
    const caller = await createCaller(ctx().server.db);
    await grant(ctx(), caller.role, [{ collection: 'notes_table', action: 'read' }]);
    expectForbidden(await call(ctx(), caller.token, 'GET', '/items/articles'));
    expectForbidden(await call(ctx(), caller.token, 'POST', '/items/articles', { title: 'x' }));
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
