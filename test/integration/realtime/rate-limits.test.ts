import { expect } from 'chai';
import { createClient } from 'graphql-ws';
import { WebSocket } from 'ws';
import { sqliteTarget } from '../../support/services.js';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { createLiveFixture, EDITOR, socketUrl, TestSocket } from './sockets.js';

/** A client at `ip` (IP_TRUST_PROXY=true: X-Forwarded-For names it). */
const fromIp = (ip: string, token?: string): Record<string, string> => ({
  'X-Forwarded-For': ip,
  ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
});

/**
 * Directus 10 counts every WebSocket message against RATE_LIMITER_*: a socket was a way around
 * the limit (unlimited reads, writes and password guesses over one connection).
 */
describeEachDatabase(
  'realtime: socket messages count against RATE_LIMITER_*',
  (ctx) => {
    const sockets: TestSocket[] = [];
    const open = async (ip: string, token?: string) => {
      const socket = await TestSocket.open(socketUrl(ctx().server.url, '/websocket'), fromIp(ip, token));
      sockets.push(socket);
      return socket;
    };
    const http = (ip: string) => ctx().api('/server/info', { headers: fromIp(ip, TEST_ADMIN.token) });

    before(async () => {
      await createLiveFixture(ctx());
    });
    afterEach(() => {
      for (const socket of sockets.splice(0)) socket.close();
    });

    it('with the HTTP requests of their IP: past the points a message gets REQUESTS_EXCEEDED for its uid, and the socket lives on', async () => {
      // The upgrade is the first point, the ping the second, the request over HTTP the third.
      const socket = await open('10.9.0.1', TEST_ADMIN.token);
      for (const uid of ['p1'])
        expect(await socket.request({ type: 'ping', uid })).to.deep.equal({ type: 'pong', uid });
      expect((await http('10.9.0.1')).status).to.equal(200);
      const refused = await socket.request({ type: 'items', collection: 'notes', action: 'read', uid: 'r' });
      expect(refused).to.deep.include({ type: 'items', status: 'error', uid: 'r' });
      expect(refused['error'].code).to.equal('REQUESTS_EXCEEDED');
      expect((await http('10.9.0.1')).status).to.equal(429);
      const other = await open('10.9.0.2', TEST_ADMIN.token);
      expect(await other.request({ type: 'ping', uid: 'o' })).to.deep.equal({ type: 'pong', uid: 'o' });
      expect(socket.ws.readyState).to.equal(WebSocket.OPEN);
    });

    it('password guesses over a socket are limited too', async () => {
      // An authenticated socket (one point): a refused auth keeps it open (Directus 10: AUTH_FAILED).
      const socket = await open('10.9.0.3', TEST_ADMIN.token);
      const guess = (uid: string) =>
        socket.request({ type: 'auth', email: EDITOR.email, password: `guess ${uid}`, uid });
      for (const uid of ['g1', 'g2']) expect((await guess(uid))['error'].code).to.equal('AUTH_FAILED');
      expect((await guess('g3'))['error'].code).to.equal('REQUESTS_EXCEEDED');
    });

    it('an upgrade is a request: past the points it is refused with 429', async () => {
      for (let i = 0; i < 2; i++) expect((await http('10.9.0.5')).status).to.equal(200);
      const socket = await open('10.9.0.5', TEST_ADMIN.token);
      const refused = await open('10.9.0.5', TEST_ADMIN.token).catch((e: unknown) => e);
      expect(String(refused)).to.include('upgrade refused: 429');
      expect(socket.ws.readyState).to.equal(WebSocket.OPEN);
      expect((await open('10.9.0.6')).ws.readyState).to.equal(WebSocket.OPEN);
    });

    it('GraphQL subscribe messages count the same way', async () => {
      class FromIp extends WebSocket {
        constructor(url: string, protocols?: string | string[]) {
          super(url, protocols, { headers: fromIp('10.9.0.4') });
        }
      }
      const client = createClient({
        url: socketUrl(ctx().server.url, '/graphql'),
        webSocketImpl: FromIp,
        connectionParams: { access_token: TEST_ADMIN.token },
        retryAttempts: 0,
        // One connection (one upgrade, one point) for every subscribe.
        lazy: false,
        onNonLazyError: () => undefined,
      });
      const subscribe = () =>
        new Promise<unknown>((resolve) => {
          const stop = client.subscribe(
            { query: 'subscription { notes_mutated { key } }' },
            {
              next: () => undefined,
              error: resolve,
              complete: () => resolve(undefined),
            },
          );
          setTimeout(() => {
            stop();
            resolve('accepted');
          }, 300);
        });
      try {
        for (let i = 0; i < 2; i++) expect(await subscribe()).to.equal('accepted');
        const [error] = (await subscribe()) as readonly { extensions: { code: string } }[];
        expect(error?.extensions.code).to.equal('REQUESTS_EXCEEDED');
      } finally {
        await client.dispose();
      }
    });
  },
  {
    targets: [sqliteTarget],
    env: {
      WEBSOCKETS_ENABLED: 'true',
      RATE_LIMITER_ENABLED: 'true',
      RATE_LIMITER_POINTS: '3',
      RATE_LIMITER_DURATION: '600',
      IP_TRUST_PROXY: 'true',
    },
  },
);

/** Directus 10's WEBSOCKETS_REST_CONN_LIMIT and WEBSOCKETS_GRAPHQL_CONN_LIMIT: sockets open at once per endpoint. */
describeEachDatabase(
  'realtime: connection limits',
  (ctx) => {
    const opened: WebSocket[] = [];
    /** The status of an upgrade: 101 when opened (kept open), else the refusal's. */
    const upgrade = (path: string, protocol?: string) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(socketUrl(ctx().server.url, path), protocol, {
          headers: { Authorization: `Bearer ${TEST_ADMIN.token}` },
        });
        opened.push(ws);
        ws.once('open', () => resolve(101));
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('error', reject);
      });
    afterEach(() => {
      for (const ws of opened.splice(0)) ws.terminate();
    });

    it('past the limit an upgrade is refused with 403; a closed socket frees its place', async () => {
      expect(await upgrade('/websocket')).to.equal(101);
      expect(await upgrade('/websocket')).to.equal(101);
      expect(await upgrade('/websocket')).to.equal(403);
      // Each endpoint counts its own: graphql-ws (both paths together) has one place.
      expect(await upgrade('/graphql', 'graphql-transport-ws')).to.equal(101);
      expect(await upgrade('/graphql/system', 'graphql-transport-ws')).to.equal(403);
      const closed = new Promise((resolve) => opened[0]?.once('close', resolve));
      opened[0]?.close();
      await closed;
      // The server learns of the close a moment after the client: ask until it has.
      let status = 0;
      for (let i = 0; i < 50 && status !== 101; i++) {
        status = await upgrade('/websocket');
        if (status !== 101) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(status).to.equal(101);
    });
  },
  {
    targets: [sqliteTarget],
    env: { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_REST_CONN_LIMIT: '2', WEBSOCKETS_GRAPHQL_CONN_LIMIT: '1' },
  },
);
