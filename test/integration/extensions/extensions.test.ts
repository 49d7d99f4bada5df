import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { capturingLogger } from '../../support/capturing-logger.js';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';

// Extensions written as Directus 10's docs show them (test/fixtures/extensions/): legacy
// folders, packages, a bundle, and two that fail to load.
const FIXTURES = fileURLToPath(new URL('../../fixtures/extensions/', import.meta.url));
const admin = { Authorization: `Bearer ${TEST_ADMIN.token}` };

interface ErrorBody {
  errors: { message: string; extensions: Record<string, unknown> }[];
}

let lines: Record<string, unknown>[] = [];

describeEachDatabase(
  'extensions: hooks, endpoints and init events from EXTENSIONS_PATH',
  (ctx) => {
    const login = (email: string, password: string) =>
      ctx().api('/auth/login', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
    const audit = async () => {
      const res = await ctx().api('/audit');
      expect(res.status).to.equal(200);
      return ((await res.json()) as { data: Record<string, unknown>[] }).data;
    };
    const messages = () => lines.map((line) => String(line['msg']));

    it('an endpoint is mounted under its id and sees the caller', async () => {
      const hello = await ctx().api('/greet');
      expect([hello.status, await hello.text()]).to.deep.equal([200, 'Hello, World!']);
      const asAdmin = await ctx().api('/greet/whoami', { headers: admin });
      expect(await asAdmin.json()).to.deep.include({ admin: true });
      const asPublic = await ctx().api('/greet/whoami');
      expect(await asPublic.json()).to.deep.equal({ user: null, admin: false });
    });

    it("an endpoint's context has env and getSchema, and its requests req.schema", async () => {
      expect(await (await ctx().api('/greet/env')).json()).to.deep.equal({ greeting: 'Grüß Gott' });
      expect(await (await ctx().api('/greet/schema', { headers: admin })).json()).to.deep.equal({
        sameAsRequest: true,
      });
    });

    it("services.ItemsService reads with the caller's accountability: the public is refused, an admin reads", async () => {
      const asPublic = await ctx().api('/greet/users');
      expect(asPublic.status).to.equal(403);
      expect(((await asPublic.json()) as ErrorBody).errors[0]?.extensions['code']).to.equal('FORBIDDEN');
      const asAdmin = await ctx().api('/greet/users', { headers: admin });
      expect(asAdmin.status).to.equal(200);
      expect(await asAdmin.json()).to.deep.equal({ data: [{ email: TEST_ADMIN.email }] });
    });

    it("services.ItemsService writes with the caller's accountability, journal included: the public is refused, an admin writes", async () => {
      const asPublic = await ctx().api('/greet/folders?name=from-public', { method: 'POST' });
      expect(asPublic.status).to.equal(403);
      const db = ctx().server.db;
      expect(await db('svc_folders').where('name', 'from-public')).to.have.length(0);
      const asAdmin = await ctx().api('/greet/folders?name=from-extension', { method: 'POST', headers: admin });
      expect(asAdmin.status).to.equal(200);
      const { data } = (await asAdmin.json()) as { data: { id: string; name: string } };
      expect(data.name).to.equal('from-extension');
      const adminId = ((await db('svc_users').where('email', TEST_ADMIN.email).first('id')) as { id: string }).id;
      const activity = await db('svc_activity')
        .where({ collection: 'svc_folders', item: data.id })
        .select('action', 'user');
      expect(activity).to.deep.equal([{ action: 'create', user: adminId }]);
      const removed = await ctx().api('/greet/folders?name=from-extension', { method: 'DELETE', headers: admin });
      expect(await removed.json()).to.deep.equal({ data: [data.id] });
      expect(await db('svc_folders').where('id', data.id)).to.have.length(0);
    });

    it("an endpoint's Directus exception answers with its code and status", async () => {
      const res = await ctx().api('/greet/forbidden');
      expect(res.status).to.equal(403);
      const body = (await res.json()) as ErrorBody;
      expect(body.errors[0]?.extensions['code']).to.equal('FORBIDDEN');
    });

    it("an endpoint's unexpected throw is a 500 for that request only, logged with the extension's name", async () => {
      const res = await ctx().api('/greet/crash');
      expect(res.status).to.equal(500);
      const body = (await res.json()) as ErrorBody;
      expect(body.errors[0]?.extensions['code']).to.equal('INTERNAL_SERVER_ERROR');
      expect(JSON.stringify(body)).not.to.include('greeting service');
      const logged = lines.find((line) => line['extension'] === 'greet' && String(line['msg']).includes('failed'));
      expect(logged?.['msg']).to.equal('extension "greet" failed on GET /greet/crash: answered 500');
      expect((await ctx().api('/greet')).status).to.equal(200);
    });

    it('an auth.login filter refuses a login with its own code and status', async () => {
      const res = await login('blocked@example.com', 'whatever');
      expect(res.status).to.equal(403);
      const body = (await res.json()) as ErrorBody;
      expect(body.errors).to.deep.equal([
        { message: 'Logins from this account are blocked.', extensions: { code: 'LOGIN_BLOCKED' } },
      ]);
    });

    it('an auth.login filter that throws anything else is a 500 for that login only', async () => {
      const res = await login('crash@example.com', 'whatever');
      expect(res.status).to.equal(500);
      expect(messages()).to.include('extension "article-rules" failed on auth.login: answered 500');
      expect((await login(TEST_ADMIN.email, TEST_ADMIN.password)).status).to.equal(200);
    });

    it('auth.login actions tell success and failure, with the user and provider', async () => {
      const before = (await audit()).length;
      expect((await login(TEST_ADMIN.email, TEST_ADMIN.password)).status).to.equal(200);
      expect((await login(TEST_ADMIN.email, 'wrong-password')).status).to.equal(401);
      expect((await login('nobody@example.com', 'wrong-password')).status).to.equal(401);
      const me = (await (await ctx().api('/users/me', { headers: admin })).json()) as { data: { id: string } };
      const adminId = me.data.id;
      await waitFor(async () => (await audit()).length >= before + 3);
      const events = (await audit()).slice(before);
      expect(events).to.deep.equal([
        { event: 'auth.login', status: 'success', user: adminId, provider: 'default', email: TEST_ADMIN.email },
        { event: 'auth.login', status: 'fail', user: adminId, provider: 'default', email: TEST_ADMIN.email },
        { event: 'auth.login', status: 'fail', user: null, provider: 'default', email: 'nobody@example.com' },
      ]);
    });

    it('items filters change a write, refuse it with their own code (nothing written), or fail it alone', async () => {
      const json = { ...admin, 'Content-Type': 'application/json' };
      const created = await ctx().api('/collections', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          collection: 'articles',
          schema: {},
          fields: [
            { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
            { field: 'title', type: 'string' },
            { field: 'slug', type: 'string' },
          ],
        }),
      });
      expect(created.status).to.equal(200);
      const write = (title: string) =>
        ctx().api('/items/articles', { method: 'POST', headers: json, body: JSON.stringify({ title }) });
      const ok = await write('Hello World');
      expect(ok.status).to.equal(200);
      expect(((await ok.json()) as { data: Record<string, unknown> }).data).to.include({ slug: 'hello-world' });
      const locked = await write('locked');
      expect(locked.status).to.equal(423);
      expect(((await locked.json()) as ErrorBody).errors).to.deep.equal([
        { message: 'Article "locked" is locked.', extensions: { title: 'locked', code: 'ARTICLE_LOCKED' } },
      ]);
      const crash = await write('crash');
      expect(crash.status).to.equal(500);
      expect(messages()).to.include('extension "article-rules" failed on items.create: answered 500');
      const rows = await ctx().server.db('articles').select('title').orderBy('id');
      expect(rows.map((row: { title: string }) => row.title)).to.deep.equal(['Hello World']);
    });

    it("init events run in Directus 10's order with the app, then server.start", async () => {
      const res = await ctx().api('/init-probe');
      expect(res.status).to.equal(200);
      const seen = ((await res.json()) as { data: { event: string }[] }).data;
      expect(seen.map((s) => s.event)).to.deep.equal([
        'app.before',
        'middlewares.before',
        'middlewares.after',
        'routes.before',
        'routes.custom.before',
        'routes.custom.after',
        'routes.after',
        'app.after',
        'server.start',
      ]);
      expect(seen.slice(0, -1).every((s) => (s as { hasApp?: boolean }).hasApp)).to.equal(true);
      expect(seen.at(-1)).to.deep.equal({ event: 'server.start', listening: true });
    });

    it("an extension's middleware sees the requests answered before Express elsewhere: item reads, writes and GraphQL", async () => {
      const json = { ...admin, 'Content-Type': 'application/json' };
      const answers = await Promise.all([
        ctx().api('/items/articles?fields=id,title', { headers: admin }),
        ctx().api('/items/articles', { method: 'POST', headers: json, body: JSON.stringify({ title: 'Probed' }) }),
        ctx().api('/graphql', {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ query: '{ articles { id } }' }),
        }),
      ]);
      expect(answers.map((res) => [res.status, res.headers.get('x-init-probe')])).to.deep.equal([
        [200, 'seen'],
        [200, 'seen'],
        [200, 'seen'],
      ]);
    });

    it('a failing extension is one error line naming it, and the rest still run', async () => {
      const failures = lines.filter((line) => line['level'] === 50 && String(line['msg']).includes('not loaded'));
      expect(failures.map((line) => String(line['msg']).replace(/ \(.*\)$/, ''))).to.have.members([
        'extension "bad-cron" not loaded: schedule "every now and then" is not a cron expression',
        'extension "directus-extension-broken" not loaded: BROKEN_API_KEY is not set',
      ]);
      expect(messages()).to.include(
        'extensions without an API part here, skipped: directus-extension-audit-bundle/audit-interface (interface), directus-extension-notes-display (display)',
      );
      expect((await ctx().api('/server/ping')).status).to.equal(200);
      expect((await ctx().api('/directus-extension-broken')).status).to.equal(404);
    });
  },
  {
    extensionsPath: FIXTURES,
    env: { GREETING: 'Grüß Gott' },
    logger: () => {
      lines = [];
      return capturingLogger(lines);
    },
  },
);

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
