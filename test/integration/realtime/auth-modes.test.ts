import { expect } from 'chai';
import { DATABASE_TARGETS } from '../../support/services.js';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { adminApi, socketUrl, TestSocket } from './sockets.js';

const SQLITE = DATABASE_TARGETS.filter((t) => t.dialect === 'sqlite');

describeEachDatabase(
  'realtime: WEBSOCKETS_REST_AUTH=public',
  (ctx) => {
    before(async () => {
      const { db } = ctx().server;
      await db.schema.createTable('board', (t) => {
        t.increments('id').primary();
        t.string('title', 100);
        t.string('owner', 100);
      });
      await db('svc_permissions').insert({ role: null, collection: 'board', action: 'read', fields: 'id,title' });
      await ctx().server.schema.invalidate();
    });

    it('a socket without a token is the public role: its fields, and nothing it may not read', async () => {
      const socket = await TestSocket.open(socketUrl(ctx().server.url, '/websocket'));
      const init = await socket.request({ type: 'subscribe', collection: 'board', uid: 'b' });
      expect(init).to.include({ event: 'init' });
      await adminApi(ctx(), 'POST', '/items/board', { title: 'open', owner: 'someone' });
      const event = await socket.next((m) => m['uid'] === 'b');
      expect(event['data']).to.have.length(1);
      expect(event['data'][0]).to.have.keys(['id', 'title']);
      const users = await socket.request({ type: 'subscribe', collection: 'svc_users', uid: 'u' });
      expect(users['error'].code).to.equal('FORBIDDEN');
      const write = await socket.request({
        type: 'items',
        collection: 'board',
        action: 'create',
        data: { title: 'x' },
        uid: 'w',
      });
      expect(write['error'].code).to.equal('FORBIDDEN');
      socket.close();
    });
  },
  { targets: SQLITE, env: { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_REST_AUTH: 'public' } },
);

/** /server/info's `websocket` as an authenticated caller sees it, and GraphQL's boolean of it. */
async function websocketInfo(api: (path: string, init?: RequestInit) => Promise<Response>) {
  const info = (await (await api(`/server/info?access_token=${TEST_ADMIN.token}`)).json()) as {
    data: Record<string, unknown>;
  };
  const graphql = (await (
    await api(`/graphql/system?access_token=${TEST_ADMIN.token}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: '{ server_info { websocket } }' }),
    })
  ).json()) as { data: { server_info: { websocket: boolean } } };
  return { rest: info.data['websocket'], graphql: graphql.data.server_info.websocket };
}

describeEachDatabase(
  'realtime: WEBSOCKETS_REST_AUTH=strict, WEBSOCKETS_GRAPHQL_ENABLED=false',
  (ctx) => {
    it('refuses an upgrade without a token (401), accepts one with it; no graphql-ws endpoint', async () => {
      const refusal = await TestSocket.open(socketUrl(ctx().server.url, '/websocket')).catch((e: unknown) => e);
      expect(String(refusal)).to.contain('401');
      const socket = await TestSocket.open(socketUrl(ctx().server.url, '/websocket'), {
        authorization: `Bearer ${TEST_ADMIN.token}`,
      });
      expect(await socket.request({ type: 'ping', uid: 'p' })).to.deep.equal({ type: 'pong', uid: 'p' });
      socket.close();
      const graphql = await TestSocket.open(socketUrl(ctx().server.url, '/graphql')).catch((e: unknown) => e);
      expect(String(graphql)).to.contain('404');
    });

    it('/server/info says where each endpoint is and how it authenticates (Directus 10)', async () => {
      expect(await websocketInfo(ctx().api)).to.deep.equal({
        rest: { rest: { authentication: 'strict', path: '/websocket' }, graphql: false, heartbeat: 30 },
        graphql: true,
      });
    });
  },
  {
    targets: SQLITE,
    env: { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_REST_AUTH: 'strict', WEBSOCKETS_GRAPHQL_ENABLED: 'false' },
  },
);

describeEachDatabase(
  'realtime: WEBSOCKETS_ENABLED unset',
  (ctx) => {
    it('no WebSocket endpoint answers', async () => {
      const refusal = await TestSocket.open(socketUrl(ctx().server.url, '/websocket')).catch((e: unknown) => e);
      expect(refusal).to.be.instanceOf(Error);
      expect(await (await ctx().api('/server/ping')).text()).to.equal('pong');
    });

    it('/server/info says websocket: false', async () => {
      expect(await websocketInfo(ctx().api)).to.deep.equal({ rest: false, graphql: false });
    });
  },
  { targets: SQLITE },
);
