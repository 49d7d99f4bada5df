import { expect } from 'chai';
import { runSchemaChange } from '../../../catalog/ddl/schema-change.js';
import { describeEachDatabase } from '../../support/server.js';

// reference: no half-done schema change. PostgreSQL and SQLite roll DDL back; MySQL undoes it.
describeEachDatabase('runSchemaChange', (ctx) => {
  it('undoes every step when a later one fails', async () => {
    const { db } = ctx().server;
    await db.schema.createTable('change_base', (t) => {
      t.increments('id');
    });
    let failure: unknown;
    try {
      await runSchemaChange(db, async (change) => {
        await change.ddl(
          (x) =>
            x.schema.createTable('change_new', (t) => {
              t.increments('id');
            }),
          (x) => x.schema.dropTableIfExists('change_new'),
        );
        await change.ddl(
          (x) =>
            x.schema.alterTable('change_base', (t) => {
              t.string('extra');
            }),
          (x) =>
            x.schema.alterTable('change_base', (t) => {
              t.dropColumn('extra');
            }),
        );
        await change.data((trx) => trx('svc_collections').insert({ collection: 'change_new' }));
        throw new Error('late failure');
      });
    } catch (error) {
      failure = error;
    }
    expect((failure as Error).message).to.equal('late failure');
    expect(await db.schema.hasTable('change_new')).to.equal(false);
    expect(await db.schema.hasColumn('change_base', 'extra')).to.equal(false);
    expect(await db('svc_collections').where({ collection: 'change_new' })).to.deep.equal([]);
  });

  it('commits DDL and metadata together when nothing fails', async () => {
    const { db } = ctx().server;
    const result = await runSchemaChange(db, async (change) => {
      await change.ddl((x) =>
        x.schema.createTable('change_kept', (t) => {
          t.increments('id');
        }),
      );
      await change.data((trx) => trx('svc_collections').insert({ collection: 'change_kept' }));
      return 'done';
    });
    expect(result).to.equal('done');
    expect(await db.schema.hasTable('change_kept')).to.equal(true);
    expect(await db('svc_collections').where({ collection: 'change_kept' })).to.have.length(1);
    // SQLite's foreign keys are back on after the change.
    if (ctx().dialect === 'sqlite') expect(await db.raw('PRAGMA foreign_keys')).to.deep.equal([{ foreign_keys: 1 }]);
  });
});
