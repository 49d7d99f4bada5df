import { expect } from 'chai';
import { createDatabase, type Knex } from '../../../src/db/index.js';
import { insertObjects, insertRows, rowsPerStatement } from '../../../src/db/insert-rows.js';
import { statementsRunOn } from '../../support/statements.js';
import { testConfig } from '../../support/server.js';
import { DATABASE_TARGETS, requireOrSkip, type TestDatabase } from '../../support/services.js';

// insertRows writes the imports of MariaDB and SQLite (PostgreSQL's go by COPY).
for (const target of DATABASE_TARGETS.filter((t) => t.dialect !== 'postgres')) {
  describe(`insertRows [${target.dialect}]`, function () {
    let database: TestDatabase | undefined;
    let db: Knex;

    before(async function () {
      requireOrSkip(this, await target.unavailable());
      database = await target.create();
      db = createDatabase(testConfig(database).db);
      await db.schema.createTable('entries', (t) => {
        t.increments('id');
        t.string('label').notNullable();
        t.string('source');
        t.integer('batch');
        t.boolean('checked');
        t.string('copy');
      });
    });

    after(async () => {
      await db?.destroy();
      await database?.drop();
    });

    beforeEach(() => db('entries').delete());

    async function countEntries(on: Knex): Promise<number> {
      const [{ n }] = (await on('entries').count({ n: '*' })) as [{ n: unknown }];
      return Number(n);
    }

    it('shared values are stored on every row, across statements, bound rather than spliced into the SQL', async () => {
      // More rows than one statement carries, so that the shared values go with each statement.
      const count = rowsPerStatement(1) + 7;
      const rows = Array.from({ length: count }, (_, i) => [`row ${i}`]);
      const source = `O'Brien"; drop table entries; --`;
      const keys = await db.transaction((trx) =>
        insertRows(trx, 'entries', ['label'], rows, {
          shared: { source, batch: 42, checked: true },
          returning: 'id',
        }),
      );
      expect(keys).to.have.length(count);
      const stored = await db('entries').orderBy('id').select('id', 'label', 'source', 'batch', 'checked');
      expect(stored).to.have.length(count);
      expect(stored.map((r: { label: string }) => r.label)).to.deep.equal(rows.map(([label]) => label));
      expect(keys).to.deep.equal(stored.map((r: { id: number }) => r.id));
      for (const row of stored as { source: string; batch: number; checked: unknown }[]) {
        expect(row.source).to.equal(source);
        expect(row.batch).to.equal(42);
        expect(Number(row.checked)).to.equal(1);
      }
    });

    it('a shared null, and rows without shared values, as the columns say', async () => {
      await db.transaction(async (trx) => {
        await insertRows(trx, 'entries', ['label', 'batch'], [['plain', 1]]);
        await insertRows(trx, 'entries', ['label'], [['shared null']], { shared: { source: null, batch: 2 } });
      });
      const stored = await db('entries').orderBy('id').select('label', 'source', 'batch');
      expect(stored).to.deep.equal([
        { label: 'plain', source: null, batch: 1 },
        { label: 'shared null', source: null, batch: 2 },
      ]);
    });

    it('a copied column holds the value of its column on each row, beside the shared ones', async () => {
      const rows = Array.from({ length: 2_500 }, (_, i) => [`label ${i}`, i % 3 === 0 ? null : i]);
      await db.transaction((trx) =>
        insertRows(trx, 'entries', ['label', 'batch'], rows, { shared: { source: 'file' }, copies: { copy: 'label' } }),
      );
      const stored = await db('entries').orderBy('id').select('label', 'batch', 'source', 'copy');
      expect(stored).to.deep.equal(rows.map(([label, batch]) => ({ label, batch, source: 'file', copy: label })));
    });

    it('insertObjects: the columns every row gives alike bound once, the ids in row order', async () => {
      const rows = Array.from({ length: 1_000 }, (_, i) => ({ label: `object ${i}`, source: 'same', batch: 9 }));
      let ids: unknown[] = [];
      const statements = await statementsRunOn(db, async () => {
        ids = await db.transaction((trx) => insertObjects(trx, 'entries', rows, 'id'));
      });
      const inserts = statements.filter((sql) => sql.startsWith('insert'));
      expect(inserts).to.have.length(1);
      // Each database's own identifier quotes: MariaDB's backquotes, SQLite's (SQL's) double quotes.
      const expected =
        target.dialect === 'sqlite'
          ? /^insert into "entries" \("label", "source", "batch"\) values \(\?, @s0, @s1\), /
          : /^insert into `entries` \(`label`, `source`, `batch`\) values \(\?, @s0, @s1\), /;
      expect(inserts[0]).to.match(expected);
      const stored = await db('entries').orderBy('id').select('id', 'label', 'source', 'batch');
      expect(stored.map((r: { id: number }) => r.id)).to.deep.equal(ids);
      expect(stored.map(({ id: _id, ...row }: Record<string, unknown>) => row)).to.deep.equal(rows);
    });

    it('insertObjects: a few rows bind every value, as the round trip that sets shared ones would cost more', async () => {
      const rows = [1, 2, 3].map((i) => ({ label: `few ${i}`, source: 'same', batch: 9 }));
      const statements = await statementsRunOn(db, () => db.transaction((trx) => insertObjects(trx, 'entries', rows)));
      expect(statements.filter((sql) => sql.includes('@'))).to.deep.equal([]);
      expect(statements.filter((sql) => sql.startsWith('insert'))).to.have.length(1);
      const stored = await db('entries').orderBy('id').select('label', 'source', 'batch');
      expect(stored).to.deep.equal(rows);
    });

    it("runs on the transaction's connection: a later failure rolls back rows written before it", async () => {
      let failure: unknown;
      await db
        .transaction(async (trx) => {
          await insertRows(trx, 'entries', ['label'], [['first'], ['second']], { shared: { batch: 3 } });
          expect(await countEntries(trx)).to.equal(2);
          await insertRows(trx, 'entries', ['label'], [['fine'], [null]], { shared: { batch: 4 } });
        })
        .catch((error: unknown) => {
          failure = error;
        });
      expect(failure).to.be.instanceOf(Error);
      expect(await countEntries(db)).to.equal(0);
    });
  });
}
