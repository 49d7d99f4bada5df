import { expect } from 'chai';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli } from '../../support/service-process.js';
import { createUser } from '../auth/helpers.js';

/**
 * `roles create` makes the role it is asked for and says what it made: app access (its users
 * work in the Studio) unless `--no-app-access`, as `POST /roles` and Directus 10 make one;
 * `--admin-access` for a role that may do everything. On stdout the id alone (`ROLE=$(... roles create ...)`),
 * on stderr the sentence. Run against the suite's own database, whose server then treats the
 * role's users accordingly.
 */
describeEachDatabase(
  'command line: roles create with app and admin access',
  (ctx) => {
    const roleRow = async (id: string) => {
      const row = await ctx()
        .server.db('svc_roles')
        .where({ id })
        .first<{ name: string; app_access: unknown; admin_access: unknown }>('name', 'app_access', 'admin_access');
      return row === undefined
        ? undefined
        : { name: row.name, app: Boolean(Number(row.app_access)), admin: Boolean(Number(row.admin_access)) };
    };
    /** A user of `role`, signed in: the status of GET /collections (app access reads the schema) and POST /utils/cache/clear (admins only). */
    const reachOf = async (role: string) => {
      const user = await createUser(ctx().server.db, { role });
      const login = await ctx().api('/auth/login', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: user.email, password: user.password }),
      });
      expect(login.status).to.equal(200);
      const { data } = (await login.json()) as { data: { access_token: string } };
      const headers = { Authorization: `Bearer ${data.access_token}` };
      const collections = await ctx().api('/collections', { headers });
      const clear = await ctx().api('/utils/cache/clear', { method: 'POST', headers });
      return { collections: collections.status, clearCache: clear.status };
    };

    it('--app-access: app access only, said on stderr; its users read the schema the Studio needs', async () => {
      const made = await runCli(['roles', 'create', '--name', 'Editors', '--app-access'], ctx().database.env);
      expect(made.code, made.stderr).to.equal(0);
      const id = made.stdout.trim();
      expect(made.stdout).to.equal(`${id}\n`);
      expect(made.stderr).to.equal(
        'role "Editors" created: app access: its users may sign in to the Studio; no permissions yet (grant them with POST /permissions or in the Studio)\n',
      );
      expect(await roleRow(id)).to.deep.equal({ name: 'Editors', app: true, admin: false });
      expect(await reachOf(id)).to.deep.equal({ collections: 200, clearCache: 403 });
    });

    it('--admin-access (or --admin): admin and app access', async () => {
      for (const flag of ['--admin-access', '--admin']) {
        const made = await runCli(['roles', 'create', '--name', `Chiefs ${flag}`, flag], ctx().database.env);
        expect(made.code, made.stderr).to.equal(0);
        const id = made.stdout.trim();
        expect(made.stderr).to.equal(
          `role "Chiefs ${flag}" created: admin access (everything) and app access (the Studio)\n`,
        );
        expect(await roleRow(id)).to.deep.equal({ name: `Chiefs ${flag}`, app: true, admin: true });
      }
      const id = (
        await ctx().server.db('svc_roles').where({ name: 'Chiefs --admin-access' }).first<{ id: string }>('id')
      )?.id;
      expect(await reachOf(String(id))).to.deep.equal({ collections: 200, clearCache: 200 });
    });

    it('no flag: app access, as POST /roles gives; --no-app-access: a role for the API only', async () => {
      const plain = await runCli(['roles', 'create', '--name', 'Writers'], ctx().database.env);
      expect(plain.code, plain.stderr).to.equal(0);
      expect(await roleRow(plain.stdout.trim())).to.deep.equal({ name: 'Writers', app: true, admin: false });
      const api = await ctx().api('/roles', {
        method: 'POST',
        headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Writers by API' }),
      });
      const { data } = (await api.json()) as { data: { id: string } };
      expect(await roleRow(data.id)).to.deep.equal({ name: 'Writers by API', app: true, admin: false });

      const made = await runCli(['roles', 'create', '--name', 'Robots', '--no-app-access'], ctx().database.env);
      expect(made.code, made.stderr).to.equal(0);
      const id = made.stdout.trim();
      expect(made.stderr).to.equal(
        'role "Robots" created: no app access: its users may use the API only; no permissions yet (grant them with POST /permissions or in the Studio)\n',
      );
      expect(await roleRow(id)).to.deep.equal({ name: 'Robots', app: false, admin: false });
      expect(await reachOf(id)).to.deep.equal({ collections: 403, clearCache: 403 });
    });

    it('an empty name is a usage error (exit 2) and makes nothing', async () => {
      const before = await ctx().server.db('svc_roles').count({ n: '*' }).first<{ n: unknown }>();
      const made = await runCli(['roles', 'create', '--name', ' '], ctx().database.env);
      expect(made.code).to.equal(2);
      expect(made.stderr).to.equal('error: --name must not be empty\n');
      const after = await ctx().server.db('svc_roles').count({ n: '*' }).first<{ n: unknown }>();
      expect(Number(after?.n)).to.equal(Number(before?.n));
    });
  },
  { timeoutMs: PROCESS_TEST_TIMEOUT_MS },
);
