import { expect } from 'chai';
import { getFieldRelation, requireCollection } from '../../../catalog/overview/lookup.js';
import type { SchemaOverview } from '../../../catalog/overview/types.js';
import { createLogger } from '../../../src/logger/index.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { dropNamespace, testNamespace } from '../../support/redis-namespace.js';
import { describeEachDatabase, testConfig } from '../../support/server.js';
import { postgresTarget, redisUnavailable, requireOrSkip, TEST_REDIS_URL } from '../../support/services.js';
import type { DialectName } from '../../support/services.js';

/** A table written in each dialect's own words for boolean and JSON. */
function plainSqlTables(dialect: DialectName): string[] {
  const bool = dialect === 'mariadb' ? 'tinyint(1)' : 'boolean';
  const json = dialect === 'postgres' ? 'jsonb' : 'json';
  const pk =
    dialect === 'mariadb'
      ? 'integer auto_increment primary key'
      : dialect === 'postgres'
        ? 'serial primary key'
        : 'integer primary key';
  return [
    `CREATE TABLE plain_authors (id ${pk}, name varchar(80) NOT NULL DEFAULT 'anon', active ${bool} DEFAULT ${dialect === 'postgres' ? 'true' : '1'}, profile ${json}, score numeric(8,2), code char(36) UNIQUE)`,
    `CREATE TABLE plain_posts (id ${pk}, title text, author integer, FOREIGN KEY (author) REFERENCES plain_authors (id) ON DELETE CASCADE)`,
    'CREATE TABLE plain_no_key (a integer)',
  ];
}

describeEachDatabase('catalogue overview', (ctx) => {
  let overview: SchemaOverview;

  before(async () => {
    overview = await ctx().server.schema.getOverview();
  });

  it('holds the system collections with their own definitions, not the internal tables', () => {
    expect(overview.collections).to.include.keys(
      'svc_activity',
      'svc_collections',
      'svc_comments',
      'svc_fields',
      'svc_files',
      'svc_folders',
      'svc_permissions',
      'svc_presets',
      'svc_relations',
      'svc_revisions',
      'svc_roles',
      'svc_settings',
      'svc_users',
    );
    expect(overview.collections).not.to.have.any.keys('svc_migrations', 'svc_sessions', 'svc_idempotency');
    const users = requireCollection(overview, 'svc_users');
    expect(users.isSystem).to.equal(true);
    expect(users.primary).to.equal('id');
    expect(users.fields['id']?.type).to.equal('uuid');
    expect(users.fields['password']?.type).to.equal('hash');
    expect(users.fields['password']?.special).to.include('hash');
    expect(users.fields['token']?.special).to.include('conceal');
    expect(users.fields['tfa_secret']?.special).to.include('conceal');
    expect(users.fields['tags']?.type).to.equal('json');
    expect(users.fields['email_notifications']?.type).to.equal('boolean');
    expect(users.fields['email_notifications']?.defaultValue).to.equal(true);
    expect(users.fields['status']?.defaultValue).to.equal('active');
    expect(users.fields['last_access']?.type).to.equal('timestamp');
    expect(users.fields['email']?.isUnique).to.equal(true);
    expect(users.meta?.['system']).to.equal(true);
  });

  it('knows csv, json and boolean system fields on every dialect', () => {
    expect(overview.collections['svc_roles']?.fields['ip_access']?.type).to.equal('csv');
    expect(overview.collections['svc_permissions']?.fields['fields']?.type).to.equal('csv');
    expect(overview.collections['svc_relations']?.fields['one_allowed_collections']?.type).to.equal('csv');
    expect(overview.collections['svc_fields']?.fields['special']?.special).to.deep.equal(['cast-csv']);
    expect(overview.collections['svc_permissions']?.fields['permissions']?.type).to.equal('json');
    expect(overview.collections['svc_revisions']?.fields['data']?.type).to.equal('json');
    expect(overview.collections['svc_roles']?.fields['admin_access']?.type).to.equal('boolean');
    expect(overview.collections['svc_roles']?.fields['admin_access']?.defaultValue).to.equal(false);
    expect(overview.collections['svc_files']?.fields['filesize']?.type).to.equal('bigInteger');
  });

  it('has singleton, accountability and the system relations in both directions', () => {
    expect(overview.collections['svc_settings']?.singleton).to.equal(true);
    expect(overview.collections['svc_activity']?.accountability).to.equal(null);
    expect(overview.collections['svc_revisions']?.accountability).to.equal(null);
    expect(overview.collections['svc_users']?.accountability).to.equal('all');

    const role = getFieldRelation(overview, 'svc_users', 'role');
    expect(role?.kind).to.equal('m2o');
    expect(role?.kind === 'm2o' && role.related).to.equal('svc_roles');
    const users = getFieldRelation(overview, 'svc_roles', 'users');
    expect(users?.kind).to.equal('o2m');
    expect(users?.kind === 'o2m' && users.related).to.equal('svc_users');
    expect(overview.collections['svc_roles']?.fields['users']).to.include({ type: 'alias', isAlias: true });

    const revisions = getFieldRelation(overview, 'svc_activity', 'revisions');
    expect(revisions?.kind === 'o2m' && revisions.related).to.equal('svc_revisions');
    const activityUser = getFieldRelation(overview, 'svc_activity', 'user');
    expect(activityUser?.kind === 'm2o' && activityUser.related).to.equal('svc_users');
    // svc_users.role has a real foreign key: its rule comes from the database.
    expect(role?.relation.schema?.onDelete).to.equal('SET NULL');
  });

  it('serves a table created with plain SQL after an invalidation, with its FK as a relation', async () => {
    const { server, dialect } = ctx();
    for (const sql of plainSqlTables(dialect)) await server.db.raw(sql);
    const before = await server.schema.getOverview();
    expect(before.collections).not.to.have.key('plain_authors');

    await server.schema.invalidate();
    const after = await server.schema.getOverview();
    expect(after.version).to.be.greaterThan(before.version);
    const authors = requireCollection(after, 'plain_authors');
    expect(authors.primary).to.equal('id');
    expect(authors.fields['id']).to.include({
      type: 'integer',
      isPrimaryKey: true,
      hasAutoIncrement: true,
      isGenerated: true,
    });
    expect(authors.fields['name']).to.include({ type: 'string', maxLength: 80, nullable: false, defaultValue: 'anon' });
    expect(authors.fields['active']).to.include({ type: 'boolean', defaultValue: true });
    expect(authors.fields['profile']?.type).to.equal('json');
    expect(authors.fields['score']).to.include({ type: 'decimal', precision: 8, scale: 2 });
    expect(authors.fields['code']).to.include({ type: 'uuid', isUnique: true });
    expect(authors.meta).to.equal(null);

    const author = getFieldRelation(after, 'plain_posts', 'author');
    expect(author?.kind === 'm2o' && author.related).to.equal('plain_authors');
    expect(author?.relation.meta).to.equal(null);
    expect(author?.relation.schema).to.include({ onDelete: 'CASCADE', foreignKeyColumn: 'id' });
    expect(after.collections).not.to.have.key('plain_no_key');
  });

  it('builds once and answers the same object until invalidated', async () => {
    const { schema } = ctx().server;
    const first = await schema.getOverview();
    expect(await schema.getOverview()).to.equal(first);
    await schema.invalidate();
    const next = await schema.getOverview();
    expect(next).not.to.equal(first);
    expect(next.version).to.equal(first.version + 1);
  });
});

describe('catalogue overview shared through Redis [postgres]', () => {
  const servers: RunningServer[] = [];
  const namespace = testNamespace('test');
  let drop: (() => Promise<void>) | undefined;

  before(async function () {
    requireOrSkip(this, (await postgresTarget.unavailable()) ?? (await redisUnavailable()));
    const database = await postgresTarget.create();
    drop = () => database.drop();
    const env = { REDIS: TEST_REDIS_URL, CACHE_NAMESPACE: namespace };
    const logger = createLogger({ logLevel: 'silent', logStyle: 'raw' });
    servers.push(await startServer(testConfig(database, env), { logger }));
    servers.push(await startServer(testConfig(database, env), { logger }));
  });

  after(async () => {
    for (const server of servers) await server.close();
    await drop?.();
    if (drop !== undefined) await dropNamespace(namespace);
  });

  it('an invalidation on one instance moves the version on the other', async () => {
    const [a, b] = servers as [RunningServer, RunningServer];
    const seenByB = await b.schema.getOverview();
    expect((await a.schema.getOverview()).version).to.equal(seenByB.version);

    await a.db.raw('CREATE TABLE shared_thing (id serial primary key, label text)');
    await a.schema.invalidate();
    // Pub/sub is asynchronous: B drops its copy when the message arrives.
    let fresh = await b.schema.getOverview();
    for (let i = 0; i < 50 && fresh.version === seenByB.version; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      fresh = await b.schema.getOverview();
    }
    expect(fresh.version).to.equal(seenByB.version + 1);
    expect(fresh.collections['shared_thing']?.primary).to.equal('id');
  });
});
