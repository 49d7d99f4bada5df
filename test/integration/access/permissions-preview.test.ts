import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { createQueryFixture } from '../query/fixture-schema.js';
import {
  asAdmin,
  call,
  createCaller,
  dataOf,
  expectForbidden,
  grant,
  idsOf,
  type Caller,
} from './permission-helpers.js';

type Row = Record<string, unknown>;

/**
 * "View as role": an administrator reads what a role may do (GET /permissions/preview/:role)
 * and the items it reads (…/items/:collection), exactly as a member of the role gets them;
 * nobody else may, nothing is written but the `preview` activity row.
 */
describeEachDatabase('view as role: /permissions/preview', (ctx) => {
  let editor: Caller;

  before(async () => {
    await createQueryFixture(ctx());
    editor = await createCaller(ctx().server.db, { app: true });
    await grant(ctx(), editor.role, [
      {
        collection: 'articles',
        action: 'read',
        permissions: { status: { _eq: 'published' } },
        fields: ['id', 'title'],
      },
      { collection: 'articles', action: 'update', fields: ['title'] },
    ]);
  });

  it('answers what the role itself gets: its access and its items, filtered rows and fields', async () => {
    const own = dataOf(await call(ctx(), editor.token, 'GET', '/permissions/me'));
    expect(
      dataOf(await asAdmin(ctx(), 'GET', `/permissions/preview/${editor.role}?user=${editor.user}`)),
    ).to.deep.equal(own);
    // Without a user: the same rights, `$CURRENT_USER` null.
    const anonymous = dataOf<Row>(await asAdmin(ctx(), 'GET', `/permissions/preview/${editor.role}`));
    expect(anonymous['articles']).to.deep.equal((own as Row)['articles']);

    const path = '/items/articles?sort=id&meta=filter_count';
    const mine = await call(ctx(), editor.token, 'GET', path);
    const previewed = await asAdmin(ctx(), 'GET', `/permissions/preview/${editor.role}${path}`);
    expect(idsOf(previewed)).to.deep.equal(idsOf(mine));
    expect(previewed.body).to.deep.equal(mine.body);
    for (const item of dataOf<Row[]>(previewed)) expect(Object.keys(item).sort()).to.deep.equal(['id', 'title']);
    // The administrator's own read has the drafts too.
    expect(idsOf(await asAdmin(ctx(), 'GET', path)).length).to.be.greaterThan(idsOf(previewed).length);
  });

  it('refuses what the role may not read, unknown roles and every caller but an administrator', async () => {
    expectForbidden(await asAdmin(ctx(), 'GET', `/permissions/preview/${editor.role}/items/comments`));
    expectForbidden(await asAdmin(ctx(), 'GET', `/permissions/preview/${editor.role}/items/articles?fields=body`));
    expectForbidden(await asAdmin(ctx(), 'GET', '/permissions/preview/00000000-0000-4000-8000-000000000000'));
    expectForbidden(await asAdmin(ctx(), 'GET', '/permissions/preview/public/items/articles'));
    // A user of another role.
    const other = await createCaller(ctx().server.db);
    expectForbidden(await asAdmin(ctx(), 'GET', `/permissions/preview/${editor.role}?user=${other.user}`));
    for (const path of [`/permissions/preview/${editor.role}`, `/permissions/preview/${editor.role}/items/articles`])
      expectForbidden(await call(ctx(), editor.token, 'GET', path));
    expect((await call(ctx(), undefined, 'GET', `/permissions/preview/${editor.role}`)).status).to.be.oneOf([401, 403]);
  });

  it('is read-only and audited: no write route, one preview row per look', async () => {
    const { db } = ctx().server;
    const before = await db('articles').select('id', 'title').orderBy('id');
    const writes = await Promise.all(
      ['POST', 'PATCH', 'DELETE'].map((method) =>
        asAdmin(ctx(), method, `/permissions/preview/${editor.role}/items/articles`, { title: 'x' }),
      ),
    );
    for (const res of writes) expect(res.status).to.be.greaterThanOrEqual(400);
    expect(await db('articles').select('id', 'title').orderBy('id')).to.deep.equal(before);

    const count = async () =>
      Number((await db('svc_activity').where({ action: 'preview' }).count({ n: '*' }))[0]?.['n']);
    const start = await count();
    await asAdmin(ctx(), 'GET', `/permissions/preview/${editor.role}/items/articles`);
    expect(await count()).to.equal(start + 1);
    const row = (await db('svc_activity').where({ action: 'preview' }).orderBy('id', 'desc').first()) as Row;
    expect([row['collection'], row['item'], row['comment']]).to.deep.equal(['svc_roles', editor.role, 'articles']);
  });
});
