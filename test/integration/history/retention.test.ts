import { expect } from 'chai';
import { pruneJournal } from '../../../src/commands/journal/prune-journal.js';
import { dialectOf } from '../../../src/db/index.js';
import { toDatabaseTimestamp } from '../../../src/db/to-database-timestamp.js';
import { describeEachDatabase } from '../../support/server.js';
import { adminApi, countRows, createCommandSchema, dataOf } from '../commands/schema.js';
import { stampJournal } from './journal-clock.js';

type Row = Record<string, unknown>;

const DAY = 86_400_000;
/** The pruner's "now" in these tests: 2026-03-31, so the journal-clock days of March are a month old. */
const NOW = new Date('2026-03-31T10:00:00.000Z');

describeEachDatabase('journal retention (pruneJournal)', (ctx) => {
  const db = () => ctx().server.db;
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const idsOf = async (table: string, where: Row): Promise<number[]> =>
    (await db()(table).where(where).orderBy('id').select<Row[]>('id')).map((r) => Number(r['id']));

  before(async () => {
    await createCommandSchema(ctx());
  });

  it('deletes revisions older than REVISIONS_RETENTION in batches, keeping newer ones and every activity row', async () => {
    const old = Number(dataOf<Row>(await api('POST', '/items/authors', { name: 'old' }))['id']);
    dataOf(await api('PATCH', `/items/authors/${String(old)}`, { name: 'old 2' }));
    dataOf(await api('PATCH', `/items/authors/${String(old)}`, { name: 'old 3' }));
    const recent = Number(dataOf<Row>(await api('POST', '/items/authors', { name: 'recent' }))['id']);
    await stampJournal(db(), 'authors', old, [1, 2, 3]);
    await stampJournal(db(), 'authors', recent, [9]);
    const activity = await countRows(db(), ['svc_activity']);
    const keptRevisions = await idsOf('svc_revisions', { collection: 'authors', item: String(recent) });
    const result = await pruneJournal(
      db(),
      dialectOf(db()),
      { activityMs: null, revisionsMs: 25 * DAY, batchSize: 2 },
      NOW,
    );
    expect(result).to.deep.equal({ activity: 0, revisions: 3 });
    expect(await idsOf('svc_revisions', { collection: 'authors', item: String(old) })).to.deep.equal([]);
    expect(await idsOf('svc_revisions', { collection: 'authors', item: String(recent) })).to.deep.equal(keptRevisions);
    expect(await countRows(db(), ['svc_activity'])).to.deep.equal(activity);
    // the item itself is untouched, its history now starts later
    expect((await db()('authors').where({ id: old }).first<Row>('name'))['name']).to.equal('old 3');
  });

  it('deletes activity rows older than ACTIVITY_RETENTION with their revisions; comments stay', async () => {
    const old = Number(dataOf<Row>(await api('POST', '/items/authors', { name: 'gone' }))['id']);
    dataOf(await api('POST', '/activity/comment', { collection: 'authors', item: old, comment: 'still here' }));
    const recent = Number(dataOf<Row>(await api('POST', '/items/authors', { name: 'kept' }))['id']);
    await stampJournal(db(), 'authors', old, [1, 1]);
    await stampJournal(db(), 'authors', recent, [9]);
    await pruneJournal(db(), dialectOf(db()), { activityMs: 25 * DAY, revisionsMs: null, batchSize: 1 }, NOW);
    const left = await db()('svc_activity')
      .where({ collection: 'authors', item: String(old) })
      .select<Row[]>('action');
    expect(left.map((r) => r['action'])).to.deep.equal(['comment']);
    expect(await idsOf('svc_revisions', { collection: 'authors', item: String(old) })).to.deep.equal([]);
    expect(await idsOf('svc_activity', { collection: 'authors', item: String(recent) })).to.have.length(1);
    expect(await idsOf('svc_revisions', { collection: 'authors', item: String(recent) })).to.have.length(1);
  });
});

describeEachDatabase(
  'journal retention at start (REVISIONS_RETENTION)',
  (ctx) => {
    it('a server with a retention prunes in the background', async () => {
      const db = ctx().server.db;
      // Rows written before the start would be pruned by then: write and date one now, wait for the next run.
      await db('svc_activity').insert({
        action: 'update',
        collection: 'svc_roles',
        item: 'x',
        timestamp: toDatabaseTimestamp(new Date('2020-01-01T00:00:00Z'), dialectOf(db)),
      });
      const row = await db('svc_activity').where({ item: 'x' }).first<Row>('id');
      await db('svc_revisions').insert({
        activity: row['id'],
        collection: 'svc_roles',
        item: 'x',
        data: '{}',
        delta: '{}',
      });
      const deadline = Date.now() + 5000;
      while ((await db('svc_revisions').where({ item: 'x' })).length > 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(await db('svc_revisions').where({ item: 'x' })).to.deep.equal([]);
      expect(await db('svc_activity').where({ item: 'x' })).to.have.length(1);
    });
  },
  { env: { REVISIONS_RETENTION: '30d', RETENTION_INTERVAL: '1000' } },
);
