import { expect } from 'chai';
import { verifyPassword } from '../../../src/access/passwords.js';
import { describeEachDatabase } from '../../support/server.js';
import { ARTICLE_TABLES, adminApi, countRows, createCommandSchema, dataOf, errorsOf } from './schema.js';

type Row = Record<string, unknown>;

describeEachDatabase('item write routes', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const titles = async (ids: readonly unknown[]) =>
    (await db()('articles').whereIn('id', ids.map(Number)).orderBy('id').select<Row[]>('title')).map((r) => r['title']);

  before(async () => {
    await createCommandSchema(ctx());
  });

  it('POST an object answers one item, POST an array answers the items in input order', async () => {
    const single = dataOf<Row>(await api('POST', '/items/articles', { title: 'One' }));
    expect(single['id']).to.be.a('number');
    const many = dataOf<Row[]>(await api('POST', '/items/articles', [{ title: 'Two' }, { title: 'Three' }]));
    expect(many).to.have.length(2);
    expect(await titles(many.map((r) => r['id']))).to.deep.equal(['Two', 'Three']);
  });

  it('a failing item of a POST array rolls back the others', async () => {
    const before = await countRows(db(), ARTICLE_TABLES);
    errorsOf(await api('POST', '/items/articles', [{ title: 'fine' }, { title: null }]), 400);
    expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
  });

  it('PATCH /items/:c/:id updates one item', async () => {
    const { id } = dataOf<Row>(await api('POST', '/items/articles', { title: 'Before' }));
    expect(dataOf<Row>(await api('PATCH', `/items/articles/${String(id)}`, { title: 'After' }))['id']).to.equal(id);
    expect(await titles([id])).to.deep.equal(['After']);
  });

  it('PATCH /items/:c with {keys, data} applies data to every key', async () => {
    const items = dataOf<Row[]>(await api('POST', '/items/articles', [{ title: 'k1' }, { title: 'k2' }]));
    const keys = items.map((r) => r['id']);
    const updated = dataOf<Row[]>(
      await api('PATCH', '/items/articles', { keys: [...keys].reverse(), data: { views: 7 } }),
    );
    expect(updated.map((r) => r['id'])).to.deep.equal([...keys].reverse());
    const views = await db()('articles').whereIn('id', keys.map(Number)).select<Row[]>('views');
    expect(views.map((r) => Number(r['views']))).to.deep.equal([7, 7]);
  });

  it('PATCH /items/:c with an array updates each item by its key', async () => {
    const items = dataOf<Row[]>(await api('POST', '/items/articles', [{ title: 'b1' }, { title: 'b2' }]));
    dataOf(
      await api(
        'PATCH',
        '/items/articles',
        items.map((r, i) => ({ id: r['id'], title: `batch ${i}` })),
      ),
    );
    expect(await titles(items.map((r) => r['id']))).to.deep.equal(['batch 0', 'batch 1']);
    const errors = errorsOf(await api('PATCH', '/items/articles', [{ title: 'no key' }]), 400);
    expect(errors[0]?.[0]).to.equal('INVALID_PAYLOAD');
  });

  it('PATCH /items/:c without keys or query, or without data, is INVALID_PAYLOAD', async () => {
    expect(errorsOf(await api('PATCH', '/items/articles', { data: { title: 'x' } }), 400)).to.deep.equal([
      ['INVALID_PAYLOAD', { reason: '"value" must contain at least one of [query, keys]' }],
    ]);
    expect(errorsOf(await api('PATCH', '/items/articles', { keys: [1] }), 400)).to.deep.equal([
      ['INVALID_PAYLOAD', { reason: '"data" is required' }],
    ]);
    expect(errorsOf(await api('PATCH', '/items/articles', { keys: [1], query: {}, data: {} }), 400)[0]?.[0]).to.equal(
      'INVALID_PAYLOAD',
    );
  });

  it('DELETE /items/:c/:id answers 204 with an empty body', async () => {
    const { id } = dataOf<Row>(await api('POST', '/items/articles', { title: 'Doomed' }));
    const res = await api('DELETE', `/items/articles/${String(id)}`);
    expect(res.status).to.equal(204);
    expect(res.body).to.equal(undefined);
    expect(await titles([id])).to.deep.equal([]);
  });

  it('DELETE /items/:c takes an array of keys or {keys}; without either it is INVALID_PAYLOAD', async () => {
    const items = dataOf<Row[]>(
      await api('POST', '/items/articles', [{ title: 'd1' }, { title: 'd2' }, { title: 'd3' }]),
    );
    const [a, b, c] = items.map((r) => r['id']);
    expect((await api('DELETE', '/items/articles', [a, b])).status).to.equal(204);
    expect((await api('DELETE', '/items/articles', { keys: [c] })).status).to.equal(204);
    expect(await titles([a, b, c])).to.deep.equal([]);
    expect(errorsOf(await api('DELETE', '/items/articles'), 400)).to.deep.equal([
      ['INVALID_PAYLOAD', { reason: '"value" must contain at least one of [query, keys]' }],
    ]);
  });

  describe('writes to items that do not exist are FORBIDDEN', () => {
    it('PATCH and DELETE of a missing id, also for admins ([DEVIATION])', async () => {
      errorsOf(await api('PATCH', '/items/articles/999999', { title: 'x' }), 403);
      errorsOf(await api('DELETE', '/items/articles/999999'), 403);
    });

    it('FORBIDDEN wins over what else is wrong with the write, and its nested writes are undone', async () => {
      errorsOf(await api('PATCH', '/items/articles/999999', { title: 'x'.repeat(30) }), 403);
      errorsOf(await api('PATCH', '/items/articles/999999', { nope: 1 }), 403);
      errorsOf(await api('PATCH', '/items/articles/999999', {}), 403);
      errorsOf(await api('PATCH', '/items/articles/999999', { comments: [{ text: 'x' }] }), 403);
      const authors = await ctx().server.db('authors').count({ n: '*' });
      errorsOf(await api('PATCH', '/items/articles/999999', { author: { name: 'Written first' } }), 403);
      expect(await ctx().server.db('authors').count({ n: '*' })).to.deep.equal(authors);
    });

    it('an id that cannot be a key of the collection', async () => {
      errorsOf(await api('PATCH', '/items/articles/abc', { title: 'x' }), 403);
      errorsOf(await api('DELETE', '/items/gadgets/not-a-uuid'), 403);
    });

    it('one missing key among several fails the whole request, nothing written', async () => {
      const { id } = dataOf<Row>(await api('POST', '/items/articles', { title: 'Stays' }));
      errorsOf(await api('PATCH', '/items/articles', { keys: [id, 999999], data: { title: 'Changed' } }), 403);
      errorsOf(await api('DELETE', '/items/articles', [id, 999999]), 403);
      expect(await titles([id])).to.deep.equal(['Stays']);
    });

    it('an unknown collection, and the journal through /items/svc_*', async () => {
      errorsOf(await api('POST', '/items/nothing_here', { a: 1 }), 403);
      errorsOf(await api('POST', '/items/svc_activity', { action: 'create' }), 403);
      errorsOf(await api('PATCH', '/items/svc_revisions/1', { data: {} }), 403);
    });

    it('without a token nothing may be written', async () => {
      const res = await ctx().api('/items/articles', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'anon' }),
      });
      expect(res.status).to.equal(403);
    });
  });

  describe('singletons', () => {
    it('PATCH /items/:c creates the row when missing, then updates it', async () => {
      const created = dataOf<Row>(await api('PATCH', '/items/home', { headline: 'Welcome' }));
      const updated = dataOf<Row>(await api('PATCH', '/items/home', { headline: 'Welcome back' }));
      expect(updated['id']).to.equal(created['id']);
      expect(await db()('home').select('headline')).to.deep.equal([{ headline: 'Welcome back' }]);
    });

    it('POST /items/:c and writes on /items/:c/:id are ROUTE_NOT_FOUND', async () => {
      expect(errorsOf(await api('POST', '/items/home', { headline: 'x' }), 404)).to.deep.equal([
        ['ROUTE_NOT_FOUND', { path: '/items/home' }],
      ]);
      errorsOf(await api('PATCH', '/items/home/1', { headline: 'x' }), 404);
      errorsOf(await api('DELETE', '/items/home/1'), 404);
    });

    it('/settings is the svc_settings singleton', async () => {
      dataOf(await api('PATCH', '/settings', { project_name: 'Renamed' }));
      expect((await db()('svc_settings').first<Row>('project_name'))['project_name']).to.equal('Renamed');
      errorsOf(await api('POST', '/settings', { project_name: 'x' }), 404);
    });
  });

  describe('system collections', () => {
    it('/roles and /items/svc_roles write the same table; directus_roles names svc_roles', async () => {
      const role = dataOf<Row>(await api('POST', '/roles', { name: 'Editors' }));
      expect(role['id']).to.match(/^[0-9a-f-]{36}$/);
      dataOf(await api('PATCH', `/items/svc_roles/${String(role['id'])}`, { description: 'edits' }));
      dataOf(await api('PATCH', `/items/directus_roles/${String(role['id'])}`, { icon: 'edit' }));
      expect(await db()('svc_roles').where({ id: role['id'] }).first<Row>('name', 'description', 'icon')).to.deep.equal(
        { name: 'Editors', description: 'edits', icon: 'edit' },
      );
      expect((await api('DELETE', `/roles/${String(role['id'])}`)).status).to.equal(204);
      expect(await db()('svc_roles').where({ id: role['id'] })).to.deep.equal([]);
    });

    it('/users stores the password as an argon2 hash', async () => {
      const user = dataOf<Row>(await api('POST', '/users', { email: 'writer@example.com', password: 'secret words' }));
      const row = await db()('svc_users').where({ id: user['id'] }).first<Row>('password', 'status');
      expect(row['status']).to.equal('active');
      expect(await verifyPassword(String(row['password']), 'secret words')).to.equal(true);
    });

    it('read-only system routes have no write routes: 405 METHOD_NOT_ALLOWED offering reads only', async () => {
      expect(errorsOf(await api('POST', '/activity', { action: 'x' }), 405)).to.deep.equal([
        ['METHOD_NOT_ALLOWED', { current: 'POST', allowed: ['GET', 'HEAD', 'SEARCH'] }],
      ]);
      expect(errorsOf(await api('PATCH', '/revisions/1', {}), 405)).to.deep.equal([
        ['METHOD_NOT_ALLOWED', { current: 'PATCH', allowed: ['GET', 'HEAD'] }],
      ]);
    });
  });
});

describeEachDatabase(
  'MAX_BATCH_MUTATION',
  (ctx) => {
    before(async () => {
      await createCommandSchema(ctx());
    });

    it('counts nested items too; above the limit nothing is written', async () => {
      dataOf(
        await adminApi(ctx(), 'POST', '/items/articles', { title: 'three', comments: [{ text: 'a' }, { text: 'b' }] }),
      );
      const before = await countRows(ctx().server.db, ARTICLE_TABLES);
      const result = await adminApi(ctx(), 'POST', '/items/articles', {
        title: 'four',
        comments: [{ text: 'a' }, { text: 'b' }, { text: 'c' }],
      });
      expect(errorsOf(result, 400)).to.deep.equal([
        ['INVALID_PAYLOAD', { reason: 'Exceeded max batch mutation limit of 3' }],
      ]);
      expect(await countRows(ctx().server.db, ARTICLE_TABLES)).to.deep.equal(before);
    });
  },
  { env: { MAX_BATCH_MUTATION: '3' } },
);
