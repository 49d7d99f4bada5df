import { expect } from 'chai';
import { createDatabase, type Knex } from '../../../src/db/index.js';
import { noteJournalRows } from '../../../src/db/journal-statistics.js';
import { testConfig } from '../../support/server.js';
import { DATABASE_TARGETS, requireOrSkip, type TestDatabase } from '../../support/services.js';

const POSTGRES = DATABASE_TARGETS.filter((t) => t.dialect === 'postgres');

for (const target of POSTGRES) {
  describe(`journal statistics [${target.dialect}]`, function () {
    let database: TestDatabase | undefined;
    let db: Knex;

    before(async function () {
      requireOrSkip(this, await target.unavailable());
      database = await target.create();
      // One connection: the foreign key plan it makes first is the one it keeps.
      db = createDatabase({ ...testConfig(database).db, pool: { min: 1, max: 1 } });
      await db.schema.createTable('svc_activity', (t) => {
        t.increments('id');
      });
      await db.schema.createTable('svc_revisions', (t) => {
        t.increments('id');
        t.integer('activity').notNullable().references('id').inTable('svc_activity');
      });
    });

    after(async () => {
      await db?.destroy();
      await database?.drop();
    });

    async function activityScans(): Promise<{ scans: number; analysed: boolean }> {
      await db.raw('select pg_stat_clear_snapshot()');
      const rows = await db.raw<{ rows: { seq_scan: string; last_analyze: Date | null }[] }>(
        `select seq_scan, last_analyze from pg_stat_user_tables where relname = 'svc_activity'`,
      );
      const row = rows.rows[0];
      return { scans: Number(row?.seq_scan ?? 0), analysed: row?.last_analyze !== null };
    }

    async function settled<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
      let value = await read();
      for (let i = 0; i < 40 && !done(value); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        value = await read();
      }
      return value;
    }

    it('a grown journal is analysed where autovacuum is off, so revisions stop scanning svc_activity', async () => {
      // The connection checks its first revision's activity while svc_activity is one page.
      const [first] = await db('svc_activity').insert({}).returning<{ id: number }[]>('id');
      await db('svc_revisions').insert({ activity: first?.id });
      await db.raw('insert into svc_activity select from generate_series(1, 20000)');
      const autovacuum = await db.raw<{ rows: { setting: string }[] }>(
        `select current_setting('autovacuum') as setting`,
      );
      noteJournalRows(db, 20_001);
      const isOff = autovacuum.rows[0]?.setting === 'off';
      const stats = await settled(activityScans, (s) => s.analysed === isOff);
      // With autovacuum on, its daemon analyses; the service leaves it be.
      expect(stats.analysed).to.equal(isOff);
      if (!isOff) return;
      await db.raw('insert into svc_revisions (activity) select id from svc_activity where id > 1 limit 2000');
      const after = await settled(activityScans, (s) => s.scans > stats.scans);
      // Before the analysis the kept plan scanned svc_activity once per revision (2,000 times).
      expect(after.scans - stats.scans).to.be.below(10);
    });
  });
}
