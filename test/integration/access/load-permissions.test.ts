import { statementsRunOn } from '../../support/statements.js';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Accountability } from '../../../src/access/accountability.js';
import { loadPermissions } from '../../../src/access/load-permissions.js';
import { PermissionStore } from '../../../src/access/permission-store.js';
import { ADMIN_PERMISSIONS } from '../../../src/access/permissions.js';
import { describeEachDatabase } from '../../support/server.js';

const NOW = new Date('2024-06-01T00:00:00.000Z');

const caller = (
  user: string | null,
  role: string | null,
  flags: Partial<Pick<Accountability, 'admin' | 'app'>> = {},
): Accountability => ({
  user,
  role,
  admin: flags.admin ?? false,
  app: flags.app ?? false,
  ip: '127.0.0.1',
  userAgent: null,
  origin: null,
});

describeEachDatabase('loading permissions from svc_permissions', (ctx) => {
  let db: Knex;
  let roleId: string;
  let userId: string;

  /** Counts statements on svc_permissions while `run` runs. */
  async function permissionQueries(run: () => Promise<unknown>): Promise<number> {
    return (await statementsRunOn(db, run)).filter((sql) => sql.includes('svc_permissions')).length;
  }

  before(async () => {
    db = ctx().server.db;
    roleId = randomUUID();
    userId = randomUUID();
    await db('svc_roles').insert({ id: roleId, name: 'Editors', app_access: true });
    await db('svc_users').insert({
      id: userId,
      email: `${userId}@example.com`,
      role: roleId,
      status: 'active',
      first_name: 'Ann',
    });
    await db('svc_permissions').insert([
      {
        role: roleId,
        collection: 'articles',
        action: 'read',
        permissions: JSON.stringify({
          _or: [{ owner: { _eq: '$CURRENT_USER' } }, { published_on: { _lte: '$NOW(-1 day)' } }],
        }),
        fields: 'id,title,owner',
      },
      {
        role: roleId,
        collection: 'articles',
        action: 'create',
        validation: JSON.stringify({ section: { _eq: '$CURRENT_ROLE.name' } }),
        presets: JSON.stringify({
          owner: '$CURRENT_USER',
          byline: '$CURRENT_USER.first_name',
          team: '$CURRENT_USER.role.name',
        }),
        fields: '*',
      },
      {
        role: null,
        collection: 'articles',
        action: 'read',
        permissions: JSON.stringify({ status: { _eq: 'published' } }),
        fields: 'id,title',
      },
    ]);
  });

  it("resolves a role's rows for its user, dynamic paths included (JSON columns read on every dialect)", async () => {
    const store = new PermissionStore(db, { enabled: true });
    const overview = await ctx().server.schema.getOverview();
    const permissions = await loadPermissions({ db, store, overview }, caller(userId, roleId), NOW);
    expect(permissions.rowFilter('articles', 'read')).to.deep.equal({
      _or: [{ owner: { _eq: userId } }, { published_on: { _lte: '2024-05-31T00:00:00.000Z' } }],
    });
    expect([...(permissions.fields('articles', 'read') as Set<string>)]).to.deep.equal(['id', 'title', 'owner']);
    expect(permissions.validation('articles', 'create')).to.deep.equal({ section: { _eq: 'Editors' } });
    expect(permissions.presets('articles', 'create')).to.deep.equal({ owner: userId, byline: 'Ann', team: 'Editors' });
    expect(permissions.allows('articles', 'update')).to.equal(false);
    expect(permissions.allows('svc_users', 'read'), 'no app_access rows without the token flag').to.equal(false);
  });

  it('adds the app_access rows when the token carries app_access', async () => {
    const store = new PermissionStore(db, { enabled: true });
    const overview = await ctx().server.schema.getOverview();
    const permissions = await loadPermissions({ db, store, overview }, caller(userId, roleId, { app: true }), NOW);
    expect(permissions.rowFilter('svc_users', 'read')).to.deep.equal({ id: { _eq: userId } });
    expect(permissions.rowFilter('svc_roles', 'read')).to.deep.equal({ id: { _eq: roleId } });
    expect(permissions.allows('articles', 'read')).to.equal(true);
  });

  it('the public caller (and a user without a role) gets the role-null rows only', async () => {
    const store = new PermissionStore(db, { enabled: true });
    const overview = await ctx().server.schema.getOverview();
    for (const who of [caller(null, null), caller(userId, null, { app: true })]) {
      const permissions = await loadPermissions({ db, store, overview }, who, NOW);
      expect(permissions.rowFilter('articles', 'read')).to.deep.equal({ status: { _eq: 'published' } });
      expect(permissions.allows('articles', 'create')).to.equal(false);
      expect(permissions.allows('svc_settings', 'read')).to.equal(false);
    }
  });

  it('admins get the bypass without reading any permission', async () => {
    const store = new PermissionStore(db, { enabled: true });
    const overview = await ctx().server.schema.getOverview();
    const queries = await permissionQueries(async () => {
      expect(await loadPermissions({ db, store, overview }, caller(userId, roleId, { admin: true }))).to.equal(
        ADMIN_PERMISSIONS,
      );
    });
    expect(queries).to.equal(0);
  });

  it('caches per role and schema version; invalidate() and a newer version reload', async () => {
    const store = new PermissionStore(db, { enabled: true });
    const overview = await ctx().server.schema.getOverview();
    const load = (version = overview.version) =>
      loadPermissions({ db, store, overview: { ...overview, version } }, caller(userId, roleId), NOW);
    expect(await permissionQueries(() => Promise.all([load(), load()]))).to.equal(1);
    expect(await permissionQueries(() => load())).to.equal(0);
    expect(await permissionQueries(() => loadPermissions({ db, store, overview }, caller(null, null)))).to.equal(1);
    store.invalidate();
    expect(await permissionQueries(() => load())).to.equal(1);
    expect(await permissionQueries(() => load(overview.version + 1))).to.equal(1);
    expect(await permissionQueries(() => load(overview.version + 1))).to.equal(0);
  });

  it('sees a changed permission after invalidation', async () => {
    const store = new PermissionStore(db, { enabled: true });
    const overview = await ctx().server.schema.getOverview();
    const load = () => loadPermissions({ db, store, overview }, caller(userId, roleId), NOW);
    expect((await load()).allows('comments', 'read')).to.equal(false);
    await db('svc_permissions').insert({ role: roleId, collection: 'comments', action: 'read', fields: '*' });
    try {
      expect((await load()).allows('comments', 'read'), 'cached').to.equal(false);
      store.invalidate();
      expect((await load()).allows('comments', 'read')).to.equal(true);
    } finally {
      await db('svc_permissions').where({ collection: 'comments' }).delete();
    }
  });

  it('without CACHE_PERMISSIONS every load reads the rows', async () => {
    const store = new PermissionStore(db, { enabled: false });
    const overview = await ctx().server.schema.getOverview();
    const load = () => loadPermissions({ db, store, overview }, caller(userId, roleId), NOW);
    expect(
      await permissionQueries(async () => {
        await load();
        await load();
      }),
    ).to.equal(2);
  });

  it('a variable path that names no field, or crosses a non-m2o field, grants nothing and is logged', async () => {
    const overview = await ctx().server.schema.getOverview();
    for (const path of ['$CURRENT_USER.shoe_size', '$CURRENT_USER.first_name.length']) {
      const role = randomUUID();
      await db('svc_roles').insert({ id: role, name: 'Broken' });
      await db('svc_permissions').insert({
        role,
        collection: 'articles',
        action: 'read',
        permissions: JSON.stringify({ a: { _eq: path } }),
        fields: '*',
      });
      const warnings: string[] = [];
      const log = { warn: (_details: object, message: string) => warnings.push(message) };
      const store = new PermissionStore(db, { enabled: true, log });
      // A broken row never widens a permission: it is left out, and says why (once).
      const permissions = await loadPermissions({ db, store, overview }, caller(userId, role));
      expect(permissions.allows('articles', 'read'), path).to.equal(false);
      store.invalidate();
      await loadPermissions({ db, store, overview }, caller(userId, role));
      expect(warnings, path).to.have.length(1);
      expect(warnings[0], path).to.include(`invalid dynamic variable "${path}"`);
    }
  });
});
