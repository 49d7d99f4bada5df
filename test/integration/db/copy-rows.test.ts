import { expect } from 'chai';
import { copyRows } from '../../../src/db/copy-rows.js';
import { createDatabase, type Knex } from '../../../src/db/index.js';
import { testConfig } from '../../support/server.js';
import { DATABASE_TARGETS, requireOrSkip, type TestDatabase } from '../../support/services.js';

const postgres = DATABASE_TARGETS.find((target) => target.dialect === 'postgres');

/** PostgreSQL's COPY from a knex transaction (db/copy-rows.ts): lines made as COPY takes them. */
describe('copyRows [postgres]', function () {
  let database: TestDatabase | undefined;
  let db: Knex;

  before(async function () {
    if (postgres === undefined) throw new Error('no PostgreSQL target');
    requireOrSkip(this, await postgres.unavailable());
    database = await postgres.create();
    db = createDatabase(testConfig(database).db);
    await db.schema.createTable('copied', (t) => {
      t.integer('id').primary();
      t.text('label').notNullable();
    });
  });

  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  beforeEach(() => db('copied').delete());

  it('writes every line of a generator, pacing between chunks', async () => {
    const label = 'x'.repeat(1_000);
    let paces = 0;
    await db.transaction(async (trx) => {
      const lines = function* (): Generator<string> {
        for (let id = 1; id <= 500; id += 1) yield `${id}\t${label}`;
      };
      await copyRows(trx, 'copied', ['id', 'label'], lines(), () => {
        paces += 1;
        return Promise.resolve();
      });
    });
    expect(await db('copied').count({ n: '*' })).to.deep.equal([{ n: '500' }]);
    // About 500 KB of lines in chunks of some 32 KB: it paced between them.
    expect(paces).to.be.within(10, 20);
  });

  it('a generator that throws fails the COPY: nothing of it is kept and the transaction goes on past its savepoint', async () => {
    await db.transaction(async (trx) => {
      await trx.raw('savepoint before_copy');
      const lines = function* (): Generator<string> {
        for (let id = 1; id <= 5_000; id += 1) {
          if (id === 4_000) throw new Error('a value COPY text cannot carry');
          yield `${id}\tlabel ${id}`;
        }
      };
      const refusal = await copyRows(trx, 'copied', ['id', 'label'], lines()).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).to.be.instanceOf(Error).with.property('message', 'a value COPY text cannot carry');
      await trx.raw('rollback to savepoint before_copy');
      await trx('copied').insert({ id: 1, label: 'after' });
    });
    expect(await db('copied').select('id', 'label')).to.deep.equal([{ id: 1, label: 'after' }]);
  });
});
