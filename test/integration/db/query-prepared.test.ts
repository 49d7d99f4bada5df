import { expect } from 'chai';
import { createDatabase, queryPrepared, type Knex } from '../../../src/db/index.js';
import { testConfig } from '../../support/server.js';
import { DATABASE_TARGETS, requireOrSkip, type TestDatabase } from '../../support/services.js';

for (const target of DATABASE_TARGETS.filter((t) => t.dialect === 'postgres')) {
  describe(`queryPrepared [${target.dialect}]`, function () {
    let database: TestDatabase | undefined;
    let db: Knex;

    before(async function () {
      requireOrSkip(this, await target.unavailable());
      database = await target.create();
      db = createDatabase(testConfig(database).db);
    });

    after(async () => {
      await db?.destroy();
      await database?.drop();
    });

    /** The texts the transaction's one connection has prepared by name that contain `part`. */
    const preparedOn = async (trx: Knex.Transaction, part: string) =>
      (await trx.raw<{ rows: { statement: string }[] }>('select statement from pg_prepared_statements')).rows
        .map((row) => row.statement)
        .filter((statement) => statement.includes(part));

    it('prepares a text once by name, numbered $1..., and binds each run its own values', async () => {
      await db.transaction(async (trx) => {
        const sql = 'select cast(? as integer) + cast(? as integer) as "sum", cast(? as text) as "label"';
        const first = await queryPrepared(trx, sql, [1, 2, 'one']);
        const second = await queryPrepared(trx, sql, [40, 2, 'two']);
        expect(first.rows).to.deep.equal([{ sum: 3, label: 'one' }]);
        expect(second.rows).to.deep.equal([{ sum: 42, label: 'two' }]);
        expect(await preparedOn(trx, '"sum"')).to.deep.equal([
          'select cast($1 as integer) + cast($2 as integer) as "sum", cast($3 as text) as "label"',
        ]);
      });
    });

    it("runs a text whose escaped \\? is PostgreSQL's own operator unnamed, its placeholders right", async () => {
      await db.transaction(async (trx) => {
        const sql = 'select cast(? as jsonb) \\? cast(? as text) as "has"';
        expect((await queryPrepared(trx, sql, ['{"a": 1}', 'a'])).rows).to.deep.equal([{ has: true }]);
        expect((await queryPrepared(trx, sql, ['{"a": 1}', 'b'])).rows).to.deep.equal([{ has: false }]);
        expect(await preparedOn(trx, '"has"')).to.deep.equal([]);
      });
    });
  });
}
