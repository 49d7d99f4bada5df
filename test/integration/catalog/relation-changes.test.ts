import { expect } from 'chai';
import pg from 'pg';
import { describeEachDatabase } from '../../support/server.js';
import { postgresTarget } from '../../support/services.js';
import { expectError, expectOk, insertRow, schemaApi, type ApiResult } from './schema-api.js';

const id = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };

/** What SQLite's check before commit says, and now every database. */
const DANGLING = /The change leaves rows of "imp" referring to missing rows of "tags"/;

/** A refusal that shows no statement, constraint name or driver words. */
function expectCleanRefusal(result: ApiResult): void {
  expectError(result, 400, 'INVALID_PAYLOAD', DANGLING);
  expect(result.body.errors[0].message).not.to.match(/alter table|add constraint|violates|foreign key constraint|`/i);
}

/**
 * A foreign key the stored rows break (a value naming no row of the related collection) is
 * refused with the same words on every database, through POST and PATCH /relations and
 * /schema/apply: PostgreSQL and MariaDB quoted their ALTER TABLE and the driver's message. A
 * schema apply that moves a relation to another collection checks the rows before it drops
 * the old foreign key: SQLite and MariaDB, which keep the steps done before a failure, had
 * dropped the relation and then failed to make the new one.
 */
describeEachDatabase('relation changes the stored rows refuse', (ctx) => {
  const api = schemaApi(ctx);

  before(async () => {
    expectOk(
      await api('POST', '/collections', [
        { collection: 'authors', schema: {}, fields: [id, { field: 'name', type: 'string' }] },
        { collection: 'tags', schema: {}, fields: [id, { field: 'name', type: 'string' }] },
        { collection: 'imp', schema: {}, fields: [id, { field: 'au', type: 'integer' }] },
      ]),
    );
    for (const name of ['a', 'b', 'c']) await insertRow(ctx, 'authors', { name });
    await insertRow(ctx, 'tags', { name: 'only' });
    expectOk(await api('POST', '/relations', { collection: 'imp', field: 'au', related_collection: 'authors' }));
    // Author 3 has no tag 3.
    await insertRow(ctx, 'imp', { au: 3 });
  });

  it('POST /relations: the same words on every database, nothing left behind', async () => {
    expectOk(await api('POST', '/fields/imp', { field: 'tag', type: 'integer' }));
    await ctx().server.db('imp').update({ tag: 3 });
    const result = await api('POST', '/relations', { collection: 'imp', field: 'tag', related_collection: 'tags' });
    expectCleanRefusal(result);
    expectError(await api('GET', '/relations/imp/tag'), 403, 'FORBIDDEN');
    expect(expectOk(await api('GET', '/fields/imp/tag')).schema.foreign_key_table).to.equal(null);
  });

  it('PATCH /relations: a new on_delete over rows written while the key was missing', async () => {
    // A relation stored without its foreign key (made outside the service, or its key dropped).
    await ctx()
      .server.db('svc_relations')
      .insert({ many_collection: 'imp', many_field: 'tag', one_collection: 'tags' });
    await ctx().server.schema.invalidate();
    const result = await api('PATCH', '/relations/imp/tag', { schema: { on_delete: 'CASCADE' } });
    expectCleanRefusal(result);
    expect(expectOk(await api('GET', '/relations/imp/tag')).schema).to.equal(null);
    await ctx().server.db('svc_relations').where({ many_collection: 'imp', many_field: 'tag' }).delete();
    await ctx().server.schema.invalidate();
  });

  it('/schema/apply: another related collection the rows refuse is refused before the old relation goes', async () => {
    const snapshot = expectOk(await api('GET', '/schema/snapshot'));
    const relation = snapshot.relations.find((r: any) => r.collection === 'imp' && r.field === 'au');
    relation.related_collection = 'tags';
    relation.schema.foreign_key_table = 'tags';
    relation.meta.one_collection = 'tags';
    const plan = expectOk(await api('POST', '/schema/diff', snapshot));
    const result = await api('POST', '/schema/apply', plan);
    expectCleanRefusal(result);
    expect(result.body.errors[0].message).to.match(/stopped at step 1 of 2 \(delete relation "imp.au"\)/);
    const kept = expectOk(await api('GET', '/relations/imp/au'));
    expect(kept.related_collection).to.equal('authors');
    expect(kept.schema).to.include({ foreign_key_table: 'authors' });
    expect(expectOk(await api('GET', '/fields/imp/au')).schema.foreign_key_table).to.equal('authors');

    // Once the rows hold the new key, the same plan applies.
    await ctx().server.db('imp').update({ au: 1 });
    expectOk(await api('POST', '/schema/apply', plan), 204);
    expect(expectOk(await api('GET', '/relations/imp/au')).related_collection).to.equal('tags');
  });
});

// pg warns (once per process) when a query is sent on a connection still running one: the
// overview built inside a schema apply's transaction did so. Only pg queues queries so.
describeEachDatabase(
  'a schema apply on PostgreSQL',
  (ctx) => {
    const api = schemaApi(ctx);

    it("a schema apply queues no query on its transaction's busy connection", async () => {
      // What pg checks before it warns "Calling client.query() when the client is already
      // executing a query" (once per process, so counted here rather than listened for).
      type Client = { _queryQueue?: unknown[]; pipeline?: boolean; query: (...args: unknown[]) => unknown };
      const prototype = pg.Client.prototype as unknown as Client;
      const query = prototype.query;
      let queued = 0;
      prototype.query = function (this: Client, ...args: unknown[]) {
        if ((this._queryQueue?.length ?? 0) > 0 && this.pipeline !== true) queued += 1;
        return query.apply(this, args);
      };
      try {
        const snapshot = expectOk(await api('GET', '/schema/snapshot'));
        snapshot.collections.push({ collection: 'shelves', meta: null, schema: { name: 'shelves' } });
        snapshot.fields.push({ ...id, collection: 'shelves', meta: null });
        snapshot.fields.push({ collection: 'shelves', field: 'label', type: 'string', meta: null, schema: {} });
        const plan = expectOk(await api('POST', '/schema/diff', snapshot));
        expectOk(await api('POST', '/schema/apply', plan), 204);
        expect(await ctx().server.db.schema.hasTable('shelves')).to.equal(true);
      } finally {
        prototype.query = query;
      }
      expect(queued).to.equal(0);
    });
  },
  { targets: [postgresTarget] },
);
