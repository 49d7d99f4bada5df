import { expect } from 'chai';
import { createDatabase, type Knex } from '../../../src/db/index.js';
import { insertReturningKeys } from '../../../src/db/insert-returning-keys.js';
import { testConfig } from '../../support/server.js';
import { DATABASE_TARGETS, requireOrSkip, type TestDatabase } from '../../support/services.js';

type Row = Record<string, unknown>;

for (const target of DATABASE_TARGETS) {
  describe(`insertReturningKeys [${target.dialect}]`, function () {
    let database: TestDatabase | undefined;
    let db: Knex;
    let statements = 0;
    const countStatement = () => {
      statements += 1;
    };

    before(async function () {
      requireOrSkip(this, await target.unavailable());
      database = await target.create();
      db = createDatabase(testConfig(database).db);
      await db.schema.createTable('numbered', (t) => {
        t.increments('id');
        t.string('label').notNullable();
        t.string('note').defaultTo('none');
      });
      await db.schema.createTable('named', (t) => {
        t.string('code').primary();
        t.string('label').notNullable();
      });
      await db.schema.createTable('cased', (t) => {
        // MariaDB's default collation would make 'a' and 'A' one key.
        const code = t.string('code').primary();
        if (target.dialect === 'mariadb') code.collate('utf8mb4_bin');
        t.string('label').notNullable();
      });
      await db.schema.createTable('identified', (t) => {
        t.uuid('id').primary();
        t.string('label').notNullable();
      });
      db.on('query', countStatement);
    });

    after(async () => {
      db?.off('query', countStatement);
      await db?.destroy();
      await database?.drop();
    });

    /** Each key read back: the row it names carries the label it was inserted with. */
    async function expectKeysMatch(
      table: string,
      primary: string,
      rows: readonly Row[],
      keys: readonly unknown[],
    ): Promise<void> {
      expect(keys).to.have.length(rows.length);
      const stored = await db(table)
        .whereIn(primary, keys as (string | number)[])
        .select<Row[]>(primary, 'label');
      const labelOf = new Map(stored.map((r) => [String(r[primary]), r['label']]));
      expect(keys.map((k) => labelOf.get(String(k)))).to.deep.equal(rows.map((r) => r['label']));
    }

    it('many rows without keys: few statements, the generated keys in row order', async () => {
      const rows = Array.from({ length: 1_200 }, (_, i) => ({ label: `generated ${i}` }));
      statements = 0;
      const keys = await db.transaction((trx) =>
        insertReturningKeys(trx, 'numbered', rows, 'id', { hasIncreasingKeys: true }),
      );
      // SQLite takes 500 rows a statement; the transaction adds BEGIN and COMMIT where counted.
      expect(statements).to.be.at.most(5);
      expect(new Set(keys.map(String)).size).to.equal(rows.length);
      await expectKeysMatch('numbered', 'id', rows, keys);
    });

    it('given and generated keys mixed, columns changing between rows', async () => {
      const rows: Row[] = [
        { label: 'first' },
        { id: 900_001, label: 'given high' },
        { label: 'second', note: 'with note' },
        { label: 'third', note: 'with note' },
        { id: 5_001, label: 'given low' },
        { label: 'fourth' },
        { label: 'fifth' },
      ];
      const keys = await insertReturningKeys(db, 'numbered', rows, 'id', { hasIncreasingKeys: true });
      expect(Number(keys[1])).to.equal(900_001);
      expect(Number(keys[4])).to.equal(5_001);
      await expectKeysMatch('numbered', 'id', rows, keys);
      const notes = await db('numbered')
        .whereIn('id', keys as number[])
        .orderBy('id')
        .select<Row[]>('label', 'note');
      expect(notes.find((r) => r['label'] === 'first')?.['note']).to.equal('none');
      expect(notes.find((r) => r['label'] === 'third')?.['note']).to.equal('with note');
    });

    it('given text keys are answered as given', async () => {
      const rows = [
        { code: 'b-2', label: 'two' },
        { code: 'a-1', label: 'one' },
      ];
      const keys = await insertReturningKeys(db, 'named', rows, 'code', { hasIncreasingKeys: false });
      expect(keys).to.deep.equal(['b-2', 'a-1']);
      await expectKeysMatch('named', 'code', rows, keys);
    });

    it('given text keys that differ only in case are each their own key', async () => {
      const rows = [
        { code: 'new1', label: 'lower' },
        { code: 'NEW1', label: 'upper' },
        { code: 'New1', label: 'mixed' },
      ];
      const keys = await insertReturningKeys(db, 'cased', rows, 'code', { hasIncreasingKeys: false });
      expect(keys).to.deep.equal(['new1', 'NEW1', 'New1']);
      await expectKeysMatch('cased', 'code', rows, keys);
    });

    it('a given uuid in capitals is answered as the database keeps it', async () => {
      const upper = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11';
      const rows = [
        { id: upper, label: 'upper' },
        { id: '6f1c0a52-1d3e-4b7a-9c55-0e2f4d8b9a10', label: 'lower' },
      ];
      const keys = await insertReturningKeys(db, 'identified', rows, 'id', { hasIncreasingKeys: false });
      // PostgreSQL's uuid type answers its canonical lower-case text; the others keep the text given.
      expect(keys[0]).to.equal(target.dialect === 'postgres' ? upper.toLowerCase() : upper);
      expect(keys[1]).to.equal(rows[1]?.id);
    });

    it('without increasing keys, rows lacking one get a statement each', async () => {
      const rows = [{ label: 'x' }, { label: 'y' }, { label: 'z' }];
      statements = 0;
      const keys = await insertReturningKeys(db, 'numbered', rows, 'id', { hasIncreasingKeys: false });
      expect(statements).to.equal(3);
      await expectKeysMatch('numbered', 'id', rows, keys);
    });

    it('a failing row fails its statement and nothing of it stays', async () => {
      const before = await db('numbered').count<Row[]>({ n: '*' });
      const rows = [{ label: 'fine' }, { label: null }];
      let failed = false;
      await insertReturningKeys(db, 'numbered', rows, 'id', { hasIncreasingKeys: true }).catch(() => {
        failed = true;
      });
      expect(failed).to.equal(true);
      expect(await db('numbered').count<Row[]>({ n: '*' })).to.deep.equal(before);
    });
  });
}
