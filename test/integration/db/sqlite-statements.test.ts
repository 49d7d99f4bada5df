import { expect } from 'chai';
import type BetterSqlite3 from 'better-sqlite3';
import { createDatabase, type Knex } from '../../../src/db/index.js';
import { testConfig } from '../../support/server.js';
import { DATABASE_TARGETS, requireOrSkip, type TestDatabase } from '../../support/services.js';

const sqlite = DATABASE_TARGETS.filter((target) => target.dialect === 'sqlite');

for (const target of sqlite) {
  describe('SQLite connections reuse their compiled statements', function () {
    let database: TestDatabase | undefined;
    let db: Knex;
    let conn: BetterSqlite3.Database;

    before(async function () {
      requireOrSkip(this, await target.unavailable());
      database = await target.create();
      db = createDatabase(testConfig(database).db);
      // The pool's one writer: what knex runs on is this connection.
      conn = (await db.client.acquireConnection()) as BetterSqlite3.Database;
      await db.client.releaseConnection(conn);
      await db.schema.createTable('notes', (t) => {
        t.increments('id');
        t.string('title');
      });
    });

    after(async () => {
      await db?.destroy();
      await database?.drop();
    });

    it('the same SQL text gets the statement compiled before; other text, another', () => {
      const sql = 'select id, title from notes where id = ?';
      expect(conn.prepare(sql)).to.equal(conn.prepare(sql));
      expect(conn.prepare(`${sql} `)).not.to.equal(conn.prepare(sql));
    });

    it('a statement kept across a schema change reads the new schema', async () => {
      await db('notes').insert({ title: 'first' });
      const read = () => db.raw<Record<string, unknown>[]>('select * from notes order by id');
      expect(await read()).to.deep.equal([{ id: 1, title: 'first' }]);
      await db.schema.alterTable('notes', (t) => {
        t.integer('rank').defaultTo(7);
      });
      expect(await read()).to.deep.equal([{ id: 1, title: 'first', rank: 7 }]);
    });

    it('keeps what fits its budget: a statement of very long text is compiled each time', () => {
      const long = `select '${'y'.repeat(140 * 1024)}' as long_text`;
      expect(long.length).to.be.greaterThan(128 * 1024);
      expect(conn.prepare(long)).not.to.equal(conn.prepare(long));
      // The statements kept before are still kept.
      const sql = 'select id, title from notes where id = ?';
      expect(conn.prepare(sql)).to.equal(conn.prepare(sql));
    });

    it('forgets the least recently used first when the budget is full', () => {
      const filler = (n: number) => `select ${n} as n, '${'x'.repeat(500)}' as filler`;
      const first = 'select 1 as kept_first';
      const kept = conn.prepare(first);
      const zero = conn.prepare(filler(0));
      // Some 200 KB of distinct statements: the oldest go, the first, used again between, stays.
      for (let i = 1; i < 400; i += 1) {
        conn.prepare(filler(i));
        if (i % 50 === 0) expect(conn.prepare(first)).to.equal(kept);
      }
      expect(conn.prepare(first)).to.equal(kept);
      expect(conn.prepare(filler(0))).not.to.equal(zero);
      expect(conn.prepare(filler(399))).to.equal(conn.prepare(filler(399)));
    });
  });
}
