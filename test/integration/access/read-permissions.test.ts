import { statementsRunOn } from '../../support/statements.js';
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
  jwtFor,
  type Caller,
} from './permission-helpers.js';

type Row = Record<string, unknown>;

/**
 * Reads through HTTP as the public role and as a limited role:
 * rows and fields restricted at every level, refusals that leak
 * nothing, meta counts, schema routes, the journal, and rules reloaded after they change.
 */
describeEachDatabase('read permissions', (ctx) => {
  let reader: Caller;
  const as = (method: string, path: string, body?: unknown) => call(ctx(), reader.token, method, path, body);
  const get = (path: string) => as('GET', path);

  before(async () => {
    await createQueryFixture(ctx());
    reader = await createCaller(ctx().server.db);
    await grant(ctx(), reader.role, [
      {
        collection: 'articles',
        action: 'read',
        permissions: { status: { _eq: 'published' } },
        fields: ['id', 'title', 'status', 'views', 'author', 'comments'],
      },
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
    ]);
    await grant(ctx(), null, [
      {
        collection: 'articles',
        action: 'read',
        permissions: { status: { _eq: 'published' } },
        fields: ['id', 'title'],
      },
    ]);
  });

  describe('the public role', () => {
    it('gets exactly what its rows grant: the published articles, id and title', async () => {
      expect(dataOf(await call(ctx(), undefined, 'GET', '/items/articles'))).to.deep.equal([
        { id: 1, title: 'Hello world' },
        { id: 3, title: 'Quantum leap' },
      ]);
    });

    it('nothing else: other collections, other fields, other rows are FORBIDDEN', async () => {
      expectForbidden(await call(ctx(), undefined, 'GET', '/items/authors'));
      expectForbidden(await call(ctx(), undefined, 'GET', '/items/articles?fields=id,views'));
      expectForbidden(await call(ctx(), undefined, 'GET', '/items/articles/2'));
      expectForbidden(await call(ctx(), undefined, 'GET', '/users'));
    });
  });

  describe('a limited role', () => {
    it('reads only the rows of its filter; * expands to its fields only', async () => {
      const items = dataOf<Row[]>(await get('/items/articles'));
      expect(items.map((i) => i['id'])).to.deep.equal([1, 3]);
      expect(Object.keys(items[0] ?? {})).to.have.members(['id', 'status', 'title', 'views', 'author', 'comments']);
    });

    it('applies the row filters at every level: m2o rows outside them read as null, o2m lists leave them out', async () => {
      expect(dataOf(await get('/items/comments?fields=id,article.title&sort=id'))).to.deep.equal([
        { id: 1, article: { title: 'Hello world' } },
        { id: 3, article: { title: 'Hello world' } },
        { id: 4, article: null },
        { id: 5, article: { title: 'Quantum leap' } },
      ]);
      expect(dataOf(await get('/items/authors?fields=id,articles.id,articles.comments.id'))).to.deep.equal([
        {
          id: 1,
          articles: [
            { id: 1, comments: [{ id: 1 }, { id: 3 }] },
            { id: 3, comments: [{ id: 5 }] },
          ],
        },
        { id: 3, articles: [] },
      ]);
    });

    it('leaves unreadable fields out of wildcards at every depth', async () => {
      const [first] = dataOf<Row[]>(await get('/items/articles?fields=*.*&limit=1'));
      expect(Object.keys((first?.['author'] ?? {}) as Row)).to.have.members(['id', 'name', 'country', 'articles']);
      const comments = first?.['comments'] as Row[];
      expect(comments).to.have.length(2);
      for (const comment of comments) expect(Object.keys(comment)).to.have.members(['id', 'article', 'text']);
    });

    it('meta counts respect the row filter', async () => {
      const res = await get('/items/articles?meta=*&filter[views][_gt]=5');
      expect(idsOf(res)).to.deep.equal([3]);
      expect(res.body?.['meta']).to.deep.equal({ total_count: 2, filter_count: 1 });
    });

    it('relational filters, counts and sorts see only the related rows it may read', async () => {
      expect(idsOf(await get('/items/comments?filter[article][status][_eq]=draft'))).to.deep.equal([]);
      expect(dataOf(await get('/items/articles?fields=id,count(comments)'))).to.deep.equal([
        { id: 1, comments_count: 2 },
        { id: 3, comments_count: 1 },
      ]);
      expect(idsOf(await get('/items/articles?filter[comments][_some][text][_contains]=spam'))).to.deep.equal([]);
      expect(idsOf(await get('/items/articles?filter[comments][_none][text][_contains]=spam'))).to.deep.equal([1, 3]);
    });

    it('refuses filtering, sorting, aggregating or grouping on an unreadable field, at any depth', async () => {
      for (const path of [
        '/items/articles?fields=body',
        '/items/articles?filter[body][_contains]=First',
        '/items/articles?sort=body',
        '/items/articles?aggregate[max]=big',
        '/items/articles?aggregate[count]=*&groupBy[]=body',
        '/items/comments?filter[article][body][_contains]=First',
        '/items/comments?sort=article.body',
        '/items/articles?fields=author.email',
        '/items/articles?deep[comments][_filter][author][_eq]=3&fields=comments.id',
        '/items/authors?filter[country][name][_eq]=Netherlands',
        '/items/articles?fields=categories.categories_id.name',
      ]) {
        expectForbidden(await get(path));
      }
    });

    it('does not search fields it cannot read', async () => {
      expect(idsOf(await get('/items/articles?search=First'))).to.deep.equal([]);
      expect(idsOf(await get('/items/articles?search=Quantum'))).to.deep.equal([3]);
    });

    it('an item outside the filter and an item that does not exist get the same 403', async () => {
      expectForbidden(await get('/items/articles/2'));
      expectForbidden(await get('/items/articles/999'));
      expectForbidden(await get('/items/countries/1'));
      expect(dataOf(await get('/items/articles/3?fields=title'))).to.deep.equal({ title: 'Quantum leap' });
    });

    it('downloads (?export) hold the same rows and fields as the read', async () => {
      const res = await ctx().api('/items/articles?fields=id,title&export=json', {
        headers: { Authorization: `Bearer ${reader.token}` },
      });
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal([
        { id: 1, title: 'Hello world' },
        { id: 3, title: 'Quantum leap' },
      ]);
    });
  });

  describe('schema routes show what the role may read', () => {
    it('collections with a read permission only, once svc_collections is readable', async () => {
      // Without app access and without a permission on svc_collections: FORBIDDEN (Directus 10).
      expectForbidden(await get('/collections'));
      expectForbidden(await get('/collections/articles'));
      await grant(ctx(), reader.role, [{ collection: 'svc_collections', action: 'read' }]);
      const names = dataOf<Row[]>(await get('/collections')).map((c) => c['collection']);
      expect(names).to.deep.equal(['articles', 'authors', 'comments', 'svc_collections']);
      expectForbidden(await get('/collections/countries'));
      expect(dataOf<Row>(await get('/collections/articles'))['collection']).to.equal('articles');
    });

    it('readable fields only', async () => {
      expect(dataOf<Row[]>(await get('/fields/comments')).map((f) => f['field'])).to.have.members([
        'id',
        'article',
        'text',
      ]);
      expectForbidden(await get('/fields/articles/body'));
      expectForbidden(await get('/fields/countries'));
      const all = dataOf<Row[]>(await get('/fields')).map((f) => `${String(f['collection'])}.${String(f['field'])}`);
      expect(all).to.include('articles.title').and.not.include('articles.body').and.not.include('countries.name');
    });

    it('relations whose ends are both readable', async () => {
      const relations = dataOf<Row[]>(await get('/relations')).map(
        (r) => `${String(r['collection'])}.${String(r['field'])}`,
      );
      expect(relations.sort()).to.deep.equal(['articles.author', 'comments.article']);
      expectForbidden(await get('/relations/authors/country'));
      expect(dataOf<Row>(await get('/relations/comments/article'))['related_collection']).to.equal('articles');
    });
  });

  describe('the journal (svc_activity, svc_revisions)', () => {
    let published: number;
    let draft: number;

    before(async () => {
      // Explicit keys: the fixture's rows were inserted with theirs (PostgreSQL's sequences did not move).
      published = Number(
        dataOf<Row>(
          await asAdmin(ctx(), 'POST', '/items/articles', { id: 100, title: 'Journal open', status: 'published' }),
        )['id'],
      );
      draft = Number(
        dataOf<Row>(
          await asAdmin(ctx(), 'POST', '/items/articles', { id: 101, title: 'Journal hidden', status: 'draft' }),
        )['id'],
      );
      dataOf(await asAdmin(ctx(), 'POST', '/items/countries', { id: 3, name: 'Hidden land' }));
      await grant(ctx(), reader.role, [
        { collection: 'svc_revisions', action: 'read' },
        { collection: 'svc_activity', action: 'read' },
      ]);
    });

    it('shows revisions and activity only of the items the role may read', async () => {
      const revisions = dataOf<Row[]>(await get('/revisions?fields=collection,item,data.title'));
      expect(revisions.map((r) => `${String(r['collection'])}:${String(r['item'])}`)).to.deep.equal([
        `articles:${published}`,
      ]);
      const activity = dataOf<Row[]>(await get('/activity?fields=collection,item'));
      expect(activity).to.deep.equal([{ collection: 'articles', item: String(published) }]);
      const hidden = await ctx()
        .server.db('svc_revisions')
        .where({ collection: 'articles', item: String(draft) })
        .first<Row>('id');
      expectForbidden(await get(`/revisions/${String(hidden?.['id'])}`));
    });

    it('nor through a relation or a count', async () => {
      const activity = dataOf<Row[]>(await get('/activity?fields=item,revisions.item'));
      expect(activity).to.deep.equal([{ item: String(published), revisions: [{ item: String(published) }] }]);
      const admin = (await asAdmin(ctx(), 'GET', '/revisions?aggregate[count]=*')).body?.['data'];
      expect(admin).to.deep.equal([{ count: 3 }]);
      expect(dataOf(await get('/revisions?aggregate[count]=*'))).to.deep.equal([{ count: 1 }]);
    });
  });

  describe('with app_access', () => {
    let app: Caller;
    let other: Caller;

    before(async () => {
      app = await createCaller(ctx().server.db, { app: true });
      other = await createCaller(ctx().server.db, { app: true });
      await grant(ctx(), other.role, [{ collection: 'articles', action: 'read' }]);
    });

    it("reads its own user row (secrets masked), role and permissions, and nobody else's", async () => {
      const users = dataOf<Row[]>(await call(ctx(), app.token, 'GET', '/users?fields=id,token,password'));
      expect(users).to.deep.equal([{ id: app.user, token: '**********', password: '**********' }]);
      expect(idsOf(await call(ctx(), app.token, 'GET', '/roles'))).to.deep.equal([app.role]);
      expect(dataOf(await call(ctx(), app.token, 'GET', '/permissions'))).to.deep.equal([]);
      expectForbidden(await call(ctx(), app.token, 'GET', `/users/${other.user}`));
      expect(
        dataOf<Row[]>(await call(ctx(), other.token, 'GET', '/permissions?fields=collection,action')),
      ).to.deep.equal([{ collection: 'articles', action: 'read' }]);
    });

    it('reads the schema collections but not user collections without a permission', async () => {
      expect(dataOf<Row[]>(await call(ctx(), app.token, 'GET', '/settings?fields=project_name'))).to.have.property(
        'project_name',
      );
      expectForbidden(await call(ctx(), app.token, 'GET', '/items/articles'));
    });

    it("cannot learn another user's token through a filter on it, nor sort by it", async () => {
      const probe = await asAdmin(ctx(), 'GET', `/users?filter[token][_eq]=${encodeURIComponent(app.token)}`);
      expect(probe.status).to.equal(400);
      expect(JSON.stringify(probe.body)).to.not.include(app.user);
      expectForbidden(await asAdmin(ctx(), 'GET', '/users?sort=token'));
      expectForbidden(await asAdmin(ctx(), 'GET', '/users?aggregate[max]=password'));
    });
  });

  describe('dynamic values in row filters', () => {
    let dynamic: Caller;

    before(async () => {
      dynamic = await createCaller(ctx().server.db);
      await ctx().server.db('svc_users').where('id', dynamic.user).update({ first_name: 'Ann' });
      await grant(ctx(), dynamic.role, [
        // Articles published more than a day ago, by the author named like the user.
        {
          collection: 'articles',
          action: 'read',
          permissions: { published: { _lte: '$NOW(-1 day)' } },
          fields: ['id', 'author'],
        },
        {
          collection: 'authors',
          action: 'read',
          permissions: { name: { _eq: '$CURRENT_USER.first_name' } },
          fields: ['id', 'name', 'articles'],
        },
        { collection: 'svc_roles', action: 'read', permissions: { id: { _eq: '$CURRENT_ROLE' } }, fields: ['id'] },
      ]);
    });

    it('resolve for the caller at every level of a read', async () => {
      expect(
        dataOf(await call(ctx(), dynamic.token, 'GET', '/items/articles?fields=id,author.name&sort=id')),
      ).to.deep.equal([
        { id: 1, author: { name: 'Ann' } },
        { id: 2, author: null },
      ]);
      expect(dataOf(await call(ctx(), dynamic.token, 'GET', '/items/authors?fields=name,articles.id'))).to.deep.equal([
        { name: 'Ann', articles: [{ id: 1 }] },
      ]);
      expect(idsOf(await call(ctx(), dynamic.token, 'GET', '/roles'))).to.deep.equal([dynamic.role]);
    });

    it('rules are evaluated once per role and schema version, not per request or row', async () => {
      const db = ctx().server.db;
      await call(ctx(), dynamic.token, 'GET', '/items/articles');
      const statements = await statementsRunOn(db, async () => {
        for (let i = 0; i < 3; i++)
          expect((await call(ctx(), dynamic.token, 'GET', '/items/articles?fields=id,author.name')).status).to.equal(
            200,
          );
      });
      expect(statements.filter((sql) => sql.includes('svc_permissions'))).to.deep.equal([]);
    });
  });

  describe('rules are reloaded when they change, on every instance', () => {
    it('a permission written through /permissions applies to the next request', async () => {
      expectForbidden(await get('/items/countries'));
      const created = dataOf<Row>(
        await asAdmin(ctx(), 'POST', '/permissions', {
          role: reader.role,
          collection: 'countries',
          action: 'read',
          fields: ['id', 'code'],
        }),
      );
      expect(dataOf(await get('/items/countries?sort=id'))).to.deep.equal([
        { id: 1, code: 'NL' },
        { id: 2, code: 'DE' },
        { id: 3, code: null },
      ]);
      expect(
        dataOf<Row>(await asAdmin(ctx(), 'PATCH', `/permissions/${String(created['id'])}`, { fields: ['id'] }))[
          'fields'
        ],
      ).to.deep.equal(['id']);
      expectForbidden(await get('/items/countries?fields=code'));
      expect(await asAdmin(ctx(), 'DELETE', `/permissions/${String(created['id'])}`)).to.include({ status: 204 });
      expectForbidden(await get('/items/countries'));
    });

    it("a role's ip_access written through /roles applies to the next request of a JWT holder", async () => {
      const token = jwtFor(reader);
      expect((await call(ctx(), token, 'GET', '/items/articles')).status).to.equal(200);
      await asAdmin(ctx(), 'PATCH', `/roles/${reader.role}`, { ip_access: ['10.9.9.9'] });
      const refused = await call(ctx(), token, 'GET', '/items/articles');
      expect([refused.status, (refused.body?.['errors'] as Row[] | undefined)?.[0]]).to.deep.equal([
        401,
        { message: 'Invalid IP address.', extensions: { code: 'INVALID_IP' } },
      ]);
      await asAdmin(ctx(), 'PATCH', `/roles/${reader.role}`, { ip_access: null });
      expect((await call(ctx(), token, 'GET', '/items/articles')).status).to.equal(200);
    });
  });
});
