import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { createQueryFixture, UID_1 } from './fixture-schema.js';
import { adminData, adminIds, adminRead, errorOf } from './read-client.js';

describeEachDatabase('read: items routes', (ctx) => {
  before(async () => {
    await createQueryFixture(ctx());
  });

  it('reads every field type the same way on every database', async () => {
    const data = await adminData(ctx(), '/items/articles?filter[id][_eq]=1');
    expect(data).to.deep.equal([
      {
        id: 1,
        author: 1,
        big: '9007199254740993',
        body: 'First post',
        categories: [1, 2],
        comments: [1, 2, 3],
        created: '2024-01-15T10:00:00.000Z',
        data: { a: [1, 2] },
        featured: true,
        published: '2024-01-15T10:00:00',
        published_on: '2024-01-15',
        rating: '4.50',
        secret: '**********',
        sections: [2, 1, 3],
        starts: '08:30:00',
        status: 'published',
        tags: ['red', 'green'],
        title: 'Hello world',
        uid: UID_1,
        views: 5,
      },
    ]);
    const [second] = (await adminData(
      ctx(),
      '/items/articles?fields=data,featured,rating,tags,secret&filter[id][_eq]=2',
    )) as unknown[];
    expect(second).to.deep.equal({ data: [1, 2, 3], featured: false, rating: '1.00', tags: ['blue'], secret: null });
  });

  it('GET /items/:collection/:id reads one item; missing and malformed keys are 403', async () => {
    expect(await adminData(ctx(), '/items/articles/2?fields=id,title,author.name')).to.deep.equal({
      id: 2,
      title: 'Second thoughts',
      author: { name: 'Bob' },
    });
    for (const path of ['/items/articles/99', '/items/articles/abc', '/items/nope/1']) {
      expect(await errorOf(adminRead(ctx(), path))).to.include({ status: 403, code: 'FORBIDDEN' });
    }
  });

  it('unknown, internal and prototype-named collections are 403, never 404', async () => {
    for (const name of ['nope', 'svc_sessions', 'svc_migrations', 'constructor', '__proto__']) {
      expect(await errorOf(adminRead(ctx(), `/items/${name}`))).to.include({ status: 403, code: 'FORBIDDEN' });
    }
  });

  it('without a token nothing is readable (public role has no permissions by default)', async () => {
    const res = await ctx().api('/items/articles');
    expect(res.status).to.equal(403);
  });

  it('limit, offset, page, sort and meta', async () => {
    const res = await adminRead(
      ctx(),
      '/items/articles?fields=id&filter[status][_neq]=archived&sort=-id&limit=2&page=2&meta=*',
    );
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ meta: { total_count: 4, filter_count: 3 }, data: [{ id: 1 }] });
    expect(Object.keys(res.body)).to.deep.equal(['meta', 'data']);
    expect(await adminIds(ctx(), '/items/articles?fields=id&limit=2&offset=1')).to.deep.equal([2, 3]);
    expect(await adminIds(ctx(), '/items/articles?fields=id&sort=-views')).to.deep.equal([3, 1, 2, 4]);
    const filtered = await adminRead(ctx(), '/items/articles?fields=id&meta=filter_count&search=good');
    expect(filtered.body['meta']).to.deep.equal({ filter_count: 0 });
    expect(await adminData(ctx(), '/items/articles?fields=id&filter[id][_gt]=10')).to.deep.equal([]);
  });

  it('limit=-1 returns every row, with meta before data', async () => {
    const res = await adminRead(ctx(), '/items/articles?fields=id&limit=-1&meta=total_count');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ meta: { total_count: 4 }, data: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }] });
  });

  it('SEARCH takes the query from the body, replacing the query string', async () => {
    const data = await adminData(ctx(), '/items/articles?fields=title&limit=1', {
      query: { fields: ['id', 'author.name'], filter: { author: { name: { _eq: 'Ann' } } }, sort: ['-id'] },
    });
    expect(data).to.deep.equal([
      { id: 3, author: { name: 'Ann' } },
      { id: 1, author: { name: 'Ann' } },
    ]);
  });

  it('SEARCH with keys reads exactly those items, in the order given', async () => {
    const data = await adminData(ctx(), '/items/articles', { keys: [3, 99, 1], query: { fields: ['id', 'title'] } });
    expect(data).to.deep.equal([
      { id: 3, title: 'Quantum leap' },
      { id: 1, title: 'Hello world' },
    ]);
    const bad = await errorOf(adminRead(ctx(), '/items/articles', { query: 'fields=id' }));
    expect(bad).to.include({ status: 400, code: 'INVALID_PAYLOAD' });
  });

  it('a singleton reads as its default values until its row exists', async () => {
    expect(await adminData(ctx(), '/items/site_settings')).to.deep.equal({ id: null, headline: 'Hello', visits: 0 });
    expect(await adminData(ctx(), '/items/site_settings?fields=headline')).to.deep.equal({ headline: 'Hello' });
    await ctx().server.db('site_settings').insert({ id: 1, headline: 'Welcome', visits: 3 });
    expect(await adminData(ctx(), '/items/site_settings')).to.deep.equal({ id: 1, headline: 'Welcome', visits: 3 });
    expect(await adminData(ctx(), '/items/site_settings/1?fields=visits')).to.deep.equal({ visits: 3 });
  });

  it('aggregate and groupBy: counts as integers, sums and averages as numbers', async () => {
    const grouped = await adminData(ctx(), '/items/articles?aggregate[count]=*&aggregate[sum]=views&groupBy[]=status');
    expect(grouped).to.deep.equal([
      { status: 'archived', count: 1, sum: { views: 0 } },
      { status: 'draft', count: 1, sum: { views: 1 } },
      { status: 'published', count: 2, sum: { views: 11 } },
    ]);
    const overall = await adminData(
      ctx(),
      '/items/articles?aggregate[countDistinct]=status&aggregate[avg]=views&aggregate[min]=views&aggregate[max]=big&aggregate[count]=rating&aggregate[countAll]=*&fields=title',
    );
    expect(overall).to.deep.equal([
      {
        countDistinct: { status: 3 },
        avg: { views: 3 },
        min: { views: 0 },
        max: { big: '9007199254740993' },
        count: { rating: 2 },
        countAll: 4,
      },
    ]);
    const byYear = await adminData(
      ctx(),
      '/items/articles?aggregate[count]=*&groupBy=year(published)&filter[published][_nnull]=true&sort=-published_year',
    );
    expect(byYear).to.deep.equal([
      { published_year: 2024, count: 1 },
      { published_year: 2023, count: 1 },
    ]);
    const top = await adminData(ctx(), '/items/comments?aggregate[count]=*&groupBy=article&sort=-count&limit=1');
    expect(top).to.deep.equal([{ article: 1, count: 3 }]);
    const avg = await adminData(ctx(), '/items/articles?aggregate[avg]=views&filter[status][_eq]=published');
    expect(avg).to.deep.equal([{ avg: { views: 5.5 } }]);
    const empty = await adminData(ctx(), '/items/articles?aggregate[count]=*&aggregate[sum]=views&filter[id][_gt]=10');
    expect(empty).to.deep.equal([{ count: 0, sum: { views: null } }]);
  });

  it('system collections read through their own routes and /items/svc_*, secrets masked', async () => {
    const users = await adminData(ctx(), '/users?fields=email,password,token,tfa_secret,role.name,role.admin_access');
    const expected = [
      {
        email: 'admin@example.com',
        password: '**********',
        token: '**********',
        tfa_secret: null,
        role: { name: 'Administrator', admin_access: true },
      },
    ];
    expect(users).to.deep.equal(expected);
    expect(
      await adminData(ctx(), '/items/svc_users?fields=email,password,token,tfa_secret,role.name,role.admin_access'),
    ).to.deep.equal(expected);
    expect(
      await adminData(
        ctx(),
        '/items/directus_users?fields=email,password,token,tfa_secret,role.name,role.admin_access',
      ),
    ).to.deep.equal(expected);
    const [admin] = (await adminData(ctx(), '/users?fields=id')) as { id: string }[];
    expect(await adminData(ctx(), `/users/${admin?.id ?? ''}?fields=email`)).to.deep.equal({
      email: 'admin@example.com',
    });
    const roles = (await adminData(ctx(), '/roles?fields=name,users.email,ip_access')) as unknown[];
    expect(roles).to.deep.equal([{ name: 'Administrator', users: [{ email: 'admin@example.com' }], ip_access: null }]);
    const settings = (await adminData(
      ctx(),
      '/settings?fields=project_name,project_color,public_registration',
    )) as unknown;
    expect(settings).to.deep.equal({
      project_name: 'Content Data Service',
      project_color: '#6644FF',
      public_registration: false,
    });
    expect(await adminData(ctx(), '/activity')).to.deep.equal([]);
    expect(await errorOf(adminRead(ctx(), '/revisions/1'))).to.include({ status: 403, code: 'FORBIDDEN' });
    expect(await errorOf(adminRead(ctx(), '/users?filter[password][_eq]=x'))).to.include({
      status: 400,
      code: 'INVALID_QUERY',
    });
    expect(await adminData(ctx(), '/users?fields=email&filter[password][_nnull]=true')).to.have.length(1);
  });

  it('drops unknown fields for admins; odd identifiers are quoted, never spliced', async () => {
    expect(await adminData(ctx(), '/items/articles/1?fields=id,nope,author.nope')).to.deep.equal({ id: 1, author: {} });
    const db = ctx().server.db;
    await db.schema.createTable('odd "names"', (t) => {
      t.increments('id').primary();
      t.string('we"ird`col', 20);
    });
    await db('odd "names"').insert({ id: 1, 'we"ird`col': "it's" });
    await ctx().server.schema.invalidate();
    const path = `/items/${encodeURIComponent('odd "names"')}?fields=${encodeURIComponent('we"ird`col')}&filter[${encodeURIComponent('we"ird`col')}][_eq]=${encodeURIComponent("it's")}`;
    expect(await adminData(ctx(), path)).to.deep.equal([{ 'we"ird`col': "it's" }]);
  });

  it('bad queries are 400 INVALID_QUERY with the reason, never a database error', async () => {
    const cases: readonly (readonly [string, string])[] = [
      ['limit=abc', '"limit" must be a number'],
      ['limit=-5', '"limit" must be greater than or equal to -1'],
      ['offset=x', '"offset" must be a number'],
      ['filter={bad', 'Invalid JSON for filter object'],
      ['filter[nope][_eq]=1', 'Invalid filter key "nope" on "articles"'],
      ['filter[author][nope][_eq]=1', 'Invalid filter key "nope" on "authors"'],
      ['filter[views][_contains]=1', '"integer" field type does not contain the "_contains" filter operator'],
      ['filter[views][_eq]=many', 'The filter value "many" for "_eq" on "views" has to be an integer'],
      ['filter[uid][_eq]=123', 'The filter value "123" for "_eq" on "uid" has to be a UUID'],
      ['filter[published][_lt]=soon', 'The filter value "soon" for "_lt" on "published" has to be a date'],
      ['filter[id][_in]=', '"_in" has to be an array of values'],
      ['filter[title][_null]=perhaps', '"_null" has to be a boolean'],
      ['filter[title][_eq]=', 'You can\'t filter for an empty string in "_eq". Use "_empty" or "_nempty" instead'],
      ['meta=everything', '"meta[0]" must be one of [total_count, filter_count]'],
      ['sort=nope', 'Invalid sort field "nope" on "articles"'],
      ['alias[a.b]=title', '"alias" key/value can\'t contain a period character `.`'],
      ['aggregate[median]=views', 'Invalid aggregate function "median"'],
      ['export=pdf', '"export" must be one of [csv, json, xml, yaml]'],
      ['fields=a.b.c.d.e.f.g.h.i.j.k', 'Max relational depth exceeded'],
    ];
    for (const [qs, reason] of cases) {
      const e = await errorOf(adminRead(ctx(), `/items/articles?${qs}`));
      expect(e, qs).to.deep.equal({ status: 400, code: 'INVALID_QUERY', reason });
    }
  });
});
