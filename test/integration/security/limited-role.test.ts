import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { describeEachDatabase, type ServerContext } from '../../support/server.js';
import { mariadbTarget, postgresTarget, sqliteTarget, type DatabaseTarget } from '../../support/services.js';
import { createQueryFixture } from '../query/fixture-schema.js';
import { createUser, expectOnlyError, postJson } from '../auth/helpers.js';
import {
  asAdmin,
  call,
  createCaller,
  dataOf,
  expectForbidden,
  grant,
  idsOf,
  type Caller,
  type JsonResponse,
} from '../access/permission-helpers.js';
import { dumpTables as dumpWatched, expectSameRefusal, type Row } from './helpers.js';

/*
 * Attempts of a limited role (and of callers without a token) to read or write what it may
 * not. Each attempt asserts that nothing leaked:
 * the exact status and body (a refusal reads the same whether the target exists or not; a
 * read answers what an honest read answers, never more), and that no row of any table
 * changed. Forged, expired, alg:none and wrongly-signed JWTs are attempted in
 * test/integration/auth/token-security.test.ts.
 */

const dir = mkdtempSync(join(tmpdir(), 'svc-security-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Every table an attempt could touch, dumped whole (the fixture is small). */
const WATCHED: readonly (readonly [string, string])[] = [
  ['articles', 'id'],
  ['authors', 'id'],
  ['comments', 'id'],
  ['countries', 'id'],
  ['categories', 'id'],
  ['articles_categories', 'id'],
  ['articles_sections', 'id'],
  ['headings', 'id'],
  ['texts', 'id'],
  ['steps', 'id'],
  ['svc_users', 'id'],
  ['svc_roles', 'id'],
  ['svc_permissions', 'id'],
  ['svc_activity', 'id'],
  ['svc_revisions', 'id'],
  ['svc_sessions', 'token'],
  ['svc_files', 'id'],
];

const dumpTables = (db: Knex) => dumpWatched(db, WATCHED);

interface World {
  readonly ctx: ServerContext;
  readonly role: Caller;
  /** The refresh token of a session of the limited role's user, logged out since. */
  readonly loggedOutRefreshToken: string;
  readonly adminRole: string;
  readonly adminUser: string;
  /** Revisions written by the admin: of a readable article, a hidden one, a hidden country. */
  readonly revisions: { readonly open: number; readonly hiddenItem: number; readonly hiddenCollection: number };
  readonly file: string;
  as(method: string, path: string, body?: unknown): Promise<JsonResponse>;
}

interface Attempt {
  readonly name: string;
  /** Run on MariaDB too (the core cases); everything runs on SQLite and PostgreSQL. */
  readonly core?: boolean;
  run(world: World): Promise<unknown>;
}

const get = (w: World, path: string) => w.as('GET', path);
const refused = async (w: World, path: string) => expectForbidden(await get(w, path));

const ATTEMPTS: readonly Attempt[] = [
  // Relational filters and deep reads through a forbidden collection.
  {
    name: 'filter on a many-to-one into a forbidden collection',
    core: true,
    run: (w) => refused(w, '/items/authors?filter[country][name][_eq]=Netherlands'),
  },
  {
    name: 'filter through a many-to-many into a forbidden collection',
    core: true,
    run: (w) => refused(w, '/items/articles?filter[categories][categories_id][name][_eq]=news'),
  },
  {
    name: 'nested fields through a forbidden junction',
    core: true,
    run: (w) => refused(w, '/items/articles?fields=id,categories.categories_id.name'),
  },
  {
    name: 'deep filter on a forbidden field of a readable relation',
    run: (w) => refused(w, '/items/articles?fields=comments.id&deep[comments][_filter][author][_eq]=3'),
  },
  {
    name: 'deep sort on a forbidden field of a readable relation',
    run: (w) => refused(w, '/items/articles?fields=comments.id&deep[comments][_sort]=author'),
  },
  {
    name: 'filter on a forbidden field of a readable related collection',
    core: true,
    run: (w) => refused(w, '/items/comments?filter[article][body][_contains]=First'),
  },
  {
    name: 'filter into related rows outside the row filter matches nothing',
    core: true,
    async run(w) {
      expect(idsOf(await asAdmin(w.ctx, 'GET', '/items/comments?filter[article][status][_eq]=draft'))).to.deep.equal([
        4,
      ]);
      expect(dataOf(await get(w, '/items/comments?filter[article][status][_eq]=draft'))).to.deep.equal([]);
    },
  },
  {
    name: '_some / _none over hidden related rows',
    async run(w) {
      expect(dataOf(await get(w, '/items/articles?filter[comments][_some][text][_contains]=spam'))).to.deep.equal([]);
      expect(idsOf(await get(w, '/items/articles?filter[comments][_none][text][_contains]=spam'))).to.deep.equal([
        1, 3,
      ]);
      expect(idsOf(await get(w, '/items/articles?filter[comments][_null]=true'))).to.deep.equal([]);
    },
  },
  {
    name: 'count() of a relation counts only readable rows',
    core: true,
    run: async (w) =>
      expect(dataOf(await get(w, '/items/articles?fields=id,count(comments)'))).to.deep.equal([
        { id: 1, comments_count: 2 },
        { id: 3, comments_count: 1 },
      ]),
  },
  {
    name: 'count() of a relation into a forbidden collection',
    run: (w) => refused(w, '/items/articles?filter[count(categories)][_gt]=0'),
  },
  // Sort, aggregate, groupBy, search on forbidden fields.
  { name: 'sort on a forbidden field', core: true, run: (w) => refused(w, '/items/articles?sort=body') },
  {
    name: 'sort on a forbidden field of a related collection',
    run: (w) => refused(w, '/items/articles?sort=author.email'),
  },
  {
    name: 'sort through a many-to-one into a forbidden collection',
    run: (w) => refused(w, '/items/authors?sort=country.name'),
  },
  {
    name: 'sort through a many-to-one orders a hidden row as empty',
    async run(w) {
      // Comment 4's article (2, "Kite") is hidden: it sorts with the nulls, never between "Hello" and "Quantum".
      const ids = idsOf(await get(w, '/items/comments?fields=id&sort=article.title,id'));
      expect(ids.filter((id) => id !== 4)).to.deep.equal([1, 3, 5]);
      expect([0, 3]).to.include(ids.indexOf(4));
    },
  },
  { name: 'aggregate of a forbidden field', core: true, run: (w) => refused(w, '/items/articles?aggregate[max]=big') },
  {
    name: 'groupBy a forbidden field',
    core: true,
    run: (w) => refused(w, '/items/articles?aggregate[count]=*&groupBy[]=body'),
  },
  {
    name: 'aggregates count only readable rows',
    run: async (w) =>
      expect(dataOf(await get(w, '/items/articles?aggregate[count]=*&aggregate[sum]=views'))).to.deep.equal([
        { count: 2, sum: { views: 13 } },
      ]),
  },
  {
    name: 'search never matches forbidden fields',
    core: true,
    run: async (w) => expect(dataOf(await get(w, '/items/articles?search=First'))).to.deep.equal([]),
  },
  {
    name: 'search never matches hidden rows',
    run: async (w) => expect(dataOf(await get(w, '/items/articles?search=Kite'))).to.deep.equal([]),
  },
  { name: 'alias of a forbidden field', run: (w) => refused(w, '/items/articles?alias[x]=body&fields=x') },
  { name: 'a function of a forbidden field', run: (w) => refused(w, '/items/articles?fields=year(published)') },
  {
    name: 'meta counts exclude hidden rows',
    core: true,
    async run(w) {
      const res = await get(w, '/items/articles?meta=*&limit=1');
      expect(res.body?.['meta']).to.deep.equal({ total_count: 2, filter_count: 2 });
    },
  },
  // Many-to-any branches into a forbidden collection.
  {
    name: 'm2a fields scoped to a forbidden collection',
    core: true,
    run: (w) => refused(w, '/items/articles?fields=sections.item:texts.body'),
  },
  {
    name: 'm2a filter scoped to a forbidden collection',
    run: (w) => refused(w, '/items/articles?filter[sections][item:texts][body][_contains]=x'),
  },
  {
    name: 'm2a wildcard leaves a forbidden branch as its key',
    core: true,
    async run(w) {
      const [article] = dataOf<Row[]>(
        await get(w, '/items/articles?fields=sections.collection,sections.item.*&filter[id][_eq]=1'),
      );
      expect(article).to.deep.equal({
        sections: [
          { collection: 'texts', item: '1' },
          { collection: 'headings', item: { id: 1, title: 'H1', level: 1 } },
          { collection: 'headings', item: { id: 2, title: 'H2', level: 2 } },
        ],
      });
    },
  },
  // By-id probing.
  {
    name: 'an item outside the row filter reads like a missing one',
    core: true,
    run: async (w) => expectSameRefusal(await get(w, '/items/articles/2'), await get(w, '/items/articles/99999')),
  },
  {
    name: 'a forbidden collection reads like a missing one',
    core: true,
    async run(w) {
      const existing = await get(w, '/items/countries/1');
      expectSameRefusal(existing, await get(w, '/items/countries/99999'));
      expect(await get(w, '/items/no_such_collection/1')).to.deep.equal(existing);
      expect(await get(w, '/collections/countries')).to.deep.equal(await get(w, '/collections/no_such_collection'));
      expect(await get(w, '/fields/countries')).to.deep.equal(await get(w, '/fields/no_such_collection'));
    },
  },
  {
    name: 'SEARCH by keys leaves hidden items out',
    async run(w) {
      expect(idsOf(await w.as('SEARCH', '/items/articles', { keys: [1, 2, 3, 4] }))).to.deep.equal([1, 3]);
    },
  },
  { name: 'a download of a forbidden collection', run: (w) => refused(w, '/items/countries?export=csv') },
  {
    name: 'an asset of a file the role may not read reads like a missing one',
    async run(w) {
      const hidden = await w.ctx.api(`/assets/${w.file}`, { headers: { Authorization: `Bearer ${w.role.token}` } });
      const missing = await w.ctx.api('/assets/00000000-0000-4000-8000-000000000000', {
        headers: { Authorization: `Bearer ${w.role.token}` },
      });
      expect([hidden.status, await hidden.text()]).to.deep.equal([missing.status, await missing.text()]);
      expect(hidden.status).to.equal(403);
    },
  },
  // Revisions and activity of forbidden items.
  {
    name: 'revisions list only readable items',
    core: true,
    async run(w) {
      const items = dataOf<Row[]>(await get(w, '/revisions?fields=id,collection,item'));
      expect(items).to.deep.equal([{ id: w.revisions.open, collection: 'articles', item: '1' }]);
    },
  },
  {
    name: 'a revision of a hidden item reads like a missing one',
    core: true,
    async run(w) {
      const missing = await get(w, '/revisions/99999');
      expectSameRefusal(await get(w, `/revisions/${w.revisions.hiddenItem}`), missing);
      expect(await get(w, `/revisions/${w.revisions.hiddenCollection}`)).to.deep.equal(missing);
    },
  },
  {
    name: 'hidden revisions are not reachable through activity, filters or counts',
    async run(w) {
      const activity = await get(w, '/activity?fields=collection,item,revisions.item');
      expect(dataOf(activity)).to.deep.equal([{ collection: 'articles', item: '1', revisions: [{ item: '1' }] }]);
      expect(dataOf(await get(w, '/revisions?filter[collection][_eq]=countries'))).to.deep.equal([]);
      expect(dataOf(await get(w, '/revisions?aggregate[count]=*'))).to.deep.equal([{ count: 1 }]);
    },
  },
  // Masked values.
  {
    name: 'a static token cannot be probed through a filter, sort or aggregate, even by an admin',
    core: true,
    async run(w) {
      const probe = await asAdmin(
        w.ctx,
        'GET',
        `/users?filter[token][_starts_with]=${encodeURIComponent(w.role.token.slice(0, 8))}`,
      );
      expect(probe.status).to.equal(400);
      expect(JSON.stringify(probe.body)).to.not.include(w.role.user);
      expectForbidden(await asAdmin(w.ctx, 'GET', '/users?sort=token'));
      expectForbidden(await asAdmin(w.ctx, 'GET', '/users?aggregate[min]=tfa_secret'));
    },
  },
  // Writes.
  {
    name: 'update of an item outside the update filter reads like a missing one',
    core: true,
    run: async (w) =>
      expectSameRefusal(
        await w.as('PATCH', '/items/articles/2', { title: 'Hijacked' }),
        await w.as('PATCH', '/items/articles/99999', { title: 'Hijacked' }),
      ),
  },
  {
    name: 'update of a field outside the update fields',
    core: true,
    run: async (w) => expectForbidden(await w.as('PATCH', '/items/articles/1', { status: 'draft' })),
  },
  {
    name: 'a batch update with one hidden item',
    run: async (w) =>
      expectForbidden(await w.as('PATCH', '/items/articles', { keys: [1, 2], data: { title: 'Both' } })),
  },
  {
    name: 'an update by query cannot select hidden items',
    core: true,
    run: async (w) =>
      expect(
        dataOf(
          await w.as('PATCH', '/items/articles', { query: { filter: { id: { _eq: 2 } } }, data: { title: 'Hidden' } }),
        ),
      ).to.deep.equal([]),
  },
  {
    name: 'delete without delete permission reads like a missing item',
    core: true,
    run: async (w) =>
      expectSameRefusal(await w.as('DELETE', '/items/articles/1'), await w.as('DELETE', '/items/articles/99999')),
  },
  {
    name: 'create without create permission',
    core: true,
    run: async (w) => expectForbidden(await w.as('POST', '/items/comments', { text: 'hello', article: 1 })),
  },
  {
    name: 'a nested many-to-one create into a collection without create permission',
    core: true,
    run: async (w) =>
      expectForbidden(await w.as('POST', '/items/articles', { title: 'Nested', author: { name: 'Eve' } })),
  },
  {
    name: 'a nested many-to-any create into a forbidden branch',
    run: async (w) =>
      expectForbidden(
        await w.as('POST', '/items/articles', {
          title: 'Nested',
          sections: [{ collection: 'texts', item: { body: 'smuggled' } }],
        }),
      ),
  },
  {
    name: 'a nested one-to-many update of hidden rows',
    run: async (w) => expectForbidden(await w.as('POST', '/items/articles', { title: 'Nested', comments: [2] })),
  },
  {
    name: 'revert of a revision of a hidden item',
    core: true,
    run: async (w) => expectForbidden(await w.as('POST', `/utils/revert/${w.revisions.hiddenItem}`)),
  },
  {
    name: 'sort without update permission on the sort field',
    run: async (w) => expectForbidden(await w.as('POST', '/utils/sort/steps', { item: 1, to: 2 })),
  },
  {
    name: 'import into a collection without create and update permission',
    async run(w) {
      const form = new FormData();
      form.append(
        'file',
        new Blob([JSON.stringify([{ name: 'Imported' }])], { type: 'application/json' }),
        'rows.json',
      );
      const res = await w.ctx.api('/utils/import/countries', {
        method: 'POST',
        body: form,
        headers: { Authorization: `Bearer ${w.role.token}` },
      });
      expectForbidden({ status: res.status, body: (await res.json()) as Row });
    },
  },
  {
    name: 'an export job of a forbidden collection is refused before anything is queued',
    run: async (w) => expectForbidden(await w.as('POST', '/utils/export/countries', { format: 'json', query: {} })),
  },
  // Privilege escalation through the system collections.
  {
    name: 'giving oneself the admin role',
    core: true,
    run: async (w) => expectForbidden(await w.as('PATCH', '/users/me', { role: w.adminRole })),
  },
  {
    name: "making one's role an admin role",
    core: true,
    run: async (w) => expectForbidden(await w.as('PATCH', `/roles/${w.role.role}`, { admin_access: true })),
  },
  {
    name: 'granting oneself a permission',
    core: true,
    run: async (w) =>
      expectForbidden(
        await w.as('POST', '/permissions', {
          role: w.role.role,
          collection: 'countries',
          action: 'read',
          fields: ['*'],
        }),
      ),
  },
  {
    name: "another user's row reads like a missing one",
    core: true,
    run: async (w) =>
      expectSameRefusal(
        await get(w, `/users/${w.adminUser}`),
        await get(w, '/users/00000000-0000-4000-8000-000000000000'),
      ),
  },
  // Without a token.
  {
    name: 'no token: nothing is readable by default',
    core: true,
    run: async (w) => expectForbidden(await call(w.ctx, undefined, 'GET', '/items/articles')),
  },
  {
    name: 'no token: nothing is writable by default',
    core: true,
    run: async (w) => expectForbidden(await call(w.ctx, undefined, 'POST', '/items/articles', { title: 'Anon' })),
  },
  {
    name: 'refresh-token reuse after logout',
    core: true,
    run: async (w) =>
      expectOnlyError(
        await postJson(w.ctx.api, '/auth/refresh', { refresh_token: w.loggedOutRefreshToken }),
        401,
        'INVALID_CREDENTIALS',
      ),
  },
];

function runAttempts(targets: readonly DatabaseTarget[], attempts: readonly Attempt[], title: string): void {
  describeEachDatabase(
    title,
    (ctx) => {
      let world: World;

      before(async () => {
        world = await createWorld(ctx());
      });

      for (const attempt of attempts) {
        it(attempt.name, async () => {
          const before = await dumpTables(ctx().server.db);
          await attempt.run(world);
          expect(await dumpTables(ctx().server.db), 'no row changed').to.deep.equal(before);
        });
      }
    },
    { targets, env: { STORAGE_LOCAL_ROOT: join(dir, 'uploads'), TEMP_PATH: join(dir, 'tmp') } },
  );
}

runAttempts([sqliteTarget, postgresTarget], ATTEMPTS, 'a limited role attempts what it may not');
runAttempts(
  [mariadbTarget],
  ATTEMPTS.filter((a) => a.core === true),
  'a limited role attempts what it may not (core cases)',
);

/**
 * The query fixture (articles 1 and 3 published, 2 draft, 4 archived; comment 2 is spam;
 * author 2 hidden), a limited role over it, and the journal and file rows the attempts
 * reach for.
 */
async function createWorld(ctx: ServerContext): Promise<World> {
  const db = ctx.server.db;
  await createQueryFixture(ctx);
  await db.schema.createTable('steps', (t) => {
    t.increments('id');
    t.integer('sort');
  });
  await db('svc_collections').insert({ collection: 'steps', sort_field: 'sort' });
  await db('steps').insert([
    { id: 1, sort: 1 },
    { id: 2, sort: 2 },
  ]);
  await ctx.server.schema.invalidate();

  const role = await createCaller(db, { app: true });
  const password = 'limited-password';
  const member = await createUser(db, { role: role.role, password });
  const login = await postJson(ctx.api, '/auth/login', { email: member.email, password });
  const { refresh_token: loggedOutRefreshToken } = ((await login.json()) as { data: { refresh_token: string } }).data;
  expect((await postJson(ctx.api, '/auth/logout', { refresh_token: loggedOutRefreshToken })).status).to.equal(204);
  await grant(ctx, role.role, [
    {
      collection: 'articles',
      action: 'read',
      permissions: { status: { _eq: 'published' } },
      fields: ['id', 'title', 'status', 'views', 'author', 'comments', 'sections'],
    },
    { collection: 'articles', action: 'create', fields: ['title', 'author', 'sections', 'comments'] },
    { collection: 'articles', action: 'update', permissions: { status: { _eq: 'published' } }, fields: ['title'] },
    {
      collection: 'authors',
      action: 'read',
      permissions: { id: { _neq: 2 } },
      fields: ['id', 'name', 'articles', 'country'],
    },
    {
      collection: 'comments',
      action: 'read',
      permissions: { text: { _ncontains: 'spam' } },
      fields: ['id', 'text', 'article'],
    },
    { collection: 'articles_sections', action: 'read' },
    { collection: 'articles_sections', action: 'create' },
    { collection: 'headings', action: 'read' },
    { collection: 'steps', action: 'read' },
    { collection: 'steps', action: 'update', fields: ['id'] },
    { collection: 'svc_revisions', action: 'read' },
    { collection: 'svc_activity', action: 'read' },
  ]);

  // Journal rows written by the admin: a readable article, a hidden one, a hidden collection.
  dataOf(await asAdmin(ctx, 'PATCH', '/items/articles/1', { views: 7 }));
  dataOf(await asAdmin(ctx, 'PATCH', '/items/articles/2', { title: 'Kite' }));
  dataOf(await asAdmin(ctx, 'PATCH', '/items/countries/1', { name: 'Nederland' }));
  const revisionOf = async (collection: string, item: string) =>
    Number((await db('svc_revisions').where({ collection, item }).first<Row>('id'))?.['id']);

  const form = new FormData();
  form.append('file', new Blob(['admin only'], { type: 'text/plain' }), 'admin.txt');
  const uploaded = await ctx.api('/files', {
    method: 'POST',
    body: form,
    headers: { Authorization: 'Bearer test-admin-static-token' },
  });
  const file = String(((await uploaded.json()) as { data: Row }).data['id']);

  const adminRole = String((await db('svc_roles').where('admin_access', true).first<Row>('id'))?.['id']);
  const adminUser = String((await db('svc_users').where('role', adminRole).first<Row>('id'))?.['id']);
  return {
    ctx,
    role,
    loggedOutRefreshToken,
    adminRole,
    adminUser,
    revisions: {
      open: await revisionOf('articles', '1'),
      hiddenItem: await revisionOf('articles', '2'),
      hiddenCollection: await revisionOf('countries', '1'),
    },
    file,
    as: (method, path, body) => call(ctx, role.token, method, path, body),
  };
}
