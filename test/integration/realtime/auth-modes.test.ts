import { expect } from 'chai';
import { WebSocket } from 'ws';
import { DATABASE_TARGETS } from '../../support/services.js';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { adminApi, createLiveFixture, EDITOR, socketUrl, TestSocket, type Message } from './sockets.js';

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

    it('an expired token is TOKEN_EXPIRED, then without a new auth the socket goes on as the public role', async () => {
      const login = await ctx().api('/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: TEST_ADMIN.email, password: TEST_ADMIN.password }),
      });
      const { access_token } = ((await login.json()) as { data: { access_token: string } }).data;
      const socket = await TestSocket.open(socketUrl(ctx().server.url, '/websocket'));
      expect(await socket.request({ type: 'auth', access_token, uid: 'a' })).to.include({ status: 'ok' });
      const users = { type: 'items', collection: 'svc_users', action: 'read', query: { fields: ['id'] } };
      expect((await socket.request({ ...users, uid: 'u1' }))['data']).to.have.length.above(0);
      const expired = await socket.next((m) => m['type'] === 'auth', 3000);
      expect(expired['error'].code).to.equal('TOKEN_EXPIRED');
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect((await socket.request({ ...users, uid: 'u2' }))['error'].code).to.equal('FORBIDDEN');
      const board = await socket.request({ type: 'items', collection: 'board', action: 'read', uid: 'b' });
      expect(board['data']).to.be.an('array');
      socket.close();
    });
  },
  {
    targets: SQLITE,
    env: {
      WEBSOCKETS_ENABLED: 'true',
      WEBSOCKETS_REST_AUTH: 'public',
      ACCESS_TOKEN_TTL: '1s',
      WEBSOCKETS_REST_AUTH_TIMEOUT: '500ms',
    },
  },
);

describeEachDatabase(
  'realtime: a token that expires on an open socket (Directus 10)',
  (ctx) => {
    const login = async () => {
      const res = await ctx().api('/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: EDITOR.email, password: EDITOR.password }),
      });
      return ((await res.json()) as { data: { access_token: string; refresh_token: string } }).data;
    };
    const isExpired = (m: Message) => m['type'] === 'auth' && m['status'] === 'error';

    before(async () => {
      await createLiveFixture(ctx());
    });

    it('is told at once with TOKEN_EXPIRED; an auth in time keeps the socket and its subscriptions', async () => {
      const tokens = await login();
      const socket = await TestSocket.open(socketUrl(ctx().server.url, '/websocket'));
      await socket.request({ type: 'auth', access_token: tokens.access_token, uid: 'a' });
      expect(await socket.request({ type: 'subscribe', collection: 'notes', uid: 's' })).to.include({ event: 'init' });
      // Nothing changes meanwhile: the server says so itself when the token expires.
      expect((await socket.next(isExpired, 3000))['error'].code).to.equal('TOKEN_EXPIRED');
      const renewed = await socket.request({ type: 'auth', refresh_token: tokens.refresh_token, uid: 'r' });
      expect(renewed).to.include({ type: 'auth', status: 'ok' });
      const note = await adminApi(ctx(), 'POST', '/items/notes', { title: 'after renewal', status: 'published' });
      const event = await socket.next((m) => m['uid'] === 's');
      expect(event).to.deep.include({
        event: 'create',
        data: [{ id: note.id, title: 'after renewal', status: 'published' }],
      });
      expect(socket.ws.readyState).to.equal(WebSocket.OPEN);
      socket.close();
    });

    it('without a new auth in time the socket closes, and it never got the changes of no one', async () => {
      // Signed in first: a login on a busy machine can outlast the socket's time to authenticate.
      const tokens = await login();
      const socket = await TestSocket.open(socketUrl(ctx().server.url, '/websocket'));
      await socket.request({ type: 'auth', access_token: tokens.access_token, uid: 'a' });
      await socket.request({ type: 'subscribe', collection: 'notes', uid: 's' });
      await socket.next(isExpired, 3000);
      await adminApi(ctx(), 'POST', '/items/notes', { title: 'while expired', status: 'published' });
      expect((await socket.closed).code).to.equal(1008);
      expect(socket.pending.filter((m) => m['uid'] === 's')).to.deep.equal([]);
    });
  },
  { env: { WEBSOCKETS_ENABLED: 'true', ACCESS_TOKEN_TTL: '2s', WEBSOCKETS_REST_AUTH_TIMEOUT: '1500ms' } },
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
