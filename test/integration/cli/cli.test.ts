import { expect } from 'chai';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startServer } from '../../../src/server.js';
import { createLogger } from '../../../src/logger/index.js';
import { describeEachDatabase, testConfig, TEST_ADMIN } from '../../support/server.js';
import { postgresTarget, sqliteTarget, type TestDatabase } from '../../support/services.js';
import { MIGRATIONS } from '../../../catalog/migrations/index.js';
import { expectOk, schemaApi } from '../catalog/schema-api.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli } from '../../support/service-process.js';

const id = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };

describeEachDatabase(
  'command line',
  (ctx) => {
    const api = schemaApi(ctx);
    let dir = '';
    let target: TestDatabase | undefined;
    const targetEnv = () => {
      if (target === undefined) throw new Error('no target database');
      return target.env;
    };

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'svc-cli-'));
      expectOk(
        await api('POST', '/collections', [
          {
            collection: 'books',
            meta: { note: 'library' },
            schema: {},
            fields: [id, { field: 'title', type: 'string', schema: { max_length: 80 } }],
          },
          {
            collection: 'reviews',
            schema: {},
            fields: [id, { field: 'book', type: 'integer' }, { field: 'stars', type: 'integer' }],
          },
        ]),
      );
      expectOk(
        await api('POST', '/relations', {
          collection: 'reviews',
          field: 'book',
          related_collection: 'books',
          meta: { one_field: 'reviews' },
        }),
      );
      target = await (ctx().dialect === 'postgres' ? postgresTarget : sqliteTarget).create();
    });
    after(async () => {
      await target?.drop();
      await rm(dir, { recursive: true, force: true });
    });

    it('bootstrap migrates an empty database and creates the first admin once', async () => {
      const env = { ...targetEnv(), ADMIN_EMAIL: 'first@example.com', ADMIN_PASSWORD: 'first-password' };
      const first = await runCli(['bootstrap'], env);
      expect(first.code, first.stderr).to.equal(0);
      expect(first.stdout).to.equal(
        `migrations applied: ${MIGRATIONS.map((m) => m.version).join(', ')}\nadmin created: first@example.com\n`,
      );
      const second = await runCli(['bootstrap'], env);
      expect(second.code, second.stderr).to.equal(0);
      expect(second.stdout).to.equal('migrations applied: none\n');
      const again = await runCli(['database', 'migrate:latest'], env);
      expect(again.stdout).to.equal('migrations applied: none\n');
      const down = await runCli(['database', 'migrate:down'], env);
      expect(down.code).to.equal(1);
      expect(down.stderr).to.match(/forward-only/);
    });

    it('schema snapshot writes the same snapshot as GET /schema/snapshot, as YAML or JSON', async () => {
      const file = join(dir, 'snapshot.yaml');
      const written = await runCli(['schema', 'snapshot', file], ctx().database.env);
      expect(written.code, written.stderr).to.equal(0);
      expect(written.stdout).to.equal(`snapshot written to ${file}\n`);
      const fromApi = expectOk(await api('GET', '/schema/snapshot'));
      expect(parseYaml(await readFile(file, 'utf8'))).to.deep.equal(fromApi);
      const json = await runCli(['schema', 'snapshot', '--format', 'json'], ctx().database.env);
      expect(JSON.parse(json.stdout)).to.deep.equal(fromApi);
      const bad = await runCli(['schema', 'snapshot', '--format', 'xml'], ctx().database.env);
      expect(bad.code).to.equal(2);
      expect(bad.stderr).to.match(/xml/);
    });

    it('schema apply prints the plan; --dry-run and a refused confirmation change nothing; --yes applies; a second apply has nothing to do', async () => {
      const file = join(dir, 'snapshot.yaml');
      const before = await runCli(['schema', 'snapshot', '--format', 'json'], targetEnv());
      const dry = await runCli(['schema', 'apply', file, '--dry-run'], targetEnv());
      expect(dry.code, dry.stderr).to.equal(0);
      expect(dry.stdout).to.equal(
        'plan (2 steps):\n  - create collections "books", "reviews"\n  - create relation "reviews.book"\n',
      );
      const unconfirmed = await runCli(['schema', 'apply', file], targetEnv());
      expect(unconfirmed.code).to.equal(1);
      expect(unconfirmed.stderr).to.match(/--yes/);
      expect((await runCli(['schema', 'snapshot', '--format', 'json'], targetEnv())).stdout).to.equal(before.stdout);

      const applied = await runCli(['schema', 'apply', file, '--yes'], targetEnv());
      expect(applied.code, applied.stderr).to.equal(0);
      expect(applied.stdout).to.match(/applied\n$/);
      const promoted = JSON.parse((await runCli(['schema', 'snapshot', '--format', 'json'], targetEnv())).stdout);
      expect(promoted.hash).to.equal(expectOk(await api('GET', '/schema/snapshot')).hash);
      const second = await runCli(['schema', 'apply', file, '--yes'], targetEnv());
      expect(second.stdout).to.equal('no changes: the schema matches the snapshot\n');
    });

    it('refuses a truncated file, a newer version, a missing file and an unreachable database with their exit codes', async () => {
      const file = join(dir, 'snapshot.yaml');
      const text = await readFile(file, 'utf8');
      const truncated = join(dir, 'truncated.json');
      await writeFile(truncated, JSON.stringify(parseYaml(text)).slice(0, 120));
      const before = (await runCli(['schema', 'snapshot', '--format', 'json'], targetEnv())).stdout;

      const broken = await runCli(['schema', 'apply', truncated, '--yes'], targetEnv());
      expect(broken.code).to.equal(1);
      expect(broken.stderr).to.match(/is not a snapshot/);
      const newer = join(dir, 'newer.yaml');
      await writeFile(newer, text.replace(/^version: 1$/m, 'version: 9'));
      const refused = await runCli(['schema', 'apply', newer, '--yes'], targetEnv());
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.match(/version 9 is newer.*\(INVALID_PAYLOAD\)/);
      const missing = await runCli(['schema', 'apply', join(dir, 'nope.yaml')], targetEnv());
      expect(missing.code).to.equal(2);
      expect((await runCli(['schema', 'snapshot', '--format', 'json'], targetEnv())).stdout).to.equal(before);

      const unreachable = await runCli(['schema', 'snapshot'], {
        DB_CLIENT: 'pg',
        DB_HOST: '127.0.0.1',
        DB_PORT: '1',
        DB_DATABASE: 'none',
      });
      expect(unreachable.code).to.equal(3);
      // The server's line: where it looked and what to set.
      expect(unreachable.stderr).to.match(/^error: Database unreachable: .*127\.0\.0\.1:1.*DB_HOST/m);
      expect((await runCli(['no-such-command'], targetEnv())).code).to.equal(2);
    });

    it('import writes a file through the import handler (journal included), all or nothing; export streams it back', async () => {
      const env = { ...targetEnv(), TEMP_PATH: join(dir, 'tmp') };
      const { knexOf } = await import('./target-db.js');
      const db = knexOf(env);
      try {
        const file = join(dir, 'books.json');
        await writeFile(file, JSON.stringify([{ title: 'Dune' }, { title: 'Emma' }, { title: 'Ulysses' }]));
        const imported = await runCli(['import', 'books', file], env);
        expect(imported.code, imported.stderr).to.equal(0);
        expect(imported.stdout).to.equal('imported 3 items\n');
        expect((await db('books').orderBy('id').select('title')).map((r) => r['title'])).to.deep.equal([
          'Dune',
          'Emma',
          'Ulysses',
        ]);
        const journal = await db('svc_activity').where({ collection: 'books', action: 'create' }).select('user_agent');
        expect(journal).to.deep.equal([{ user_agent: 'cli' }, { user_agent: 'cli' }, { user_agent: 'cli' }]);

        const bad = join(dir, 'bad.csv');
        await writeFile(bad, 'title\nOk\n' + `${'x'.repeat(200)}\n`);
        const refused = await runCli(['import', 'books', bad], env);
        expect(refused.code).to.equal(1);
        expect(refused.stderr).to.match(/error: .*(too long|row 2)/i);
        expect(await db('books').count({ n: '*' }).first()).to.satisfy((r: any) => Number(r.n) === 3);
        expect((await runCli(['import', 'books', join(dir, 'books.txt')], env)).code).to.equal(2);
        expect((await runCli(['import', 'nowhere', file], env)).code).to.equal(1);

        const csv = await runCli(
          ['export', 'books', '--format', 'csv', '--query', '{"fields":["title"],"sort":["-title"],"limit":2}'],
          env,
        );
        expect(csv.code, csv.stderr).to.equal(0);
        expect(csv.stdout).to.equal('"title"\n"Ulysses"\n"Emma"\n');
        expect(csv.stderr).to.equal('exported 2 items\n');
        const out = join(dir, 'books-export.json');
        const toFile = await runCli(
          ['export', 'books', '--query', '{"fields":["title"],"filter":{"title":{"_eq":"Emma"}}}', '-o', out],
          env,
        );
        expect(toFile.code, toFile.stderr).to.equal(0);
        expect(JSON.parse(await readFile(out, 'utf8'))).to.deep.equal([{ title: 'Emma' }]);
        expect((await runCli(['export', 'books', '--query', '{not json'], env)).code).to.equal(2);
        expect((await runCli(['export', 'books', '--format', 'pdf'], env)).code).to.equal(2);
      } finally {
        await db.destroy();
      }
    });

    it('export -o replaces a file only with a whole export: a failed one leaves it as it was, and no partial file', async () => {
      const env = { ...targetEnv(), TEMP_PATH: join(dir, 'tmp') };
      const out = join(dir, 'out');
      await mkdir(out, { recursive: true });
      const kept = join(out, 'kept.csv');
      await writeFile(kept, 'KEEP\n');
      const unknown = await runCli(['export', 'nowhere', '-o', kept], env);
      expect(unknown.code).to.equal(1);
      expect(unknown.stderr).to.equal('error: No collection "nowhere"\n');
      const refused = await runCli(['export', 'books', '--query', '{"filter":{"nope":{"_eq":1}}}', '-o', kept], env);
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.match(/^error: .*nope.*\(INVALID_QUERY\)\n$/);
      const unreachable = await runCli(['export', 'books', '-o', kept], {
        DB_CLIENT: 'pg',
        DB_HOST: '127.0.0.1',
        DB_PORT: '1',
        DB_DATABASE: 'none',
      });
      expect(unreachable.code).to.equal(3);
      expect(await readFile(kept, 'utf8')).to.equal('KEEP\n');
      expect((await runCli(['export', 'nowhere', '-o', join(out, 'new.csv')], env)).code).to.equal(1);
      expect(await readdir(out)).to.deep.equal(['kept.csv']);

      const replaced = await runCli(
        ['export', 'books', '--format', 'csv', '--query', '{"fields":["title"],"limit":1}', '-o', kept],
        env,
      );
      expect(replaced.code, replaced.stderr).to.equal(0);
      expect(await readFile(kept, 'utf8')).to.equal('"title"\n"Dune"\n');
      expect(await readdir(out)).to.deep.equal(['kept.csv']);
    });

    it('export -o and schema snapshot name a path they cannot write, in one line', async () => {
      const env = { ...targetEnv(), TEMP_PATH: join(dir, 'tmp') };
      const missing = join(dir, 'no-such-folder', 'x.json');
      for (const args of [
        ['export', 'books', '-o', missing],
        ['schema', 'snapshot', missing],
      ]) {
        const result = await runCli(args, env);
        expect(result.code, args.join(' ')).to.equal(1);
        expect(result.stderr).to.equal(
          `error: Can't write "${missing}": the folder "${join(dir, 'no-such-folder')}" does not exist (ENOENT)\n`,
        );
      }
      const folder = await runCli(['export', 'books', '-o', dir], env);
      expect(folder.code).to.equal(1);
      expect(folder.stderr).to.equal(`error: Can't write "${dir}": it is a directory\n`);
      const snapshotToFolder = await runCli(['schema', 'snapshot', dir], env);
      expect(snapshotToFolder.code).to.equal(1);
      expect(snapshotToFolder.stderr).to.equal(`error: Can't write "${dir}": it is a directory\n`);
    });

    it("schema apply of another vendor's snapshot says to pass --force, the flag of the command line", async () => {
      const text = await readFile(join(dir, 'snapshot.yaml'), 'utf8');
      const other = join(dir, 'other-vendor.yaml');
      await writeFile(other, text.replace(/^vendor: .*$/m, 'vendor: mssql'));
      const refused = await runCli(['schema', 'apply', other, '--dry-run'], targetEnv());
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.match(
        /^error: .*The snapshot's vendor "mssql" .*; pass --force to diff across vendors.*\(INVALID_PAYLOAD\)$/m,
      );
      expect(refused.stderr).to.not.contain('force=true');
    });

    it('a command other than bootstrap and migrations does not create a SQLite file that is not there', async () => {
      const file = join(dir, 'absent', 'database.sqlite');
      const env = { DB_CLIENT: 'sqlite3', DB_FILENAME: file };
      for (const args of [
        ['schema', 'snapshot'],
        ['export', 'books'],
        ['roles', 'create', '--name', 'x'],
      ]) {
        const result = await runCli(args, env);
        expect(result.code, args.join(' ')).to.equal(1);
        expect(result.stderr).to.equal(
          `error: The database file "${file}" does not exist: run \`bootstrap\` to create it, or set DB_FILENAME to an existing database\n`,
        );
      }
      expect(existsSync(join(dir, 'absent'))).to.equal(false);
      const migrated = await runCli(['database', 'migrate:latest'], env);
      expect(migrated.code, migrated.stderr).to.equal(0);
      expect(existsSync(file)).to.equal(true);
      expect((await runCli(['schema', 'snapshot', '--format', 'json'], env)).code).to.equal(0);
    });

    it('roles create and users create make a user who can log in; users passwd changes the password', async () => {
      const role = await runCli(['roles', 'create', '--name', 'Editors'], targetEnv());
      expect(role.code, role.stderr).to.equal(0);
      const roleId = role.stdout.trim();
      const user = await runCli(
        ['users', 'create', '--email', 'Ed@Example.com', '--password', 'ed-password', '--role', 'Editors'],
        targetEnv(),
      );
      expect(user.code, user.stderr).to.equal(0);
      const duplicate = await runCli(
        ['users', 'create', '--email', 'ed@example.com', '--password', 'x', '--role', roleId],
        targetEnv(),
      );
      expect(duplicate.code).to.equal(1);
      // The API's rule for addresses: a control character inside one is refused (exit 2, usage).
      const bell = await runCli(
        ['users', 'create', '--email', 'a\u0007b@example.com', '--password', 'x', '--role', roleId],
        targetEnv(),
      );
      expect(bell.code, bell.stderr).to.equal(2);
      expect(bell.stderr).to.include('Invalid e-mail address');
      expect(
        (
          await runCli(
            ['users', 'create', '--email', 'x@example.com', '--password', 'x', '--role', 'Nobody'],
            targetEnv(),
          )
        ).code,
      ).to.equal(1);
      expect(
        (await runCli(['users', 'passwd', '--email', 'ed@example.com', '--password', 'new-password'], targetEnv()))
          .code,
      ).to.equal(0);
      expect(
        (await runCli(['users', 'passwd', '--email', 'nobody@example.com', '--password', 'x'], targetEnv())).code,
      ).to.equal(1);

      const database = target as TestDatabase;
      const server = await startServer(testConfig(database), {
        logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
      });
      try {
        const login = (password: string) =>
          fetch(`${server.url}/auth/login`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ email: 'ed@example.com', password }),
          });
        expect((await login('ed-password')).status).to.equal(401);
        expect((await login('new-password')).status).to.equal(200);
        const users = await server.db('svc_users').where({ email: 'ed@example.com' }).select('role', 'status');
        expect(users).to.deep.equal([{ role: roleId, status: 'active' }]);
        expect(await server.db('svc_users').count({ n: '*' }).first()).to.satisfy((r: any) => Number(r.n) === 2);
      } finally {
        await server.close();
      }
      expect(TEST_ADMIN.email).to.not.equal('ed@example.com');
    });

    it('users create and users passwd refuse a password the auth_password_policy setting does not accept', async () => {
      const server = await startServer(testConfig(target as TestDatabase), {
        logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
      });
      try {
        await server.db('svc_settings').update({ auth_password_policy: '/^.{12,}$/' });
        const short = await runCli(
          ['users', 'create', '--email', 'pat@example.com', '--password', 'too-short', '--role', 'Editors'],
          targetEnv(),
        );
        expect(short.code).to.equal(1);
        expect(short.stderr).to.match(/^error: Validation failed for field "password".*\(FAILED_VALIDATION\)$/m);
        expect(await server.db('svc_users').where({ email: 'pat@example.com' }).first('id')).to.equal(undefined);
        const passwd = await runCli(
          ['users', 'passwd', '--email', 'ed@example.com', '--password', 'short'],
          targetEnv(),
        );
        expect(passwd.code).to.equal(1);
        expect(passwd.stderr).to.contain('FAILED_VALIDATION');
        const long = await runCli(
          ['users', 'create', '--email', 'pat@example.com', '--password', 'long-enough-password', '--role', 'Editors'],
          targetEnv(),
        );
        expect(long.code, long.stderr).to.equal(0);
      } finally {
        await server.db('svc_settings').update({ auth_password_policy: null });
        await server.close();
      }
    });
  },
  { targets: [sqliteTarget, postgresTarget], timeoutMs: PROCESS_TEST_TIMEOUT_MS },
);
