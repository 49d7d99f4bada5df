import { expect } from 'chai';
import { startServer, type RunningServer } from '../../../src/server.js';
import { createLogger } from '../../../src/logger/index.js';
import { describeEachDatabase, TEST_ADMIN, testConfig, type ServerContext } from '../../support/server.js';
import {
  DATABASE_TARGETS,
  requireOrSkip,
  type DatabaseTarget,
  type DialectName,
  type TestDatabase,
} from '../../support/services.js';
import { expectError, expectOk, schemaApi, type ApiResult } from './schema-api.js';

/** A second server on a fresh database of `dialect`, for the other end of a promotion. */
interface Environment {
  readonly server: RunningServer;
  readonly database: TestDatabase;
  api(method: string, path: string, body?: unknown, token?: string | null): Promise<ApiResult>;
  close(): Promise<void>;
}

async function openEnvironment(target: DatabaseTarget): Promise<Environment> {
  const database = await target.create();
  const server = await startServer(testConfig(database), {
    logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
  });
  const context: ServerContext = {
    dialect: target.dialect,
    database,
    server,
    env: {},
    api: (path, init) => fetch(server.url + path, init),
  };
  return {
    server,
    database,
    api: schemaApi(() => context),
    async close() {
      await server.close();
      await database.drop();
    },
  };
}

const targetOf = (dialect: DialectName): DatabaseTarget => {
  const found = DATABASE_TARGETS.find((t) => t.dialect === dialect);
  if (found === undefined) throw new Error(`no target ${dialect}`);
  return found;
};

type Api = Environment['api'];

const id = {
  field: 'id',
  type: 'integer',
  meta: { hidden: true },
  schema: { is_primary_key: true, has_auto_increment: true },
};

/** A schema using every creatable kind of column, a folder, keys, an m2o with its o2m alias. */
async function buildFixture(api: Api): Promise<void> {
  expectOk(
    await api('POST', '/collections', [
      { collection: 'content', meta: { icon: 'folder', note: 'grouping' }, schema: null },
      {
        collection: 'authors',
        meta: { icon: 'person', note: 'who writes', group: 'content', sort: 1 },
        schema: {},
        fields: [
          id,
          {
            field: 'name',
            type: 'string',
            meta: { required: true, sort: 2 },
            schema: { max_length: 120, is_nullable: false, is_unique: true },
          },
          { field: 'bio', type: 'text', meta: { interface: 'input-multiline' } },
          { field: 'born', type: 'date' },
          { field: 'active', type: 'boolean', schema: { default_value: true } },
        ],
      },
      {
        collection: 'articles',
        meta: { sort_field: 'rank', accountability: 'activity' },
        schema: {},
        fields: [
          { field: 'uid', type: 'uuid', schema: { is_primary_key: true } },
          { field: 'title', type: 'string', schema: { max_length: 200, default_value: 'untitled' } },
          { field: 'rank', type: 'integer', schema: { is_indexed: true } },
          { field: 'views', type: 'bigInteger', schema: { default_value: 0 } },
          { field: 'score', type: 'float' },
          { field: 'price', type: 'decimal', schema: { numeric_precision: 10, numeric_scale: 2 } },
          { field: 'published_at', type: 'dateTime' },
          { field: 'stamped', type: 'timestamp' },
          { field: 'starts', type: 'time' },
          { field: 'data', type: 'json' },
          { field: 'tags', type: 'csv' },
          { field: 'secret', type: 'hash' },
          { field: 'author', type: 'integer', meta: { interface: 'select-dropdown-m2o', special: ['m2o'] } },
          {
            field: 'divider',
            type: 'alias',
            meta: { interface: 'presentation-divider', special: ['alias', 'no-data'] },
          },
        ],
      },
    ]),
  );
  expectOk(
    await api('POST', '/relations', {
      collection: 'articles',
      field: 'author',
      related_collection: 'authors',
      meta: { one_field: 'articles' },
      schema: { on_delete: 'CASCADE' },
    }),
  );
}

async function snapshotOf(api: Api): Promise<any> {
  return expectOk(await api('GET', '/schema/snapshot'));
}

/** The schema part of a snapshot: what must survive a promotion. */
function schemaPart(snapshot: any): unknown {
  const { collections, fields, relations } = snapshot;
  return { collections, fields, relations };
}

async function promote(from: Api, to: Api, options: { force?: boolean } = {}): Promise<void> {
  const snapshot = await snapshotOf(from);
  const diff = await to('POST', `/schema/diff${options.force === true ? '?force=true' : ''}`, snapshot);
  const plan = expectOk(diff);
  expectOk(await to('POST', '/schema/apply', plan), 204);
}

describeEachDatabase('schema promotion: snapshot, diff, apply', (ctx) => {
  const api = schemaApi(ctx);
  let other: Environment | undefined;
  const target = () => {
    if (other === undefined) throw new Error('no target environment');
    return other;
  };

  before(async () => {
    await buildFixture(api);
    other = await openEnvironment(targetOf(ctx().dialect));
  });
  after(async () => {
    await other?.close();
  });

  it('snapshots the user schema in the Directus format, without system collections', async () => {
    const snapshot = await snapshotOf(api);
    expect(snapshot.version).to.equal(1);
    expect(snapshot.vendor).to.equal({ sqlite: 'sqlite', postgres: 'postgres', mariadb: 'mysql' }[ctx().dialect]);
    expect(snapshot.hash).to.match(/^[0-9a-f]{64}$/);
    expect(snapshot.collections.map((c: any) => c.collection)).to.deep.equal(['articles', 'authors', 'content']);
    expect(snapshot.collections.find((c: any) => c.collection === 'content').schema).to.equal(null);
    const name = snapshot.fields.find((f: any) => f.collection === 'authors' && f.field === 'name');
    expect(name.schema).to.include({ max_length: 120, is_nullable: false, is_unique: true });
    expect(name.schema).to.not.have.property('data_type');
    expect(name.meta).to.not.have.property('id');
    expect(snapshot.relations).to.have.length(1);
    expect(snapshot.relations[0]).to.deep.include({
      collection: 'articles',
      field: 'author',
      related_collection: 'authors',
    });
    expect(snapshot.relations[0].schema.on_delete).to.equal('CASCADE');
  });

  it('exports the snapshot as a JSON or YAML download', async () => {
    const headers = { Authorization: `Bearer ${TEST_ADMIN.token}` };
    const yaml = await ctx().api('/schema/snapshot?export=yaml', { headers });
    expect(yaml.status).to.equal(200);
    expect(yaml.headers.get('content-disposition')).to.match(/^attachment; filename="snapshot-.*\.yaml"/);
    const text = await yaml.text();
    expect(text).to.match(/^version: 1\n/);
    expect(text).to.contain('collection: authors');
    const json = await ctx().api('/schema/snapshot?export=json', { headers });
    expect(json.headers.get('content-disposition')).to.match(/\.json"/);
    expect(schemaPart(await json.json())).to.deep.equal(schemaPart(await snapshotOf(api)));
    expectError(await api('GET', '/schema/snapshot?export=xml'), 400, 'INVALID_QUERY');
  });

  it('is for admins only', async () => {
    expectError(await api('GET', '/schema/snapshot', undefined, null), 403, 'FORBIDDEN');
    expectError(await api('POST', '/schema/diff', await snapshotOf(api), null), 403, 'FORBIDDEN');
    expectError(await api('POST', '/schema/apply', { hash: 'x', diff: {} }, null), 403, 'FORBIDDEN');
  });

  it('applied to an empty database, reproduces the snapshot; a second diff is empty', async () => {
    const source = await snapshotOf(api);
    await promote(api, target().api);
    const promoted = await snapshotOf(target().api);
    expect(schemaPart(promoted)).to.deep.equal(schemaPart(source));
    expect(promoted.hash).to.equal(source.hash);
    const second = await target().api('POST', '/schema/diff', source);
    expect(second.status, JSON.stringify(second.body)).to.equal(204);
  });

  it('answers 204 for a snapshot of its own schema', async () => {
    expect((await api('POST', '/schema/diff', await snapshotOf(api))).status).to.equal(204);
  });

  it('refuses a stale hash and changes nothing', async () => {
    const changed = await snapshotOf(api);
    changed.fields.push({
      collection: 'authors',
      field: 'nickname',
      type: 'string',
      meta: null,
      schema: { max_length: 50, is_nullable: true },
    });
    const plan = expectOk(await target().api('POST', '/schema/diff', changed));
    expect(plan.diff.fields).to.deep.equal([
      { collection: 'authors', field: 'nickname', diff: [{ kind: 'N', rhs: changed.fields.at(-1) }] },
    ]);
    // Someone changes the target between the diff and the apply.
    expectOk(await target().api('PATCH', '/collections/authors', { meta: { note: 'edited meanwhile' } }));
    const before = await snapshotOf(target().api);
    expectError(
      await target().api('POST', '/schema/apply', plan),
      400,
      'INVALID_PAYLOAD',
      /Provided hash does not match the current instance's schema hash/,
    );
    expect(await snapshotOf(target().api)).to.deep.equal(before);
    expect(await target().server.db.schema.hasColumn('authors', 'nickname')).to.equal(false);
  });

  it('edits meta and columns, then drops what the snapshot lacks only with the destructive flag', async () => {
    const source = await snapshotOf(api);
    const env = target();
    // The target drifts: note edited (previous test), an extra field with data, an extra collection.
    expectOk(await env.api('POST', '/fields/authors', { field: 'extra', type: 'string' }));
    expectOk(
      await env.api('POST', '/collections', {
        collection: 'scratch',
        schema: {},
        fields: [id, { field: 'x', type: 'integer' }],
      }),
    );
    await env.server.db('authors').insert({ name: 'Ann', extra: 'keep me' });
    await env.server.db('scratch').insert({ x: 1 });

    const plan = expectOk(await env.api('POST', '/schema/diff', source));
    expect(plan.diff.destructive).to.deep.equal(['delete field "authors.extra"', 'delete collection "scratch"']);
    expectError(await env.api('POST', '/schema/apply', plan), 400, 'INVALID_PAYLOAD', /drops stored data/);
    expect(await env.server.db('authors').select('extra')).to.deep.equal([{ extra: 'keep me' }]);
    expect(await env.server.db.schema.hasTable('scratch')).to.equal(true);

    expectOk(await env.api('POST', '/schema/apply?allow_destructive=true', plan), 204);
    expect(schemaPart(await snapshotOf(env.api))).to.deep.equal(schemaPart(source));
    expect(await env.server.db.schema.hasTable('scratch')).to.equal(false);
    expect(await env.server.db('authors').select('name')).to.deep.equal([{ name: 'Ann' }]);
  });

  it('moves a relation to another related collection: the old foreign key goes, the new one comes', async () => {
    const env = target();
    expectOk(await env.api('POST', '/collections', { collection: 'editors', schema: {}, fields: [id] }));
    const source = await snapshotOf(env.api);
    const moved = structuredClone(source);
    const relation = moved.relations.find((r: any) => r.field === 'author');
    relation.related_collection = 'editors';
    relation.schema.foreign_key_table = 'editors';
    relation.meta.one_collection = 'editors';
    relation.meta.one_field = null;
    moved.fields = moved.fields.filter((f: any) => !(f.collection === 'authors' && f.field === 'articles'));
    moved.fields.find((f: any) => f.field === 'author').schema.foreign_key_table = 'editors';
    const plan = expectOk(await env.api('POST', '/schema/diff', moved));
    expectOk(await env.api('POST', '/schema/apply', plan), 204);
    expect(schemaPart(await snapshotOf(env.api))).to.deep.equal(schemaPart(moved));
    expect((await env.api('POST', '/schema/diff', moved)).status).to.equal(204);
    // And back, so the next tests find the schema they expect.
    expectOk(
      await env.api(
        'POST',
        '/schema/apply?allow_destructive=true',
        expectOk(await env.api('POST', '/schema/diff', await snapshotOf(api))),
      ),
      204,
    );
  });

  it('refuses bad snapshots and diffs with a clear error, changing nothing', async () => {
    const good = await snapshotOf(api);
    const before = await snapshotOf(api);
    expectError(
      await api('POST', '/schema/diff', { ...good, version: 2 }),
      400,
      'INVALID_PAYLOAD',
      /version 2 is newer/,
    );
    expectError(
      await api('POST', '/schema/diff', { version: 1, vendor: good.vendor, collections: [] }),
      400,
      'INVALID_PAYLOAD',
      /"fields"/,
    );
    expectError(
      await api('POST', '/schema/diff', { ...good, fields: [...good.fields, good.fields[0]] }),
      400,
      'INVALID_PAYLOAD',
      /twice/,
    );
    expectError(
      await api('POST', '/schema/diff', { ...good, vendor: good.vendor === 'sqlite' ? 'postgres' : 'sqlite' }),
      400,
      'INVALID_PAYLOAD',
      /pass \?force=true to diff across vendors/,
    );
    const geometry = {
      ...good,
      fields: [...good.fields, { collection: 'authors', field: 'place', type: 'geometry', meta: null, schema: {} }],
    };
    expectError(await api('POST', '/schema/diff', geometry), 400, 'INVALID_PAYLOAD', /unknown type "geometry"/);
    const truncated = await ctx().api('/schema/diff', {
      method: 'POST',
      headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(good).slice(0, 200),
    });
    expect(truncated.status).to.equal(400);
    expectError(
      await api('POST', '/schema/apply', {
        hash: before.hash,
        diff: { fields: [{ collection: 'authors', field: 'x', diff: [{ kind: 'Z' }] }] },
      }),
      400,
      'INVALID_PAYLOAD',
      /kind/,
    );
    expect(await snapshotOf(api)).to.deep.equal(before);
  });
});

describe('schema promotion across vendors: PostgreSQL -> SQLite -> MariaDB -> PostgreSQL', function () {
  const chain: DialectName[] = ['postgres', 'sqlite', 'mariadb', 'postgres'];
  const environments: Environment[] = [];

  before(async function () {
    for (const dialect of new Set(chain)) requireOrSkip(this, await targetOf(dialect).unavailable());
    for (const dialect of chain) environments.push(await openEnvironment(targetOf(dialect)));
  });
  after(async () => {
    for (const env of environments) await env.close();
  });

  it('loses nothing the catalogue can express; a vendor change needs force', async () => {
    const [first, ...rest] = environments;
    if (first === undefined) throw new Error('no environments');
    await buildFixture(first.api);
    const source = await snapshotOf(first.api);
    let previous = first;
    for (const env of rest) {
      const snapshot = await snapshotOf(previous.api);
      if (snapshot.vendor !== (await snapshotOf(env.api)).vendor) {
        expectError(await env.api('POST', '/schema/diff', snapshot), 400, 'INVALID_PAYLOAD', /pass \?force=true/);
      }
      await promote(previous.api, env.api, { force: true });
      const promoted = await snapshotOf(env.api);
      expect(schemaPart(promoted), `on ${env.database.dialect}`).to.deep.equal(schemaPart(source));
      expect((await env.api('POST', '/schema/diff?force=true', source)).status).to.equal(204);
      previous = env;
    }
  });
});

describeEachDatabase('schema promotion: a failing step', (ctx) => {
  const api = schemaApi(ctx);

  it('PostgreSQL rolls every step back; MariaDB and SQLite stop there and say what was applied', async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'notes',
        schema: {},
        fields: [id, { field: 'code', type: 'string' }],
      }),
    );
    await ctx()
      .server.db('notes')
      .insert([{ code: 'a' }, { code: 'a' }]);
    const snapshot = await snapshotOf(api);
    snapshot.collections.push({ collection: 'labels', meta: null, schema: { name: 'labels' } });
    snapshot.fields.push({
      ...id,
      collection: 'labels',
      meta: null,
      schema: { is_primary_key: true, has_auto_increment: true },
    });
    const code = snapshot.fields.find((f: any) => f.collection === 'notes' && f.field === 'code');
    code.schema.is_unique = true; // the stored duplicates refuse it
    const plan = expectOk(await api('POST', '/schema/diff', snapshot));
    const result = await api('POST', '/schema/apply', plan);
    expectError(result, 400, 'RECORD_NOT_UNIQUE', /stopped at step 2 of 2 \(update field "notes.code"\)/);
    const { db } = ctx().server;
    if (ctx().dialect === 'postgres') {
      expect(result.body.errors[0].message).to.match(/Nothing was applied/);
      expect(await db.schema.hasTable('labels')).to.equal(false);
    } else {
      expect(result.body.errors[0].message).to.match(/Applied: create collection "labels"; not applied: this step/);
      expect(await db.schema.hasTable('labels')).to.equal(true);
    }
    expect((await snapshotOf(api)).fields.find((f: any) => f.field === 'code').schema.is_unique).to.equal(false);
  });
});
