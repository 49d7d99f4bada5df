import { expect } from 'chai';
import { migrate } from '../../../catalog/migrate.js';
import { Journal, type RevisionRef } from '../../../src/commands/journal/journal.js';
import { createDatabase, dialectOf, type Knex } from '../../../src/db/index.js';
import { testConfig } from '../../support/server.js';
import { DATABASE_TARGETS, requireOrSkip, type TestDatabase } from '../../support/services.js';
import { collection, field } from '../../unit/commands/fixture-overview.js';

const accountability = {
  user: '11111111-1111-4111-8111-111111111111',
  role: null,
  admin: true,
  app: true,
  ip: '10.0.0.7',
  userAgent: 'journal-test',
  origin: 'https://example.com',
};
const now = new Date('2024-05-01T10:00:00.000Z');

const fields = [field('id', 'integer', { isPrimaryKey: true }), field('title', 'string'), field('secret', 'hash')];
const full = collection('full', fields, { accountability: 'all' });
const activityOnly = collection('activity_only', fields, { accountability: 'activity' });
const silent = collection('silent', fields, { accountability: null });

interface ActivityRow {
  id: number;
  action: string;
  user: string | null;
  timestamp: unknown;
  ip: string;
  user_agent: string;
  origin: string;
  collection: string;
  item: string;
}
interface RevisionRow {
  id: number;
  activity: number;
  collection: string;
  item: string;
  data: unknown;
  delta: unknown;
  parent: number | null;
}

const parseJson = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);

for (const target of DATABASE_TARGETS) {
  describe(`Journal [${target.dialect}]`, function () {
    let database: TestDatabase | undefined;
    let db: Knex;

    before(async function () {
      requireOrSkip(this, await target.unavailable());
      database = await target.create();
      db = createDatabase(testConfig(database).db);
      await migrate(db);
    });

    after(async () => {
      await db?.destroy();
      await database?.drop();
    });

    beforeEach(async () => {
      await db('svc_revisions').delete();
      await db('svc_activity').delete();
    });

    /** Records in a transaction, flushes the journal; the id of the revision `run` answers. */
    const record = (run: (journal: Journal) => RevisionRef | null | Promise<RevisionRef | null>) =>
      db.transaction(async (trx) => {
        const journal = new Journal(trx, dialectOf(db), accountability, now);
        const revision = await run(journal);
        await journal.flush();
        return revision === null ? null : revision.id;
      });

    it("'all': an activity row with the caller's details and a masked revision", async () => {
      const revisionId = await record((j) =>
        j.record({
          action: 'create',
          collection: full,
          key: 7,
          revision: { data: { id: 7, title: 't', secret: 'h' }, delta: { title: 't', secret: 'h' } },
        }),
      );
      const [activity] = await db<ActivityRow>('svc_activity').select();
      expect(activity).to.include({
        action: 'create',
        user: accountability.user,
        ip: '10.0.0.7',
        user_agent: 'journal-test',
        origin: 'https://example.com',
        collection: 'full',
        item: '7',
      });
      const timestamp = activity?.timestamp;
      expect(timestamp instanceof Date ? timestamp.toISOString() : timestamp).to.equal(
        target.dialect === 'sqlite' ? '2024-05-01 10:00:00.000' : now.toISOString(),
      );
      const revisions = await db<RevisionRow>('svc_revisions').select();
      expect(revisions).to.have.length(1);
      const [revision] = revisions;
      expect(revision?.id).to.equal(revisionId);
      expect(revision).to.include({ activity: activity?.id, collection: 'full', item: '7', parent: null });
      expect(parseJson(revision?.data)).to.deep.equal({ id: 7, title: 't', secret: '**********' });
      expect(parseJson(revision?.delta)).to.deep.equal({ title: 't', secret: '**********' });
    });

    it("'activity': the activity row only", async () => {
      const revisionId = await record((j) =>
        j.record({
          action: 'update',
          collection: activityOnly,
          key: 'a-key',
          revision: { data: { title: 'x' }, delta: { title: 'x' } },
        }),
      );
      expect(revisionId).to.equal(null);
      expect(await db('svc_activity').select('action', 'collection', 'item')).to.deep.equal([
        { action: 'update', collection: 'activity_only', item: 'a-key' },
      ]);
      expect(await db('svc_revisions').select()).to.deep.equal([]);
    });

    it('null: nothing at all', async () => {
      await record((j) =>
        j.record({ action: 'create', collection: silent, key: 1, revision: { data: {}, delta: {} } }),
      );
      expect(await db('svc_activity').select()).to.deep.equal([]);
      expect(await db('svc_revisions').select()).to.deep.equal([]);
    });

    it('delete: activity without revision', async () => {
      const revisionId = await record((j) => j.record({ action: 'delete', collection: full, key: 3 }));
      expect(revisionId).to.equal(null);
      expect(await db('svc_activity').select('action', 'item')).to.deep.equal([{ action: 'delete', item: '3' }]);
      expect(await db('svc_revisions').select()).to.deep.equal([]);
    });

    it('links the revisions of nested writes to their parent revision', async () => {
      await record((j) => {
        const entry = (key: number) => ({
          action: 'create' as const,
          collection: full,
          key,
          revision: { data: { id: key }, delta: { id: key } },
        });
        const first = j.record(entry(1));
        const second = j.record(entry(2));
        const parent = j.record(entry(3));
        if (first === null || second === null || parent === null) throw new Error('revisions expected');
        j.linkChildren([first, second], parent);
        return null;
      });
      const rows = await db<RevisionRow>('svc_revisions').orderBy('id').select('id', 'item', 'parent');
      const parentId = rows[2]?.id;
      expect(rows.map((r) => [r.item, r.parent])).to.deep.equal([
        ['1', parentId],
        ['2', parentId],
        ['3', null],
      ]);
    });

    it('writes many entries in record order, each revision with its own activity row', async () => {
      const collections = [full, activityOnly, silent, full];
      await record((j) => {
        for (let i = 0; i < 400; i++) {
          const collection = collections[i % collections.length] ?? full;
          j.record({
            action: i % 5 === 0 ? 'update' : 'create',
            collection,
            key: i,
            revision: { data: { id: i }, delta: { title: `t${i}` } },
          });
        }
        return null;
      });
      const recorded = Array.from({ length: 400 }, (_, i) => i).filter((i) => i % 4 !== 2);
      const activity = await db<ActivityRow>('svc_activity').orderBy('id').select('id', 'item', 'collection', 'action');
      expect(activity.map((a) => a.item)).to.deep.equal(recorded.map(String));
      const revisions = await db<RevisionRow>('svc_revisions')
        .orderBy('id')
        .select('activity', 'item', 'collection', 'delta');
      expect(revisions.map((r) => r.item)).to.deep.equal(recorded.filter((i) => i % 4 !== 1).map(String));
      const activityById = new Map(activity.map((a) => [a.id, a]));
      for (const revision of revisions) {
        expect(activityById.get(revision.activity)).to.include({ item: revision.item, collection: 'full' });
        expect(parseJson(revision.delta)).to.deep.equal({ title: `t${revision.item}` });
      }
    });

    it('links children written by an earlier flush to a parent written later', async () => {
      await db.transaction(async (trx) => {
        const journal = new Journal(trx, dialectOf(db), accountability, now);
        const entry = (key: number) => ({
          action: 'create' as const,
          collection: full,
          key,
          revision: { data: { id: key }, delta: { id: key } },
        });
        const child = journal.record(entry(1));
        await journal.flush();
        const parent = journal.record(entry(2));
        if (child === null || parent === null) throw new Error('revisions expected');
        journal.linkChildren([child], parent);
        await journal.flush();
      });
      const rows = await db<RevisionRow>('svc_revisions').orderBy('id').select('id', 'item', 'parent');
      expect(rows.map((r) => [r.item, r.parent])).to.deep.equal([
        ['1', rows[1]?.id],
        ['2', null],
      ]);
    });

    it('writes nothing when the transaction rolls back', async () => {
      await record(async (j) => {
        j.record({ action: 'create', collection: full, key: 1, revision: { data: {}, delta: {} } });
        await j.flush();
        throw new Error('boom');
      }).catch(() => undefined);
      expect(await db('svc_activity').select()).to.deep.equal([]);
    });
  });
}
