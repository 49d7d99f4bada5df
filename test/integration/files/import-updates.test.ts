import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { statementsRunOn } from '../../support/statements.js';
import { createCaller, grant } from '../access/permission-helpers.js';
import {
  ARTICLE_TABLES,
  adminApi,
  countRows,
  createCommandSchema,
  dataOf,
  errorsOf,
  parseJson,
} from '../commands/schema.js';
import { sendForm } from './helpers.js';

type Row = Record<string, unknown>;

/*
 * Issue 13: the rows of an import whose keys exist are updated set-based (update-existing.ts),
 * yet journal, check and fail as ItemWriter.update does for each: an activity row and a
 * revision per item identical to a PATCH's, item permissions, validation, and a failing row
 * named with nothing written.
 */
describeEachDatabase('imports updating existing rows set-based', (ctx) => {
  const db = () => ctx().server.db;
  const importCsv = (csv: string, token?: string) =>
    sendForm(ctx(), 'POST', '/utils/import/articles', [['file', csv, 'rows.csv', 'text/csv']], token ? { token } : {});
  const createArticles = async (count: number, prefix: string): Promise<number[]> => {
    const payload = Array.from({ length: count }, (_, i) => ({ title: `${prefix} ${i}`, views: i }));
    return dataOf<Row[]>(await adminApi(ctx(), 'POST', '/items/articles', payload)).map((r) => Number(r['id']));
  };
  /** The activity and revision of the last write to an item, without ids and times. */
  const journalOf = async (id: number): Promise<Row> => {
    const activity = await db()('svc_activity')
      .where({ collection: 'articles', item: String(id) })
      .orderBy('id', 'desc')
      .first<Row>();
    const revision = await db()('svc_revisions').where({ activity: activity?.['id'] }).first<Row>();
    const withoutVolatile = (value: unknown): Row => {
      const { id: _id, date_updated: _u, date_created: _c, ...rest } = parseJson(value) as Row;
      return rest;
    };
    return {
      action: activity?.['action'],
      user: activity?.['user'],
      data: withoutVolatile(revision?.['data']),
      delta: withoutVolatile(revision?.['delta']),
      dataKeys: Object.keys(parseJson(revision?.['data']) as Row).sort(),
      deltaKeys: Object.keys(parseJson(revision?.['delta']) as Row).sort(),
    };
  };
  let author = 0;

  before(async () => {
    await createCommandSchema(ctx());
    author = Number(dataOf<Row>(await adminApi(ctx(), 'POST', '/items/authors', { name: 'Updater' }))['id']);
  });

  it('updates and creates in one file: rows, one activity and revision per item as a PATCH writes them, file order', async () => {
    const [twin = 0, ...ids] = await createArticles(6, 'upd');
    // A CSV cell is text: the PATCH sends the same texts.
    const patch = { title: 'u0', views: '70', author: String(author), status: 'done' };
    const patched = await adminApi(ctx(), 'PATCH', `/items/articles/${twin}`, patch);
    expect(patched.status).to.equal(200);
    const before = await countRows(db(), ['articles', 'svc_activity', 'svc_revisions']);
    // Rows 1-2 update, 3 creates, 4-6 update (4-5 the columns of 1-2, 6 others), 7 creates.
    const csv = [
      'id,title,views,author,status',
      `${ids[0]},u0,70,${author},done`,
      `${ids[1]},u1,71,${author},done`,
      ',n0,5,,',
      `${ids[2]},u2,72,${author},done`,
      `${ids[3]},u3,73,${author},done`,
      `${ids[4]},u4,,,`,
      ',n1,6,,',
    ].join('\n');
    let status = 0;
    const statements = await statementsRunOn(db(), async () => {
      const res = await importCsv(`${csv}\n`);
      status = res.status;
      expect(status, JSON.stringify(res.body)).to.equal(200);
    });
    // No UPDATE of one item by its key: the updates went set-based.
    expect(
      statements.filter((sql) => /^update [`"]articles[`"] set .* where [`"]id[`"] = (\?|\$\d+)$/i.test(sql)),
    ).to.deep.equal([]);
    const after = await countRows(db(), ['articles', 'svc_activity', 'svc_revisions']);
    expect(after).to.deep.equal({
      articles: (before['articles'] ?? 0) + 2,
      svc_activity: (before['svc_activity'] ?? 0) + 7,
      svc_revisions: (before['svc_revisions'] ?? 0) + 7,
    });
    const rows = await db()('articles')
      .whereIn('id', ids)
      .orderBy('id')
      .select<Row[]>('title', 'views', 'author', 'status');
    expect(rows.map((r) => [r['title'], r['views'] === null ? null : Number(r['views']), r['status']])).to.deep.equal([
      ['u0', 70, 'done'],
      ['u1', 71, 'done'],
      ['u2', 72, 'done'],
      ['u3', 73, 'done'],
      ['u4', 5, 'draft'],
    ]);
    expect(rows.slice(0, 4).map((r) => Number(r['author']))).to.deep.equal([author, author, author, author]);
    // The journal of an updated row is the journal a PATCH of the same values writes.
    expect(await journalOf(ids[0] ?? 0)).to.deep.equal(await journalOf(twin));
    const u4 = await journalOf(ids[4] ?? 0);
    expect([u4['action'], u4['deltaKeys']]).to.deep.equal(['update', ['date_updated', 'title']]);
    expect(u4['data']).to.include({ views: 5, status: 'draft' });
    // One activity row per item, in the order of the file's rows.
    const created = await db()('articles').whereIn('title', ['n0', 'n1']).orderBy('id').select<Row[]>('id');
    const [n0, n1] = created.map((r) => String(r['id']));
    const journal = await db()('svc_activity')
      .where({ collection: 'articles' })
      .orderBy('id', 'desc')
      .limit(7)
      .select<Row[]>('item', 'action');
    expect(journal.reverse().map((a) => [a['item'], a['action']])).to.deep.equal([
      [String(ids[0]), 'update'],
      [String(ids[1]), 'update'],
      [n0, 'create'],
      [String(ids[2]), 'update'],
      [String(ids[3]), 'update'],
      [String(ids[4]), 'update'],
      [n1, 'create'],
    ]);
  });

  it('a row failing validation, or pointing at no author, among updates: 400 naming the row, nothing written', async () => {
    const ids = await createArticles(3000, 'val');
    const lines = ids.map((id, i) => `${id},v${i},${i}`);
    const before = await countRows(db(), ARTICLE_TABLES);
    const titles = async () =>
      (await db()('articles').whereIn('id', ids.slice(0, 3)).orderBy('id')).map((r: Row) => r['title']);
    const original = await titles();
    // Row 2,500: the second batch, after the first batch's updates were written.
    const invalid = lines.map((line, i) => (i === 2499 ? `${ids[i]},bad,many` : line));
    expect(errorsOf(await importCsv(`id,title,views\n${invalid.join('\n')}\n`), 400)).to.deep.equal([
      ['FAILED_VALIDATION', { field: 'views', type: 'type', row: 2500 }],
    ]);
    expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
    expect(await titles()).to.deep.equal(original);
    // The database refuses row 2,700 (a foreign key): the set-based statement is rolled back,
    // the writer names the row.
    const withAuthor = ids.map((id, i) => `${id},w${i},${i},${i === 2699 ? author + 100000 : author}`);
    const refused = await importCsv(`id,title,views,author\n${withAuthor.join('\n')}\n`);
    expect(errorsOf(refused, 400)).to.deep.equal([
      ['INVALID_FOREIGN_KEY', { collection: 'articles', field: 'author', row: 2700 }],
    ]);
    expect(refused.body?.errors?.[0]?.message).to.match(/^Row 2700: /);
    expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
    expect(await titles()).to.deep.equal(original);
  });

  it("an item outside the caller's update rule: FORBIDDEN naming the row as a single update is, nothing written", async () => {
    const ids = await createArticles(40, 'perm');
    await db()('articles').where({ id: ids[30] }).update({ views: 500 });
    const caller = await createCaller(db());
    await grant(ctx(), caller.role, [
      { collection: 'articles', action: 'read' },
      { collection: 'articles', action: 'create' },
      { collection: 'articles', action: 'update', permissions: { views: { _lt: 100 } } },
    ]);
    const before = await countRows(db(), ARTICLE_TABLES);
    const lines = ids.map((id, i) => `${id},imported ${i}`);
    const refused = await importCsv(`id,title\n${lines.join('\n')}\n`, caller.token);
    expect(errorsOf(refused, 403)).to.deep.equal([['FORBIDDEN', { row: 31 }]]);
    expect(await countRows(db(), ARTICLE_TABLES)).to.deep.equal(before);
    const titles = await db()('articles').whereIn('id', ids).select<Row[]>('title');
    expect(titles.filter((r) => String(r['title']).startsWith('imported'))).to.deep.equal([]);
    // Without that row the same caller's import updates every item, each with its activity row.
    const fine = await importCsv(`id,title\n${lines.filter((_, i) => i !== 30).join('\n')}\n`, caller.token);
    expect(fine.status, JSON.stringify(fine.body)).to.equal(200);
    const activity = await db()('svc_activity')
      .where({ collection: 'articles', action: 'update', user: caller.user })
      .count({ n: '*' })
      .first<{ n: number | string }>();
    expect(Number(activity?.n)).to.equal(39);
  });

  it("accountability 'activity': an update activity row per updated item, no revision; null: neither", async () => {
    const before = await countRows(db(), ['svc_activity', 'svc_revisions']);
    for (const collection of ['logged', 'quiet']) {
      await db()(collection).insert(Array.from({ length: 30 }, (_, i) => ({ id: i + 1, name: `old ${i}` })));
      const csv = `id,name\n${Array.from({ length: 30 }, (_, i) => `${i + 1},new ${i}`).join('\n')}\n`;
      const res = await sendForm(ctx(), 'POST', `/utils/import/${collection}`, [['file', csv, 'rows.csv', 'text/csv']]);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const names = await db()(collection).orderBy('id').select<Row[]>('name');
      expect(names.map((r) => r['name'])).to.deep.equal(Array.from({ length: 30 }, (_, i) => `new ${i}`));
    }
    expect(await countRows(db(), ['svc_activity', 'svc_revisions'])).to.deep.equal({
      svc_activity: (before['svc_activity'] ?? 0) + 30,
      svc_revisions: before['svc_revisions'] ?? 0,
    });
    const actions = await db()('svc_activity')
      .where({ collection: 'logged' })
      .orderBy('id')
      .select<Row[]>('action', 'item');
    expect(actions.map((a) => [a['action'], a['item']])).to.deep.equal(
      Array.from({ length: 30 }, (_, i) => ['update', String(i + 1)]),
    );
  });
});
