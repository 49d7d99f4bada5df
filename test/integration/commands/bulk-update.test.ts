import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { statementsRunOn } from '../../support/statements.js';
import { call, createCaller, grant } from '../access/permission-helpers.js';
import { ARTICLE_TABLES, adminApi, countRows, createCommandSchema, dataOf, errorsOf, parseJson } from './schema.js';

type Row = Record<string, unknown>;

/*
 * PATCH and DELETE of many items by keys or query: written set-based (item-writer.ts,
 * updateMany), yet each item gets its activity row and its revision (the whole item and the
 * values set), every permission and validation rule applies, and any refusal leaves nothing.
 */
describeEachDatabase('writes of many items by keys or query: set-based, audited per item', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  let ids: number[] = [];

  before(async () => {
    await createCommandSchema(ctx());
  });

  beforeEach(async () => {
    const payload = Array.from({ length: 40 }, (_, i) => ({ title: `bulk ${i}`, views: i, code: `C${i}` }));
    ids = dataOf<Row[]>(await api('POST', '/items/articles?fields=id', payload)).map((a) => Number(a['id']));
  });

  afterEach(async () => {
    await db()('articles').whereIn('id', ids).delete();
  });

  async function lastActivityId(): Promise<number> {
    const row = await db()('svc_activity').max({ id: 'id' }).first<{ id: number | null }>();
    return Number(row?.id ?? 0);
  }

  /** Activity rows after `since` with their revision, oldest first. */
  async function auditSince(since: number): Promise<{ activity: Row; revision: Row | undefined }[]> {
    const activity = await db()('svc_activity').where('id', '>', since).orderBy('id').select<Row[]>('*');
    const revisions = await db()('svc_revisions')
      .whereIn(
        'activity',
        activity.map((a) => Number(a['id'])),
      )
      .select<Row[]>('*');
    return activity.map((a) => ({
      activity: a,
      revision: revisions.find((r) => Number(r['activity']) === Number(a['id'])),
    }));
  }

  it('PATCH by keys: every item updated, one activity and one revision each (item as read, values set)', async () => {
    const keys = ids.slice(0, 30);
    const since = await lastActivityId();
    let written: Row[] = [];
    const statements = await statementsRunOn(db(), async () => {
      const body = { keys, data: { status: 'published', views: 7 } };
      written = dataOf<Row[]>(await api('PATCH', '/items/articles?fields=id,status,views', body));
    });
    // Set-based: one UPDATE for the 30 items, not one each.
    expect(statements.filter((sql) => /^update\s+[`"]articles[`"]/i.test(sql))).to.have.length(1);
    expect(written.map((a) => Number(a['id']))).to.deep.equal(keys);
    expect(written.every((a) => a['status'] === 'published' && a['views'] === 7)).to.equal(true);
    const untouched = await db()('articles').whereIn('id', ids.slice(30)).select<Row[]>('status');
    expect(untouched.map((a) => a['status'])).to.deep.equal(Array(10).fill('draft'));

    const audit = await auditSince(since);
    expect(audit.map((a) => [a.activity['action'], Number(a.activity['item'])])).to.deep.equal(
      keys.map((key) => ['update', key]),
    );
    for (const [i, { revision }] of audit.entries()) {
      expect(revision, `revision of item ${keys[i]}`).to.not.equal(undefined);
      const data = parseJson(revision?.['data']) as Row;
      const delta = parseJson(revision?.['delta']) as Row;
      expect(data).to.include({ id: keys[i], title: `bulk ${ids.indexOf(keys[i] ?? -1)}`, status: 'published' });
      expect(data['views']).to.equal(7);
      expect(data['comments']).to.deep.equal([]);
      expect(delta).to.include({ status: 'published', views: 7 });
      expect(delta).to.have.property('date_updated');
      expect(delta).to.not.have.property('title');
    }
    // The snapshot is the item as one read of it shows it (the same as an update of one item records).
    const single = dataOf<Row>(await api('GET', `/items/articles/${keys[3]}`));
    expect(parseJson(audit[3]?.revision?.['data'])).to.deep.equal(single);
  });

  it('PATCH by query selects with the query and writes the same audit', async () => {
    const since = await lastActivityId();
    const written = dataOf<Row[]>(
      await api('PATCH', '/items/articles?fields=id', {
        query: { filter: { id: { _in: ids }, views: { _gte: 25 } }, limit: -1 },
        data: { status: 'archived' },
      }),
    );
    const expected = ids.slice(25);
    expect(written.map((a) => Number(a['id'])).sort((a, b) => a - b)).to.deep.equal(expected);
    const audit = await auditSince(since);
    expect(audit).to.have.length(expected.length);
    expect(audit.every((a) => a.revision !== undefined && a.activity['action'] === 'update')).to.equal(true);
    const rows = await db()('articles').whereIn('id', ids).orderBy('id').select<Row[]>('status');
    expect(rows.map((r) => r['status'])).to.deep.equal([...Array(25).fill('draft'), ...Array(15).fill('archived')]);
  });

  it('a value failing validation refuses the whole write: 400, no row and no audit written', async () => {
    const before = await countRows(db(), ARTICLE_TABLES);
    const res = await api('PATCH', '/items/articles', { keys: ids, data: { code: 'X1', views: 1 } });
    expect(errorsOf(res, 400).map(([code]) => code)).to.deep.equal(['FAILED_VALIDATION']);
    expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
    const views = await db()('articles').whereIn('id', ids).orderBy('id').pluck('views');
    expect(views.map(Number)).to.deep.equal(ids.map((_, i) => i));
  });

  it('one missing key among many is FORBIDDEN (before validation) and nothing is written', async () => {
    const before = await countRows(db(), ARTICLE_TABLES);
    const missing = Math.max(...ids) + 1000;
    for (const data of [{ views: 1 }, { code: 'X1' }]) {
      const res = await api('PATCH', '/items/articles', { keys: [...ids, missing], data });
      expect(errorsOf(res, 403).map(([code]) => code)).to.deep.equal(['FORBIDDEN']);
    }
    expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
    expect(await db()('articles').whereIn('id', ids).where('views', 1).pluck('id')).to.deep.equal([ids[1]]);
  });

  it('a limited role: an item outside its update filter or a field it may not write refuses them all', async () => {
    const caller = await createCaller(db());
    await grant(ctx(), caller.role, [
      { collection: 'articles', action: 'read' },
      { collection: 'articles', action: 'update', permissions: { views: { _lt: 20 } }, fields: ['status', 'views'] },
    ]);
    const as = (body: unknown) => call(ctx(), caller.token, 'PATCH', '/items/articles', body);
    const before = await countRows(db(), ARTICLE_TABLES);
    expect((await as({ keys: ids.slice(0, 21), data: { status: 'published' } })).status).to.equal(403);
    expect((await as({ keys: ids.slice(0, 5), data: { title: 'renamed' } })).status).to.equal(403);
    expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
    const allowed = await as({ keys: ids.slice(0, 20), data: { status: 'published' } });
    expect(allowed.status, JSON.stringify(allowed.body)).to.equal(200);
    const published = await db()('articles').whereIn('id', ids).where('status', 'published').pluck('id');
    expect(published.map(Number).sort((a, b) => a - b)).to.deep.equal(ids.slice(0, 20));
    const audit = await db()('svc_activity').where({ user: caller.user, action: 'update' }).count({ n: '*' });
    expect(Number(audit[0]?.['n'])).to.equal(20);
  });

  it('DELETE by keys: every item deleted, one activity row each', async () => {
    const since = await lastActivityId();
    const res = await api('DELETE', '/items/articles', ids);
    expect(res.status, JSON.stringify(res.body)).to.equal(204);
    expect(await db()('articles').whereIn('id', ids).pluck('id')).to.deep.equal([]);
    const audit = await auditSince(since);
    expect(audit.map((a) => [a.activity['action'], Number(a.activity['item'])])).to.deep.equal(
      ids.map((key) => ['delete', key]),
    );
  });
});
