import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { call, createCaller, grant, type Caller } from '../access/permission-helpers.js';
import { adminApi, countRows, createCommandSchema, dataOf, errorsOf, type ApiResult } from '../commands/schema.js';

type Row = Record<string, unknown>;

const TABLES = ['svc_activity', 'svc_revisions', 'articles'] as const;

describeEachDatabase('bulk undo (POST /utils/undo)', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const as = async (caller: Caller | undefined, method: string, path: string, body?: unknown): Promise<ApiResult> =>
    (await call(ctx(), caller?.token, method, path, body)) as ApiResult;
  const undo = (caller: Caller | undefined | 'admin', body: unknown): Promise<ApiResult> =>
    caller === 'admin' ? api('POST', '/utils/undo', body) : as(caller, 'POST', '/utils/undo', body);
  const articles = async (ids: readonly number[]): Promise<Row[]> =>
    (await db()('articles').whereIn('id', ids).orderBy('id').select<Row[]>('id', 'title', 'views')).map((r) => ({
      ...r,
      id: Number(r['id']),
      views: r['views'] === null ? null : Number(r['views']),
    }));
  const byAlice = (ids: readonly number[]) => ({
    _and: [{ user: { _eq: alice.user } }, { collection: { _eq: 'articles' } }, { item: { _in: ids.map(String) } }],
  });
  const article = async (title: string, views: number): Promise<number> =>
    Number(dataOf<Row>(await api('POST', '/items/articles', { title, views }))['id']);
  let alice: Caller;
  let reader: Caller;

  before(async () => {
    await createCommandSchema(ctx());
    [alice, reader] = [await createCaller(db()), await createCaller(db())];
    await grant(ctx(), alice.role, [
      { collection: 'articles', action: 'read' },
      { collection: 'articles', action: 'create' },
      { collection: 'articles', action: 'update' },
      { collection: 'articles', action: 'delete' },
      { collection: 'svc_activity', action: 'read' },
    ]);
    await grant(ctx(), reader.role, [
      { collection: 'articles', action: 'read' },
      { collection: 'svc_activity', action: 'read' },
    ]);
  });

  it('dry run answers the plan and writes nothing; the undo puts fields back, deletes what was created, in one audited write', async () => {
    const edited = await article('Original', 1);
    dataOf(await as(alice, 'PATCH', `/items/articles/${String(edited)}`, { title: 'By Alice', views: 5 }));
    const created = Number(dataOf<Row>(await as(alice, 'POST', '/items/articles', { title: 'New by Alice' }))['id']);
    const counts = await countRows(db(), TABLES);
    const plan = dataOf<Row[]>(await undo('admin', { filter: byAlice([edited, created]), dry_run: true }));
    expect(plan).to.deep.equal([
      { collection: 'articles', item: String(created), action: 'delete', fields: [], values: {}, conflicts: [] },
      {
        collection: 'articles',
        item: String(edited),
        action: 'update',
        fields: ['title', 'views'],
        values: { title: 'Original', views: 1 },
        conflicts: [],
      },
    ]);
    expect(await countRows(db(), TABLES)).to.deep.equal(counts);
    expect(dataOf<Row[]>(await undo('admin', { filter: byAlice([edited, created]) }))).to.deep.equal(plan);
    expect(await articles([edited, created])).to.deep.equal([{ id: edited, title: 'Original', views: 1 }]);
    // audited: an update and a delete, by the admin
    const journal = await db()('svc_activity')
      .where('id', '>', counts['svc_activity'] ?? 0)
      .orderBy('id')
      .select<Row[]>('action', 'item');
    expect(journal.map((j) => [j['action'], j['item']])).to.deep.equal([
      ['delete', String(created)],
      ['update', String(edited)],
    ]);
  });

  it('refuses when a later change by someone else touched the same fields, naming them; force undoes anyway', async () => {
    const id = await article('Original', 1);
    const other = await article('Other', 1);
    dataOf(await as(alice, 'PATCH', `/items/articles/${String(id)}`, { title: 'By Alice' }));
    dataOf(await as(alice, 'PATCH', `/items/articles/${String(other)}`, { title: 'Alice too' }));
    dataOf(await api('PATCH', `/items/articles/${String(id)}`, { title: 'By admin', views: 9 }));
    dataOf(await api('PATCH', `/items/articles/${String(other)}`, { views: 7 }));
    const counts = await countRows(db(), TABLES);
    const plan = dataOf<Row[]>(await undo('admin', { filter: byAlice([id, other]), dry_run: true }));
    expect(plan.map((p) => [p['item'], p['conflicts']])).to.deep.equal([
      [String(other), []],
      [String(id), ['title']],
    ]);
    expect(errorsOf(await undo('admin', { filter: byAlice([id, other]) }), 422)).to.deep.equal([
      [
        'UNPROCESSABLE_ENTITY',
        {
          reason: `Later changes by others touch the same fields ("articles" ${String(id)}: title); send "force": true to undo anyway`,
        },
      ],
    ]);
    expect(await countRows(db(), TABLES)).to.deep.equal(counts);
    expect(await articles([id, other])).to.deep.equal([
      { id, title: 'By admin', views: 9 },
      { id: other, title: 'Alice too', views: 7 },
    ]);
    dataOf(await undo('admin', { filter: byAlice([id, other]), force: true }));
    // the later change to other fields stays
    expect(await articles([id, other])).to.deep.equal([
      { id, title: 'Original', views: 9 },
      { id: other, title: 'Other', views: 7 },
    ]);
  });

  it('an item the selection deleted comes back with its values', async () => {
    const id = await article('Doomed', 3);
    expect((await as(alice, 'DELETE', `/items/articles/${String(id)}`)).status).to.equal(204);
    const plan = dataOf<Row[]>(await undo(alice, { filter: byAlice([id]) }));
    expect(plan.map((p) => p['action'])).to.deep.equal(['create']);
    expect(await articles([id])).to.deep.equal([{ id, title: 'Doomed', views: 3 }]);
  });

  it('bad bodies are INVALID_PAYLOAD; callers without write or activity permission FORBIDDEN; nothing written', async () => {
    const id = await article('Original', 1);
    dataOf(await as(alice, 'PATCH', `/items/articles/${String(id)}`, { title: 'By Alice' }));
    const counts = await countRows(db(), TABLES);
    expect(errorsOf(await undo('admin', {}), 400)).to.deep.equal([
      ['INVALID_PAYLOAD', { reason: '"filter" must be a non-empty filter object of svc_activity' }],
    ]);
    expect(errorsOf(await undo('admin', { filter: byAlice([id]), dry_run: 'yes' }), 400)).to.deep.equal([
      ['INVALID_PAYLOAD', { reason: '"dry_run" must be a boolean' }],
    ]);
    errorsOf(await undo('admin', { filter: byAlice([id]), force: 1 }), 400);
    errorsOf(await undo(reader, { filter: byAlice([id]) }), 403);
    errorsOf(await undo(undefined, { filter: byAlice([id]) }), 403);
    expect(await countRows(db(), TABLES)).to.deep.equal(counts);
    expect(await articles([id])).to.deep.equal([{ id, title: 'By Alice', views: 1 }]);
  });
});
