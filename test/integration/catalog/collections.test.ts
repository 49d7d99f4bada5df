import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { EVERY_TYPE_FIELDS, expectError, expectOk, insertRow, schemaApi } from './schema-api.js';

describeEachDatabase('schema routes: collections', (ctx) => {
  const api = schemaApi(ctx);

  it('creates a collection with a field of every type and reads each type back', async () => {
    const created = expectOk(
      await api('POST', '/collections', {
        collection: 'every_type',
        meta: { icon: 'box', note: 'all types' },
        schema: {},
        fields: EVERY_TYPE_FIELDS,
      }),
    );
    expect(created.collection).to.equal('every_type');
    expect(created.meta).to.include({ icon: 'box', note: 'all types', singleton: false, accountability: 'all' });
    expect(created.schema).to.deep.equal({ name: 'every_type', comment: null });

    const fields: any[] = expectOk(await api('GET', '/fields/every_type'));
    const byName = Object.fromEntries(fields.map((f) => [f.field, f]));
    for (const given of EVERY_TYPE_FIELDS) {
      expect(byName[given.field]?.type, given.field).to.equal(given.type);
      expect(byName[given.field]?.collection).to.equal('every_type');
    }
    expect(byName['id'].schema).to.include({ is_primary_key: true, has_auto_increment: true, is_nullable: false });
    expect(byName['s'].schema).to.include({
      max_length: 40,
      is_nullable: false,
      default_value: 'hello',
      is_unique: true,
      table: 'every_type',
    });
    expect(byName['de'].schema).to.include({ numeric_precision: 12, numeric_scale: 3 });
    expect(byName['bo'].schema.default_value).to.equal(true);
    expect(byName['i'].schema.default_value).to.equal(7);
    expect(byName['ts'].schema.default_value).to.equal('CURRENT_TIMESTAMP');
    expect(byName['ha'].meta.special).to.include('hash');
    expect(byName['cs'].meta.special).to.include('cast-csv');
    expect(byName['divider']).to.include({ schema: null });
    expect(byName['divider'].meta).to.include({ interface: 'presentation-divider' });

    // The table really is there and takes rows with the defaults filled in.
    const { db } = ctx().server;
    await db('every_type').insert({ tx: 'row' });
    const row = await db('every_type').first('s', 'i');
    expect(row).to.deep.include({ s: 'hello', i: 7 });
    expect(await db('svc_collections').where({ collection: 'every_type' }).first('note')).to.deep.equal({
      note: 'all types',
    });
    expect(await db('svc_fields').where({ collection: 'every_type' }).count({ n: '*' }).first()).to.satisfy(
      (r: { n: unknown }) => Number(r.n) === EVERY_TYPE_FIELDS.length,
    );
  });

  it('adds an integer auto-increment id when no field is the primary key', async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'no_key_given',
        schema: {},
        fields: [{ field: 'title', type: 'string' }],
      }),
    );
    const id = expectOk(await api('GET', '/fields/no_key_given/id'));
    expect(id.type).to.equal('integer');
    expect(id.schema).to.include({ is_primary_key: true, has_auto_increment: true });
    expect(id.meta).to.include({ hidden: true, readonly: true });
    expect(await insertRow(ctx, 'no_key_given', { title: 'a' })).to.equal(1);
  });

  it('creates big integer, uuid and string primary keys', async () => {
    const created = expectOk(
      await api('POST', '/collections', [
        {
          collection: 'big_keys',
          schema: {},
          fields: [{ field: 'id', type: 'bigInteger', schema: { is_primary_key: true, has_auto_increment: true } }],
        },
        {
          collection: 'uuid_keys',
          schema: {},
          fields: [
            { field: 'id', type: 'uuid', schema: { is_primary_key: true } },
            { field: 'name', type: 'string' },
          ],
        },
        {
          collection: 'string_keys',
          schema: {},
          fields: [{ field: 'code', type: 'string', schema: { is_primary_key: true, max_length: 20 } }],
        },
      ]),
    );
    expect(created.map((c: { collection: string }) => c.collection)).to.deep.equal([
      'big_keys',
      'uuid_keys',
      'string_keys',
    ]);

    const big = expectOk(await api('GET', '/fields/big_keys/id'));
    // SQLite's auto-increment key is the 64-bit rowid, declared INTEGER.
    expect(big.type).to.equal(ctx().dialect === 'sqlite' ? 'integer' : 'bigInteger');
    expect(big.schema).to.include({ is_primary_key: true, has_auto_increment: true });

    const uuid = expectOk(await api('GET', '/fields/uuid_keys/id'));
    expect(uuid.type).to.equal('uuid');
    expect(uuid.meta.special).to.include('uuid');
    expect(uuid.schema).to.include({ is_primary_key: true, has_auto_increment: false });

    const code = expectOk(await api('GET', '/fields/string_keys/code'));
    expect(code).to.deep.include({ type: 'string' });
    expect(code.schema).to.include({ is_primary_key: true, max_length: 20, has_auto_increment: false });
    const overview = await ctx().server.schema.getOverview();
    expect(overview.collections['string_keys']?.primary).to.equal('code');
  });

  it('creates a singleton, and a folder without a table', async () => {
    const home = expectOk(
      await api('POST', '/collections', {
        collection: 'home',
        meta: { singleton: true },
        schema: {},
        fields: [{ field: 'headline', type: 'string', schema: { default_value: 'Hello' } }],
      }),
    );
    expect(home.meta.singleton).to.equal(true);
    expect((await ctx().server.schema.getOverview()).collections['home']?.singleton).to.equal(true);

    const folder = expectOk(await api('POST', '/collections', { collection: 'website', meta: { icon: 'folder' } }));
    expect(folder).to.deep.include({ collection: 'website', schema: null });
    expect(await ctx().server.db.schema.hasTable('website')).to.equal(false);
    expectOk(await api('PATCH', '/collections/home', { meta: { group: 'website' } }));
    const listed: any[] = expectOk(await api('GET', '/collections'));
    expect(listed.find((c) => c.collection === 'website')).to.deep.include({ schema: null });
    expect(listed.find((c) => c.collection === 'home').meta.group).to.equal('website');

    expectOk(await api('DELETE', '/collections/website'), 204);
    expect(expectOk(await api('GET', '/collections/home')).meta.group).to.equal(null);
    expectError(await api('GET', '/collections/website'), 403, 'FORBIDDEN');
  });

  it('updates only meta, one or several collections, and checks the sort field', async () => {
    const updated = expectOk(
      await api('PATCH', '/collections/every_type', { meta: { note: 'changed', sort_field: 'i' } }),
    );
    expect(updated.meta).to.include({ note: 'changed', sort_field: 'i', icon: 'box' });
    expect((await ctx().server.schema.getOverview()).collections['every_type']?.sortField).to.equal('i');

    expectError(
      await api('PATCH', '/collections/every_type', { meta: { sort_field: 'nope' } }),
      400,
      'INVALID_PAYLOAD',
      /field "nope" doesn't exist in collection "every_type"/,
    );
    const many: any[] = expectOk(
      await api('PATCH', '/collections', [
        { collection: 'big_keys', meta: { note: 'big' } },
        { collection: 'uuid_keys', meta: { hidden: true } },
      ]),
    );
    expect(many.map((c) => [c.collection, c.meta.note, c.meta.hidden])).to.deep.equal([
      ['big_keys', 'big', false],
      ['uuid_keys', null, true],
    ]);
    expectError(
      await api('PATCH', '/collections/every_type', { note: 'no meta' }),
      400,
      'INVALID_PAYLOAD',
      /"meta" is required/,
    );
  });

  it('lists the system collections with meta.system, and reads directus_ names as svc_', async () => {
    const listed: any[] = expectOk(await api('GET', '/collections'));
    const users = listed.find((c) => c.collection === 'svc_users');
    expect(users.meta).to.include({ system: true, singleton: false });
    expect(listed.find((c) => c.collection === 'svc_settings').meta.singleton).to.equal(true);
    expect(listed.some((c) => ['svc_sessions', 'svc_migrations', 'svc_idempotency'].includes(c.collection))).to.equal(
      false,
    );
    expect(expectOk(await api('GET', '/collections/directus_users')).collection).to.equal('svc_users');
    const searched: any[] = expectOk(await api('SEARCH', '/collections'));
    expect(searched.length).to.equal(listed.length);
  });

  it('refuses bad names, duplicates, unknown types and two primary keys, naming the problem', async () => {
    const cases: [unknown, RegExp][] = [
      [{ collection: 'bad-name', schema: {} }, /Collection name "bad-name" is not an identifier/],
      [{ collection: '1abc', schema: {} }, /Collection name "1abc" is not an identifier/],
      [{ collection: 'svc_mine', schema: {} }, /Collections can't start with "svc_"/],
      [{ collection: 'directus_mine', schema: {} }, /Collections can't start with "svc_"/],
      [{ collection: 'x'.repeat(64), schema: {} }, /is longer than 63 characters/],
      [{ schema: {} }, /"collection" is required/],
      [{ collection: 'every_type', schema: {} }, /Collection "every_type" already exists/],
      [
        { collection: 'money', schema: {}, fields: [{ field: 'price', type: 'money' }] },
        /Field "price" has an unknown type "money"/,
      ],
      [
        { collection: 'spaced', schema: {}, fields: [{ field: 'my field', type: 'string' }] },
        /Field in collection "spaced" name "my field" is not an identifier/,
      ],
      [
        {
          collection: 'twice',
          schema: {},
          fields: [
            { field: 'a', type: 'string' },
            { field: 'a', type: 'text' },
          ],
        },
        /Field "a" is given twice/,
      ],
      [
        {
          collection: 'two_keys',
          schema: {},
          fields: [
            { field: 'a', type: 'integer', schema: { is_primary_key: true } },
            { field: 'b', type: 'integer', schema: { is_primary_key: true } },
          ],
        },
        /only one primary key/,
      ],
      [
        {
          collection: 'json_key',
          schema: {},
          fields: [{ field: 'k', type: 'json', schema: { is_primary_key: true } }],
        },
        /must be of type integer, bigInteger, uuid or string/,
      ],
    ];
    for (const [body, message] of cases) {
      expectError(await api('POST', '/collections', body), 400, 'INVALID_PAYLOAD', message);
    }
    // Nothing of the refused requests was created.
    const names = (expectOk(await api('GET', '/collections')) as { collection: string }[]).map((c) => c.collection);
    expect(names).not.to.include.members(['money', 'spaced', 'twice', 'two_keys', 'json_key']);
  });

  it('keeps schema writes for admins and schema reads for readers', async () => {
    expectError(await api('POST', '/collections', { collection: 'sneaky', schema: {} }, null), 403, 'FORBIDDEN');
    expectError(await api('PATCH', '/collections/every_type', { meta: { note: 'x' } }, null), 403, 'FORBIDDEN');
    expectError(await api('DELETE', '/collections/every_type', undefined, null), 403, 'FORBIDDEN');
    // Directus 10: without read permission on svc_collections (the public role has none), 403.
    expectError(await api('GET', '/collections', undefined, null), 403, 'FORBIDDEN');
    expectError(await api('GET', '/collections/every_type', undefined, null), 403, 'FORBIDDEN');
    expectError(await api('GET', '/collections/no_such_thing'), 403, 'FORBIDDEN');
    expectError(await api('DELETE', '/collections/no_such_thing'), 403, 'FORBIDDEN');
  });

  it('refuses to alter or delete system collections with 422', async () => {
    expectError(
      await api('PATCH', '/collections/svc_users', { meta: { note: 'x' } }),
      422,
      'UNPROCESSABLE_ENTITY',
      /System collection "svc_users"/,
    );
    expectError(await api('DELETE', '/collections/svc_users'), 422, 'UNPROCESSABLE_ENTITY');
    expectError(await api('DELETE', '/collections/directus_roles'), 422, 'UNPROCESSABLE_ENTITY');
    expect(await ctx().server.db.schema.hasTable('svc_users')).to.equal(true);
  });

  it('deletes a collection with its table, metadata, relations pointing at it and its activity', async () => {
    const { db } = ctx().server;
    expectOk(
      await api('POST', '/collections', {
        collection: 'doomed',
        schema: {},
        fields: [{ field: 'name', type: 'string' }],
      }),
    );
    expectOk(
      await api('POST', '/collections', {
        collection: 'doomed_child',
        schema: {},
        fields: [{ field: 'parent', type: 'integer' }],
      }),
    );
    expectOk(
      await api('POST', '/relations', {
        collection: 'doomed_child',
        field: 'parent',
        related_collection: 'doomed',
        meta: { one_field: 'children' },
      }),
    );
    const id = await insertRow(ctx, 'doomed', { name: 'p' });
    await db('doomed_child').insert({ parent: id });
    await db('svc_activity').insert({ action: 'create', collection: 'doomed', item: String(id) });
    // A nested write's revision in another collection, whose parent is a revision of 'doomed'.
    const [activity] = await db('svc_activity').where({ collection: 'doomed' }).pluck('id');
    await db('svc_revisions').insert({ activity, collection: 'doomed', item: String(id) });
    const [parent] = await db('svc_revisions').where({ collection: 'doomed' }).pluck('id');
    await db('svc_activity').insert({ action: 'create', collection: 'doomed_child', item: '1' });
    const [childActivity] = await db('svc_activity').where({ collection: 'doomed_child' }).pluck('id');
    await db('svc_revisions').insert({ activity: childActivity, collection: 'doomed_child', item: '1', parent });

    expectOk(await api('DELETE', '/collections/doomed'), 204);
    expectError(await api('GET', '/collections/doomed'), 403, 'FORBIDDEN');
    expect(await db.schema.hasTable('doomed')).to.equal(false);
    expect(await db('svc_fields').where({ collection: 'doomed' })).to.deep.equal([]);
    expect(await db('svc_relations').where({ one_collection: 'doomed' })).to.deep.equal([]);
    expect(await db('svc_activity').where({ collection: 'doomed' })).to.deep.equal([]);
    expect(await db('svc_revisions').where({ collection: 'doomed_child' }).pluck('parent')).to.deep.equal([null]);
    // The child keeps its column and its row; only the relation is gone.
    expect(await db('doomed_child').count({ n: '*' }).first()).to.satisfy((r: { n: unknown }) => Number(r.n) === 1);
    expect(expectOk(await api('GET', '/relations/doomed_child'))).to.deep.equal([]);
    expect(expectOk(await api('GET', '/fields/doomed_child/parent')).type).to.equal('integer');
  });
});
