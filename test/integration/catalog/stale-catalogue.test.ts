import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { TEST_ADMIN } from '../../support/server.js';
import { expectError, expectOk, schemaApi, serialKey } from './schema-api.js';

type Row = Record<string, unknown>;

/** What the catalogue holds about `collection`: its svc_fields names and svc_relations rows, sorted. */
async function catalogueOf(
  db: ReturnType<typeof import('knex').knex>,
  collection: string,
): Promise<{ fields: string[]; relations: Row[] }> {
  const fields = (await db('svc_fields').where({ collection }).select('field')).map((r: Row) => String(r['field']));
  const relations = (await db('svc_relations')
    .where({ many_collection: collection })
    .orWhere({ one_collection: collection })
    .select('many_collection', 'many_field', 'one_collection', 'one_field')) as Row[];
  // Sorted here: the dialects' collations order '_' apart.
  const key = (r: Row) => `${String(r['many_collection'])}.${String(r['many_field'])}`;
  return { fields: fields.sort(), relations: relations.sort((a, b) => (key(a) < key(b) ? -1 : 1)) };
}

/**
 * Catalogue rows left behind when a table is dropped outside the service (its svc_collections
 * row too, its svc_fields and svc_relations rows not): creating the collection again replaces
 * them in the same transaction, and no answer ever shows SQL.
 */
describeEachDatabase('schema routes: stale catalogue rows', (ctx) => {
  const api = schemaApi(ctx);

  /** ghosts (id, name, owner → svc_users, notes o2m ← ghost_notes.ghost), then ghosts dropped outside. */
  async function leaveGhost(): Promise<void> {
    const db = ctx().server.db;
    expectOk(
      await api('POST', '/collections', {
        collection: 'ghosts',
        schema: {},
        fields: [
          { field: 'name', type: 'string' },
          { field: 'owner', type: 'uuid', meta: { special: ['m2o'] } },
        ],
      }),
    );
    expectOk(
      await api('POST', '/relations', { collection: 'ghosts', field: 'owner', related_collection: 'svc_users' }),
    );
    expectOk(
      await api('POST', '/collections', {
        collection: 'ghost_notes',
        schema: {},
        fields: [{ field: 'ghost', type: 'integer' }],
      }),
    );
    expectOk(
      await api('POST', '/relations', {
        collection: 'ghost_notes',
        field: 'ghost',
        related_collection: 'ghosts',
        meta: { one_field: 'notes' },
      }),
    );
    // Outside the service: the foreign key into ghosts, the table and its svc_collections row go.
    expectOk(await api('DELETE', '/relations/ghost_notes/ghost'), 204);
    await db('svc_relations').insert({
      many_collection: 'ghost_notes',
      many_field: 'ghost',
      one_collection: 'ghosts',
      one_field: 'notes',
    });
    await db('svc_fields').insert({ collection: 'ghosts', field: 'notes', special: 'o2m' });
    await db.schema.dropTable('ghosts');
    await db('svc_collections').where({ collection: 'ghosts' }).delete();
    await ctx().server.schema.invalidate();
    const stale = await catalogueOf(db, 'ghosts');
    expect(stale.fields).to.deep.equal(['id', 'name', 'notes', 'owner']);
    expect(stale.relations.map((r) => r['many_collection'])).to.deep.equal(['ghost_notes', 'ghosts']);
  }

  it('POST /collections of a name with stale svc_fields and svc_relations rows replaces them', async () => {
    await leaveGhost();
    const created = expectOk(
      await api('POST', '/collections', {
        collection: 'ghosts',
        schema: {},
        fields: [{ field: 'title', type: 'string' }],
      }),
    );
    expect(created.collection).to.equal('ghosts');
    const db = ctx().server.db;
    const now = await catalogueOf(db, 'ghosts');
    expect(now.fields).to.deep.equal(['id', 'title']);
    // Its own relation went with its field; another collection's m2o into it stays, without the gone alias.
    expect(now.relations).to.deep.equal([
      { many_collection: 'ghost_notes', many_field: 'ghost', one_collection: 'ghosts', one_field: null },
    ]);
    const fields = (expectOk(await api('GET', '/fields/ghosts')) as Row[]).map((f) => f['field']);
    expect(fields).to.have.members(['id', 'title']);
    expectOk(await api('POST', '/items/ghosts', { title: 'boo' }));
    expect(await db('ghosts').select('title')).to.deep.equal([{ title: 'boo' }]);
  });

  it('POST /fields where a stale svc_fields row names a column dropped outside replaces the row', async () => {
    const db = ctx().server.db;
    expectOk(await api('POST', '/fields/ghosts', { field: 'mood', type: 'string', meta: { note: 'old' } }));
    await db.schema.alterTable('ghosts', (t) => t.dropColumn('mood'));
    await ctx().server.schema.invalidate();
    const field = expectOk(
      await api('POST', '/fields/ghosts', { field: 'mood', type: 'integer', meta: { note: 'new' } }),
    );
    expect(field).to.deep.include({ field: 'mood', type: 'integer' });
    const rows = (await db('svc_fields').where({ collection: 'ghosts', field: 'mood' }).select('note')) as Row[];
    expect(rows).to.deep.equal([{ note: 'new' }]);
  });

  it('a database failure never shows SQL, not even to admins', async () => {
    const db = ctx().server.db;
    // A check the service does not know of, made outside it: the insert fails in the database.
    await db.raw(
      `create table haunts (id ${serialKey(ctx().dialect)}, lucky integer, constraint haunts_lucky_check check (lucky < 100))`,
    );
    await ctx().server.schema.invalidate();
    for (const token of [TEST_ADMIN.token, null]) {
      const res = await api('POST', '/items/haunts', { lucky: 500 }, token);
      if (token === null) {
        expectError(res, 403, 'FORBIDDEN');
        continue;
      }
      expect(JSON.stringify(res.body)).not.to.match(/insert into|haunts_lucky_check|values \(|lucky < 100/i);
      const requestId = (res.body as { errors: { extensions: { request_id?: unknown } }[] }).errors[0]?.extensions
        .request_id;
      expect(requestId).to.be.a('string');
      expect(res.body).to.deep.equal({
        errors: [
          {
            message: 'An unexpected error occurred.',
            extensions: { code: 'INTERNAL_SERVER_ERROR', request_id: requestId },
          },
        ],
      });
      expect(res.status).to.equal(500);
    }
    const [count] = (await db('haunts').count({ n: '*' })) as { n: unknown }[];
    expect(Number(count?.n)).to.equal(0);
  });
});
