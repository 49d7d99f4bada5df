import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { createQueryFixture } from '../query/fixture-schema.js';
import { asAdmin, call, createCaller, dataOf, expectForbidden, grant, type Caller } from './permission-helpers.js';

type Row = Record<string, unknown>;

const INVALID_CREDENTIALS = {
  errors: [{ message: 'Invalid user credentials.', extensions: { code: 'INVALID_CREDENTIALS' } }],
};
const NONE = { access: 'none' };

/**
 * The caller's own permissions: GET /permissions/me
 * per collection and action, GET /permissions/me/:collection/:id? for one item, as Directus
 * answers them; reads only, for users only.
 */
describeEachDatabase('permissions of the caller: /permissions/me', (ctx) => {
  let editor: Caller;
  const as = (path: string) => call(ctx(), editor.token, 'GET', path);

  before(async () => {
    await createQueryFixture(ctx());
    editor = await createCaller(ctx().server.db);
    await grant(ctx(), editor.role, [
      { collection: 'articles', action: 'read' },
      {
        collection: 'articles',
        action: 'update',
        permissions: { status: { _eq: 'published' } },
        fields: ['title', 'body'],
      },
      { collection: 'comments', action: 'read', fields: ['id', 'text'] },
      { collection: 'comments', action: 'delete' },
      { collection: 'site_settings', action: 'read' },
      { collection: 'site_settings', action: 'create', presets: { visits: 5 }, fields: ['headline'] },
      { collection: 'site_settings', action: 'update', fields: ['headline', 'visits'] },
    ]);
  });

  it('needs a user: 401 INVALID_CREDENTIALS without a token', async () => {
    for (const path of ['/permissions/me', '/permissions/me/articles', '/permissions/me/articles/1']) {
      const res = await call(ctx(), undefined, 'GET', path);
      expect([res.status, res.body], path).to.deep.equal([401, INVALID_CREDENTIALS]);
    }
  });

  it('one item: update and delete as the permission filters allow them; share never without a permission', async () => {
    expect(dataOf(await as('/permissions/me/articles/1'))).to.deep.equal({
      update: { access: true },
      delete: { access: false },
      share: { access: false },
    });
    // Article 2 is a draft: outside the update filter.
    expect(dataOf<Row>(await as('/permissions/me/articles/2'))['update']).to.deep.equal({ access: false });
    // Missing items and keys no row can have: nothing is allowed.
    for (const id of ['999', 'abc'])
      expect(dataOf<Row>(await as(`/permissions/me/articles/${id}`))['update']).to.deep.equal({ access: false });
    // Without an id: whether the action is allowed on the collection at all.
    expect(dataOf(await as('/permissions/me/articles'))).to.deep.equal({
      update: { access: true },
      delete: { access: false },
      share: { access: false },
    });
    expect(dataOf(await as('/permissions/me/comments/1'))).to.deep.equal({
      update: { access: false },
      delete: { access: true },
      share: { access: false },
    });
  });

  it('unknown or unreadable collections are FORBIDDEN alike; directus_ names are svc_ names', async () => {
    expectForbidden(await as('/permissions/me/countries/1'));
    expectForbidden(await as('/permissions/me/no_such_thing'));
    expectForbidden(await as('/permissions/me/svc_users'));
    expectForbidden(await asAdmin(ctx(), 'GET', '/permissions/me/no_such_thing/1'));
    expect(dataOf(await asAdmin(ctx(), 'GET', '/permissions/me/directus_users'))).to.deep.equal({
      update: { access: true },
      delete: { access: true },
      share: { access: true },
    });
  });

  it('a singleton: create until its row exists, then update, with the presets and fields of that permission', async () => {
    expect(dataOf<Row>(await as('/permissions/me/site_settings'))['update']).to.deep.equal({
      access: true,
      presets: { visits: 5 },
      fields: ['headline'],
    });
    await ctx().server.db('site_settings').insert({ id: 1, headline: 'Hi', visits: 1 });
    try {
      expect(dataOf<Row>(await as('/permissions/me/site_settings'))['update']).to.deep.equal({
        access: true,
        presets: {},
        fields: ['headline', 'visits'],
      });
    } finally {
      await ctx().server.db('site_settings').delete();
    }
  });

  it('the list: each collection a permission names, every action none, partial or full, with fields and presets', async () => {
    const before = await ctx().server.db('svc_permissions').count({ n: '*' });
    const data = dataOf<Record<string, Row>>(await as('/permissions/me'));
    expect(Object.keys(data)).to.deep.equal(['articles', 'comments', 'site_settings']);
    expect(data['articles']).to.deep.equal({
      create: NONE,
      read: { access: 'full', fields: ['*'] },
      update: { access: 'partial', fields: ['body', 'title'] },
      delete: NONE,
      share: NONE,
    });
    expect(data['comments']?.['read']).to.deep.equal({ access: 'full', fields: ['id', 'text'] });
    expect(data['site_settings']?.['create']).to.deep.equal({
      access: 'full',
      fields: ['headline'],
      presets: { visits: 5 },
    });
    // A read: nothing was written.
    expect(await ctx().server.db('svc_permissions').count({ n: '*' })).to.deep.equal(before);
  });

  it('a role with app access lists its implicit system permissions too; admins get every collection in full', async () => {
    const app = await createCaller(ctx().server.db, { app: true });
    const mine = dataOf<Record<string, Row>>(await call(ctx(), app.token, 'GET', '/permissions/me'));
    expect(mine['svc_users']?.['read']).to.deep.equal({ access: 'partial', fields: ['*'] });
    expect(mine['svc_collections']?.['read']).to.deep.equal({ access: 'full', fields: ['*'] });
    expect(mine['articles']).to.equal(undefined);
    const all = dataOf<Record<string, Row>>(await asAdmin(ctx(), 'GET', '/permissions/me'));
    expect(all).to.include.keys('articles', 'countries', 'svc_users');
    expect(all['countries']?.['share']).to.deep.equal({ access: 'full', fields: ['*'] });
  });

  it('svc_permissions items are still served around /permissions/me', async () => {
    const rows = dataOf<Row[]>(
      await asAdmin(ctx(), 'GET', `/permissions?filter[role][_eq]=${editor.role}&fields=id,collection,action&sort=id`),
    );
    expect(rows).to.have.length(7);
    const first = rows[0]?.['id'];
    expect(dataOf<Row>(await asAdmin(ctx(), 'GET', `/permissions/${String(first)}?fields=collection`))).to.deep.equal({
      collection: 'articles',
    });
  });
});
