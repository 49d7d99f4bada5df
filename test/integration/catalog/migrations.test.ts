import { expect } from 'chai';
import { bootstrap } from '../../../catalog/bootstrap.js';
import { migrate } from '../../../catalog/migrate.js';
import { MIGRATIONS } from '../../../catalog/migrations/index.js';
import { createDatabase, type Knex } from '../../../src/db/index.js';
import { DATABASE_TARGETS, requireOrSkip, type TestDatabase } from '../../support/services.js';
import { testConfig } from '../../support/server.js';

/** Every svc_* system table, with a few columns each must have. */
const SYSTEM_TABLES: Record<string, readonly string[]> = {
  svc_activity: ['id', 'action', 'user', 'timestamp', 'ip', 'user_agent', 'collection', 'item', 'comment', 'origin'],
  svc_collections: ['collection', 'singleton', 'sort_field', 'accountability', 'archive_field', 'group'],
  svc_comments: ['id', 'collection', 'item', 'comment', 'date_created', 'user_created'],
  svc_fields: ['id', 'collection', 'field', 'special', 'interface', 'required', 'validation', 'validation_message'],
  svc_files: ['id', 'storage', 'filename_disk', 'filename_download', 'type', 'folder', 'filesize', 'uploaded_on'],
  svc_folders: ['id', 'name', 'parent'],
  svc_idempotency: ['id', 'key', 'caller', 'fingerprint', 'created', 'status', 'content_type', 'body'],
  svc_migrations: ['version', 'name', 'timestamp'],
  svc_permissions: ['id', 'role', 'collection', 'action', 'permissions', 'validation', 'presets', 'fields'],
  svc_presets: ['id', 'bookmark', 'user', 'role', 'collection', 'layout_query', 'filter'],
  svc_relations: [
    'id',
    'many_collection',
    'many_field',
    'one_collection',
    'one_field',
    'one_collection_field',
    'one_allowed_collections',
    'junction_field',
    'sort_field',
    'one_deselect_action',
  ],
  svc_revisions: ['id', 'activity', 'collection', 'item', 'data', 'delta', 'parent', 'version'],
  svc_roles: ['id', 'name', 'icon', 'ip_access', 'enforce_tfa', 'admin_access', 'app_access'],
  svc_sessions: ['token', 'user', 'expires', 'ip', 'user_agent', 'origin', 'next_token'],
  svc_settings: [
    'id',
    'project_name',
    'project_color',
    'auth_login_attempts',
    'public_registration',
    'export_retention',
  ],
  svc_users: [
    'id',
    'first_name',
    'last_name',
    'email',
    'password',
    'tfa_secret',
    'status',
    'role',
    'token',
    'last_access',
    'provider',
    'external_identifier',
    'auth_data',
  ],
};

const hashPassword = (password: string) => Promise.resolve(`hashed:${password}`);

async function snapshot(db: Knex): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of ['svc_roles', 'svc_users', 'svc_settings', 'svc_migrations']) {
    out[table] = await db(table)
      .select('*')
      .orderBy(table === 'svc_migrations' ? 'version' : 'id');
  }
  return out;
}

for (const target of DATABASE_TARGETS) {
  describe(`catalogue migrations and bootstrap [${target.dialect}]`, function () {
    let database: TestDatabase | undefined;
    let db: Knex;

    before(async function () {
      requireOrSkip(this, await target.unavailable());
      database = await target.create();
      db = createDatabase(testConfig(database).db);
    });
    after(async () => {
      if (database === undefined) return;
      await db.destroy();
      await database.drop();
    });

    it('creates every system table with its columns', async () => {
      expect(await migrate(db)).to.deep.equal(MIGRATIONS.map((m) => m.version));
      for (const [table, columns] of Object.entries(SYSTEM_TABLES)) {
        expect(await db.schema.hasTable(table), table).to.equal(true);
        for (const column of columns) {
          expect(await db.schema.hasColumn(table, column), `${table}.${column}`).to.equal(true);
        }
      }
    });

    it('applies nothing when run again', async () => {
      expect(await migrate(db)).to.deep.equal([]);
      const versions = await db('svc_migrations').pluck('version');
      expect(versions).to.deep.equal(MIGRATIONS.map((m) => m.version));
    });

    it('bootstraps the admin role, the admin user and the settings singleton once', async () => {
      const first = await bootstrap(db, {
        adminEmail: 'Boss@Example.com',
        adminPassword: 'secret-1',
        adminToken: 'static-1',
        hashPassword,
      });
      expect(first.createdAdmin).to.deep.equal({ email: 'boss@example.com', password: 'secret-1', isGenerated: false });

      const roles = await db('svc_roles').select('*');
      expect(roles).to.have.length(1);
      expect(roles[0].name).to.equal('Administrator');
      expect(Boolean(roles[0].admin_access)).to.equal(true);
      expect(Boolean(roles[0].app_access)).to.equal(true);

      const users = await db('svc_users').select('*');
      expect(users).to.have.length(1);
      expect(users[0]).to.include({
        email: 'boss@example.com',
        password: 'hashed:secret-1',
        token: 'static-1',
        status: 'active',
        role: roles[0].id,
      });

      const settings = await db('svc_settings').select('*');
      expect(settings).to.have.length(1);
      expect(settings[0].project_name).to.equal('Content Data Service');
    });

    it('changes nothing when bootstrapped again, whatever the admin variables say', async () => {
      const before = await snapshot(db);
      const second = await bootstrap(db, {
        adminEmail: 'other@example.com',
        adminPassword: undefined,
        adminToken: undefined,
        hashPassword,
      });
      expect(second.createdAdmin).to.equal(undefined);
      expect(second.appliedMigrations).to.deep.equal([]);
      expect(await snapshot(db)).to.deep.equal(before);
    });

    it('enforces foreign keys between system tables', async () => {
      let failed = false;
      try {
        await db('svc_users').insert({
          id: '00000000-0000-4000-8000-000000000001',
          email: 'x@example.com',
          role: '00000000-0000-4000-8000-00000000dead',
        });
      } catch {
        failed = true;
      }
      expect(failed, 'a user pointing at a missing role must be refused').to.equal(true);
      expect(await db('svc_users').where({ email: 'x@example.com' }).first()).to.equal(undefined);
    });
  });
}

describe('bootstrap without ADMIN_PASSWORD [sqlite]', () => {
  it('generates a password and reports it as generated', async () => {
    const database = await DATABASE_TARGETS[0]!.create();
    const db = createDatabase(testConfig(database).db);
    try {
      const result = await bootstrap(db, {
        adminEmail: undefined,
        adminPassword: undefined,
        adminToken: undefined,
        hashPassword,
      });
      expect(result.createdAdmin?.isGenerated).to.equal(true);
      expect(result.createdAdmin?.email).to.equal('admin@example.com');
      expect(result.createdAdmin?.password).to.match(/^[A-Za-z0-9_-]{16}$/);
      const user = await db('svc_users').first('password', 'token');
      expect(user).to.deep.equal({ password: `hashed:${result.createdAdmin?.password}`, token: null });
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});

for (const target of DATABASE_TARGETS) {
  describe(`migration 0004 on a database in use [${target.dialect}]`, function () {
    it('keeps the users and sessions it finds; their tokens and e-mails then match exactly', async function () {
      requireOrSkip(this, await target.unavailable());
      const database = await target.create();
      const db = createDatabase(testConfig(database).db);
      try {
        const before = MIGRATIONS.filter((m) => m.version < '0004');
        await migrate(db, before);
        const user = { id: '6f1d2c3b-0000-4000-8000-000000000001', email: 'ana@bücher.example', token: 'Static-Token' };
        await db('svc_users').insert({ ...user, status: 'active', provider: 'default' });
        const session = { token: 'Refresh-Token', user: user.id, expires: new Date(Date.now() + 60_000) };
        await db('svc_sessions').insert(session);
        expect(await migrate(db)).to.deep.equal(MIGRATIONS.filter((m) => m.version >= '0004').map((m) => m.version));
        expect(await db('svc_users').where('token', user.token).select('id', 'email')).to.deep.equal([
          { id: user.id, email: user.email },
        ]);
        expect(await db('svc_sessions').where('token', session.token).select('user')).to.deep.equal([
          { user: user.id },
        ]);
        expect(await db('svc_users').where('token', 'static-token').select('id')).to.deep.equal([]);
        expect(await db('svc_users').where('email', 'ana@bucher.example').select('id')).to.deep.equal([]);
        expect(await db('svc_sessions').where('token', 'REFRESH-TOKEN').select('user')).to.deep.equal([]);
      } finally {
        await db.destroy();
        await database.drop();
      }
    });
  });
}
