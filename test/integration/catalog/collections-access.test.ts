import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import {
  asAdmin,
  call,
  createCaller,
  dataOf,
  expectForbidden,
  grant,
  type Caller,
} from '../access/permission-helpers.js';
import { createUser } from '../auth/helpers.js';

type CollectionObject = { collection: string; meta: Record<string, unknown> | null; schema: unknown };

/** The system collections the service serves, each listed for admins (meta.system true). */
const SERVED_SYSTEM = [
  'svc_activity',
  'svc_collections',
  'svc_comments',
  'svc_fields',
  'svc_files',
  'svc_flows',
  'svc_folders',
  'svc_operations',
  'svc_permissions',
  'svc_presets',
  'svc_relations',
  'svc_revisions',
  'svc_roles',
  'svc_settings',
  'svc_users',
  'svc_versions',
];

/**
 * GET /collections as Directus 10 answers it: the caller reads svc_collections, so callers
 * who may not (no token, no role, a role without app access) get 403, not an empty list;
 * others see the collections they may read, and the folders those sit in.
 */
describeEachDatabase('schema routes: who may list collections', (ctx) => {
  let app: Caller;
  let noApp: Caller;
  let roleless: string;

  before(async () => {
    const db = ctx().server.db;
    await db.schema.createTable('gadgets', (t) => {
      t.increments('id').primary();
      t.string('name', 40);
    });
    await db.schema.createTable('secrets', (t) => {
      t.increments('id').primary();
    });
    await ctx().server.schema.invalidate();
    expect(
      (await asAdmin(ctx(), 'POST', '/collections', { collection: 'shop', meta: { icon: 'folder' } })).status,
    ).to.equal(200);
    expect((await asAdmin(ctx(), 'PATCH', '/collections/gadgets', { meta: { group: 'shop' } })).status).to.equal(200);
    app = await createCaller(db, { app: true });
    noApp = await createCaller(db);
    for (const caller of [app, noApp]) await grant(ctx(), caller.role, [{ collection: 'gadgets', action: 'read' }]);
    roleless = `token-roleless-${Date.now()}`;
    await createUser(db, { role: null, token: roleless });
  });

  it('no token, no role, or a role without app access: 403 on the list and on one collection', async () => {
    for (const token of [undefined, roleless, noApp.token]) {
      expectForbidden(await call(ctx(), token, 'GET', '/collections'));
      expectForbidden(await call(ctx(), token, 'SEARCH', '/collections'));
      expectForbidden(await call(ctx(), token, 'GET', '/collections/gadgets'));
    }
  });

  it('a role with app access: its collections, the folder they sit in, and the system collections it may read', async () => {
    const names = dataOf<CollectionObject[]>(await call(ctx(), app.token, 'GET', '/collections')).map(
      (c) => c.collection,
    );
    expect(names).to.include.members([
      'gadgets',
      'shop',
      'svc_collections',
      'svc_fields',
      'svc_relations',
      'svc_settings',
    ]);
    expect(names).not.to.include.members(['secrets']);
    expect(names).not.to.include('svc_revisions');
    expect(
      dataOf<CollectionObject>(await call(ctx(), app.token, 'GET', '/collections/gadgets')).meta?.['group'],
    ).to.equal('shop');
    expectForbidden(await call(ctx(), app.token, 'GET', '/collections/secrets'));
  });

  it('a role without app access but with its own read permission on svc_collections lists what it may read', async () => {
    const reader = await createCaller(ctx().server.db);
    await grant(ctx(), reader.role, [
      { collection: 'svc_collections', action: 'read' },
      { collection: 'gadgets', action: 'read' },
    ]);
    const names = dataOf<CollectionObject[]>(await call(ctx(), reader.token, 'GET', '/collections')).map(
      (c) => c.collection,
    );
    expect(names).to.deep.equal(['gadgets', 'shop', 'svc_collections']);
  });

  it('admins: every collection and every system collection the service serves, internal tables never', async () => {
    const listed = dataOf<CollectionObject[]>(await asAdmin(ctx(), 'GET', '/collections'));
    const system = listed.filter((c) => c.collection.startsWith('svc_'));
    expect(system.map((c) => c.collection)).to.deep.equal(SERVED_SYSTEM);
    for (const c of system) expect(c.meta?.['system'], c.collection).to.equal(true);
    expect(listed.map((c) => c.collection)).to.include.members(['gadgets', 'secrets', 'shop']);
  });
});
