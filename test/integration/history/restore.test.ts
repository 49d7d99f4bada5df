import { expect } from 'chai';
import { verifyPassword } from '../../../src/access/passwords.js';
import { describeEachDatabase } from '../../support/server.js';
import { call, createCaller, grant, type Caller } from '../access/permission-helpers.js';
import { adminApi, countRows, createCommandSchema, dataOf, errorsOf, type ApiResult } from '../commands/schema.js';
import { day, stampJournal } from './journal-clock.js';

type Row = Record<string, unknown>;

const TABLES = ['svc_activity', 'svc_revisions', 'articles', 'gadgets'] as const;

describeEachDatabase('restore an item to a moment (POST /utils/revert with as_of)', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const restore = async (caller: Caller | undefined | 'admin', body: unknown): Promise<ApiResult> =>
    caller === 'admin'
      ? api('POST', '/utils/revert', body)
      : ((await call(ctx(), caller?.token, 'POST', '/utils/revert', body)) as ApiResult);
  const articleRow = async (id: number): Promise<Row> => {
    const row = await db()('articles').where({ id }).first<Row>('title', 'views', 'status');
    return { ...row, views: row['views'] === null ? null : Number(row['views']) };
  };
  /** Created day 1 (First, 1 view), edited day 3 (Second, 2 views). */
  const edited = async (): Promise<{ id: number; revisions: number[] }> => {
    const { id } = dataOf<Row>(await api('POST', '/items/articles', { title: 'First', views: 1 }));
    dataOf(await api('PATCH', `/items/articles/${String(id)}`, { title: 'Second', views: 2 }));
    await stampJournal(db(), 'articles', id, [1, 3]);
    const revisions = (
      await db()('svc_revisions')
        .where({ collection: 'articles', item: String(id) })
        .orderBy('id')
        .select<Row[]>('id')
    ).map((r) => Number(r['id']));
    return { id: Number(id), revisions };
  };
  let titleOnly: Caller;
  let readOnly: Caller;
  let editor: Caller;

  before(async () => {
    await createCommandSchema(ctx());
    [titleOnly, readOnly, editor] = [await createCaller(db()), await createCaller(db()), await createCaller(db())];
    const read = { collection: 'articles', action: 'read' } as const;
    await grant(ctx(), titleOnly.role, [read, { collection: 'articles', action: 'update', fields: ['title'] }]);
    await grant(ctx(), readOnly.role, [read]);
    await grant(ctx(), editor.role, [read, { collection: 'articles', action: 'update' }]);
  });

  it('writes the values of the moment back as an audited update, answering 204; a revision id works as the moment', async () => {
    const { id, revisions } = await edited();
    const res = await restore('admin', { collection: 'articles', item: id, as_of: day(2) });
    expect(res.status).to.equal(204);
    expect(res.body).to.equal(undefined);
    expect(await articleRow(id)).to.deep.include({ title: 'First', views: 1 });
    const after = await db()('svc_revisions as r')
      .join('svc_activity as a', 'a.id', 'r.activity')
      .where({ 'r.collection': 'articles', 'r.item': String(id) })
      .orderBy('r.id')
      .select<Row[]>('r.id', 'a.action');
    expect(after.map((r) => Number(r['id'])).slice(0, 2)).to.deep.equal(revisions);
    expect(after.map((r) => r['action'])).to.deep.equal(['create', 'update', 'update']);
    expect(dataOf(await api('GET', `/items/articles/${String(id)}/history?field=title&limit=1`), 200)).to.have.length(
      1,
    );
    expect((await restore('admin', { collection: 'articles', item: String(id), as_of: revisions[1] })).status).to.equal(
      204,
    );
    expect(await articleRow(id)).to.deep.include({ title: 'Second', views: 2 });
  });

  it('bad bodies are INVALID_PAYLOAD; moments before the item, unknown and deleted items FORBIDDEN; nothing written', async () => {
    const { id } = await edited();
    const counts = await countRows(db(), TABLES);
    expect(errorsOf(await restore('admin', { item: id, as_of: day(2) }), 400)).to.deep.equal([
      ['INVALID_PAYLOAD', { reason: '"collection" is required' }],
    ]);
    expect(errorsOf(await restore('admin', { collection: 'articles', as_of: day(2) }), 400)).to.deep.equal([
      ['INVALID_PAYLOAD', { reason: '"item" must be a primary key' }],
    ]);
    expect(
      errorsOf(await restore('admin', { collection: 'articles', item: id, as_of: 'last week' }), 400),
    ).to.deep.equal([['INVALID_PAYLOAD', { reason: '"as_of" must be an ISO 8601 timestamp or a revision id' }]]);
    errorsOf(await restore('admin', [1]), 400);
    errorsOf(await restore('admin', { collection: 'articles', item: id, as_of: '2026-02-01T00:00:00Z' }), 403);
    errorsOf(await restore('admin', { collection: 'articles', item: 99999999, as_of: day(2) }), 403);
    errorsOf(await restore('admin', { collection: 'nothing_here', item: id, as_of: day(2) }), 403);
    expect(await countRows(db(), TABLES)).to.deep.equal(counts);
    expect(await articleRow(id)).to.deep.include({ title: 'Second', views: 2 });
    expect((await api('DELETE', `/items/articles/${String(id)}`)).status).to.equal(204);
    errorsOf(await restore('admin', { collection: 'articles', item: id, as_of: day(2) }), 403);
  });

  it('needs update permission on every field it writes back; nothing written when refused', async () => {
    const { id } = await edited();
    const counts = await countRows(db(), TABLES);
    for (const caller of [titleOnly, readOnly, undefined]) {
      errorsOf(await restore(caller, { collection: 'articles', item: id, as_of: day(2) }), 403);
    }
    expect(await countRows(db(), TABLES)).to.deep.equal(counts);
    expect(await articleRow(id)).to.deep.include({ title: 'Second', views: 2 });
    expect((await restore(editor, { collection: 'articles', item: id, as_of: day(2) })).status).to.equal(204);
    expect(await articleRow(id)).to.deep.include({ title: 'First', views: 1 });
    const last = await db()('svc_activity')
      .where({ collection: 'articles', item: String(id) })
      .orderBy('id', 'desc')
      .first<Row>('user');
    expect(last['user']).to.equal(editor.user);
  });

  it('keeps a hash field whose value of the moment is masked', async () => {
    const { id } = dataOf<Row>(await api('POST', '/items/gadgets', { name: 'g', note: 'first', secret: 'keep me' }));
    dataOf(await api('PATCH', `/items/gadgets/${String(id)}`, { note: 'second' }));
    await stampJournal(db(), 'gadgets', id, [1, 3]);
    expect((await restore('admin', { collection: 'gadgets', item: id, as_of: day(2) })).status).to.equal(204);
    const row = await db()('gadgets').where({ id }).first<Row>('note', 'secret');
    expect(row['note']).to.equal('first');
    expect(await verifyPassword(String(row['secret']), 'keep me')).to.equal(true);
  });
});
