import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createLogger } from '../../../src/logger/index.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { describeEachDatabase, testConfig, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { sqliteTarget } from '../../support/services.js';
import { createRole, createUser, expectOnlyError, postJson } from '../auth/helpers.js';

/**
 * The caller IP (src/http/client-ip.ts) decides role ip_access, the rate limiters and the `ip`
 * of activity and sessions, the same way before Express (fast path) and in it. The service's
 * address handling does not depend on the database: SQLite only.
 */

type Api = ServerContext['api'];

const COLLECTION = 'ip_notes';
const ALLOWED = '10.9.9.9';
const admin = { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' };

interface Setup {
  /** The same database through Express only (fastPath: false). */
  readonly viaExpress: RunningServer;
  /** A static token of a role whose ip_access is 10.9.9.9 only. */
  readonly limitedToken: string;
}

/** A collection to write to, a role limited to ALLOWED, and a second server without the fast path. */
function setUp(ctx: () => ServerContext, env: Record<string, string>): () => Setup {
  let setup: Setup | undefined;
  before(async () => {
    const c = ctx();
    const res = await c.api('/collections', {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ collection: COLLECTION, schema: {}, fields: [{ field: 'note', type: 'string' }] }),
    });
    expect(res.status, await res.text()).to.equal(200);
    const role = await createRole(c.server.db, { ip_access: ALLOWED, admin_access: true });
    const limitedToken = `ip-limited-${randomUUID()}`;
    await createUser(c.server.db, { role, token: limitedToken });
    const viaExpress = await startServer(testConfig(c.database, env), {
      logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
      fastPath: false,
    });
    setup = { viaExpress, limitedToken };
  });
  after(async () => {
    await setup?.viaExpress.close();
  });
  return () => {
    if (setup === undefined) throw new Error('not set up');
    return setup;
  };
}

/** Both doors: the server's own (plain item writes before Express) and Express only. */
function doors(ctx: () => ServerContext, setup: () => Setup): [string, Api][] {
  return [
    ['fast path', (path, init) => ctx().api(path, init)],
    ['Express', (path, init) => fetch(setup().viaExpress.url + path, init)],
  ];
}

/** A plain item write as the ip-limited role, claiming `headers`; its status. */
async function limitedWrite(api: Api, token: string, headers: Record<string, string>): Promise<Response> {
  return api(`/items/${COLLECTION}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ note: `limited ${randomUUID()}` }),
  });
}

/** Writes an item as admin with `headers` through `api`, and returns the `ip` its activity row got. */
async function journaledIp(ctx: () => ServerContext, api: Api, headers: Record<string, string>): Promise<unknown> {
  const note = `journaled ${randomUUID()}`;
  const res = await api(`/items/${COLLECTION}`, {
    method: 'POST',
    headers: { ...admin, ...headers },
    body: JSON.stringify({ note }),
  });
  expect(res.status, await res.text()).to.equal(200);
  const [item] = await ctx().server.db(COLLECTION).where('note', note).pluck('id');
  const rows = await ctx()
    .server.db('svc_activity')
    .where({ collection: COLLECTION, item: String(item), action: 'create' })
    .pluck('ip');
  expect(rows).to.have.length(1);
  return rows[0];
}

async function notesWritten(ctx: () => ServerContext): Promise<number> {
  const [row] = await ctx().server.db(COLLECTION).where('note', 'like', 'limited %').count({ n: '*' });
  return Number(row?.['n']);
}

const LOCAL = ['127.0.0.1', '::ffff:127.0.0.1'];

describeEachDatabase(
  'caller IP by default (IP_TRUST_PROXY=false): X-Forwarded-For is ignored',
  (ctx) => {
    const setup = setUp(ctx, {});

    for (const [door, api] of doors(ctx, setup)) {
      it(`${door}: a role limited to ${ALLOWED} is refused directly and with X-Forwarded-For: ${ALLOWED}`, async () => {
        const before = await notesWritten(ctx);
        await expectOnlyError(await limitedWrite(api, setup().limitedToken, {}), 401, 'INVALID_IP');
        await expectOnlyError(
          await limitedWrite(api, setup().limitedToken, { 'X-Forwarded-For': ALLOWED }),
          401,
          'INVALID_IP',
        );
        await expectOnlyError(
          await limitedWrite(api, setup().limitedToken, { 'X-Forwarded-For': `1.2.3.4, ${ALLOWED}` }),
          401,
          'INVALID_IP',
        );
        expect(await notesWritten(ctx), 'nothing written').to.equal(before);
      });

      it(`${door}: the activity ip is the socket's peer, whatever the headers claim`, async () => {
        expect(await journaledIp(ctx, api, { 'X-Forwarded-For': ALLOWED, 'X-Real-IP': ALLOWED })).to.be.oneOf(LOCAL);
      });
    }

    it("a login's session and activity record the peer, not the header", async () => {
      const user = await createUser(ctx().server.db);
      const res = await postJson(
        ctx().api,
        '/auth/login',
        { email: user.email, password: user.password },
        { 'X-Forwarded-For': ALLOWED },
      );
      expect(res.status).to.equal(200);
      expect(await ctx().server.db('svc_sessions').where('user', user.id).pluck('ip')).to.satisfy(
        (ips: unknown[]) => ips.length === 1 && LOCAL.includes(ips[0] as string),
      );
      expect(await ctx().server.db('svc_activity').where({ action: 'login', item: user.id }).pluck('ip')).to.satisfy(
        (ips: unknown[]) => ips.length === 1 && LOCAL.includes(ips[0] as string),
      );
    });

    it('the registration limiter counts the peer: rotating X-Forwarded-For does not bypass it', async () => {
      await ctx()
        .server.db('svc_settings')
        .update({ public_registration: true, public_registration_verify_email: false, public_registration_role: null });
      const register = (i: number) =>
        postJson(
          ctx().api,
          '/users/register',
          { email: `rotating-${randomUUID().slice(0, 8)}@example.com`, password: 'a-password-1' },
          { 'X-Forwarded-For': `198.51.100.${i}` },
        );
      for (let i = 1; i <= 2; i++) expect((await register(i)).status).to.equal(204);
      await expectOnlyError(await register(3), 429, 'REQUESTS_EXCEEDED');
      await expectOnlyError(await register(4), 429, 'REQUESTS_EXCEEDED');
      const [row] = await ctx().server.db('svc_users').where('email', 'like', 'rotating-%').count({ n: '*' });
      expect(Number(row?.['n']), 'the refused attempts wrote nothing').to.equal(2);
    });
  },
  {
    targets: [sqliteTarget],
    env: { LOGIN_STALL_TIME: '0', RATE_LIMITER_REGISTRATION_POINTS: '2', RATE_LIMITER_REGISTRATION_DURATION: '60' },
  },
);

const HOPS = { IP_TRUST_PROXY: '2' };

describeEachDatabase(
  'caller IP with IP_TRUST_PROXY=2 (hops)',
  (ctx) => {
    const setup = setUp(ctx, HOPS);

    for (const [door, api] of doors(ctx, setup)) {
      it(`${door}: the address two hops away is the client; what the client wrote before it is not`, async () => {
        const before = await notesWritten(ctx);
        expect(
          (await limitedWrite(api, setup().limitedToken, { 'X-Forwarded-For': `6.6.6.6, ${ALLOWED}, 192.0.2.1` }))
            .status,
        ).to.equal(200);
        await expectOnlyError(
          await limitedWrite(api, setup().limitedToken, { 'X-Forwarded-For': `${ALLOWED}, 6.6.6.6, 192.0.2.1` }),
          401,
          'INVALID_IP',
        );
        expect(await notesWritten(ctx)).to.equal(before + 1);
        expect(await journaledIp(ctx, api, { 'X-Forwarded-For': `6.6.6.6, 203.0.113.5, 192.0.2.1` })).to.equal(
          '203.0.113.5',
        );
      });
    }
  },
  { targets: [sqliteTarget], env: HOPS },
);

const PROXIES = {
  IP_TRUST_PROXY: 'loopback,192.0.2.0/24',
  IP_CUSTOM_HEADER: 'X-Real-IP',
  LOGIN_STALL_TIME: '0',
  RATE_LIMITER_REGISTRATION_POINTS: '2',
  RATE_LIMITER_REGISTRATION_DURATION: '60',
};

describeEachDatabase(
  'caller IP with IP_TRUST_PROXY as a list of proxies, and IP_CUSTOM_HEADER',
  (ctx) => {
    const setup = setUp(ctx, PROXIES);

    for (const [door, api] of doors(ctx, setup)) {
      it(`${door}: past the listed proxies, the first other address is the client`, async () => {
        expect(
          (await limitedWrite(api, setup().limitedToken, { 'X-Forwarded-For': `6.6.6.6, ${ALLOWED}, 192.0.2.1` }))
            .status,
        ).to.equal(200);
        await expectOnlyError(
          await limitedWrite(api, setup().limitedToken, { 'X-Forwarded-For': `${ALLOWED}, 198.51.100.1` }),
          401,
          'INVALID_IP',
        );
        expect(await journaledIp(ctx, api, { 'X-Forwarded-For': `${ALLOWED}, 198.51.100.1, 192.0.2.9` })).to.equal(
          '198.51.100.1',
        );
      });

      it(`${door}: a trusted proxy's IP_CUSTOM_HEADER names the client`, async () => {
        expect(
          (await limitedWrite(api, setup().limitedToken, { 'X-Real-IP': ALLOWED, 'X-Forwarded-For': '6.6.6.6' }))
            .status,
        ).to.equal(200);
        expect(await journaledIp(ctx, api, { 'X-Real-IP': '203.0.113.8' })).to.equal('203.0.113.8');
      });
    }

    it('the registration limiter counts the address the trusted proxies saw, not what the client wrote', async () => {
      await ctx()
        .server.db('svc_settings')
        .update({ public_registration: true, public_registration_verify_email: false, public_registration_role: null });
      const register = (i: number) =>
        postJson(
          ctx().api,
          '/users/register',
          { email: `behind-proxy-${randomUUID().slice(0, 8)}@example.com`, password: 'a-password-1' },
          { 'X-Forwarded-For': `10.0.0.${i}, 198.51.100.77, 192.0.2.1` },
        );
      for (let i = 1; i <= 2; i++) expect((await register(i)).status).to.equal(204);
      await expectOnlyError(await register(3), 429, 'REQUESTS_EXCEEDED');
      const [row] = await ctx().server.db('svc_users').where('email', 'like', 'behind-proxy-%').count({ n: '*' });
      expect(Number(row?.['n'])).to.equal(2);
    });
  },
  { targets: [sqliteTarget], env: PROXIES },
);
