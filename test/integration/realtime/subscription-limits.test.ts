import { expect } from 'chai';
import { createClient, type Client } from 'graphql-ws';
import { WebSocket } from 'ws';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { adminApi, createLiveFixture, EDITOR, socketUrl, TestSocket, type Message } from './sockets.js';

const isEvent = (uid: string) => (m: Message) => m['type'] === 'subscription' && m['uid'] === uid;

/**
 * One user holding thousands of subscriptions over many sockets slowed every delivery for
 * everyone: WEBSOCKETS_SUBSCRIPTION_USER_LIMIT bounds what one user (the public role: one
 * address) holds over all its connections, on both protocols, next to the per-socket
 * WEBSOCKETS_SUBSCRIPTION_LIMIT.
 */
describeEachDatabase(
  'realtime: subscriptions per user',
  (ctx) => {
    const sockets: TestSocket[] = [];
    const clients: Client[] = [];
    const authed = async (token: string) => {
      const socket = await TestSocket.open(socketUrl(ctx().server.url, '/websocket'), {
        Authorization: `Bearer ${token}`,
      });
      sockets.push(socket);
      return socket;
    };
    const subscribe = (socket: TestSocket, uid: string) =>
      socket.request({ type: 'subscribe', collection: 'notes', uid });

    before(async () => {
      await createLiveFixture(ctx());
    });
    afterEach(async () => {
      for (const socket of sockets.splice(0)) socket.close();
      await Promise.all(clients.splice(0).map((c) => c.dispose()));
    });

    it('the subscription past the user limit is LIMIT_EXCEEDED on any socket of the user, and on graphql-ws; the others still get their events', async () => {
      const first = await authed(EDITOR.token);
      for (const uid of ['a1', 'a2', 'a3']) expect((await subscribe(first, uid))['event']).to.equal('init');
      const second = await authed(EDITOR.token);
      for (const uid of ['b1', 'b2']) expect((await subscribe(second, uid))['event']).to.equal('init');
      expect(await subscribe(second, 'b3')).to.deep.equal({
        type: 'subscribe',
        status: 'error',
        error: { code: 'LIMIT_EXCEEDED', message: 'subscriptions limit exceeded.' },
        uid: 'b3',
      });
      // graphql-ws: the same user, the same count.
      const client = createClient({
        url: socketUrl(ctx().server.url, '/graphql'),
        webSocketImpl: WebSocket,
        connectionParams: { access_token: EDITOR.token },
        retryAttempts: 0,
        lazy: false,
        onNonLazyError: () => undefined,
      });
      clients.push(client);
      const refused = await new Promise<unknown>((resolve) => {
        const results: unknown[] = [];
        client.subscribe(
          { query: 'subscription { notes_mutated { key } }' },
          { next: (r) => results.push(r), error: resolve, complete: () => resolve(results) },
        );
      });
      expect(JSON.stringify(refused)).to.include('subscriptions limit exceeded');
      // Another user is not held back by the editor's count.
      const admin = await authed(TEST_ADMIN.token);
      expect((await subscribe(admin, 'x'))['event']).to.equal('init');
      // Every subscription held still gets its event.
      const note = await adminApi(ctx(), 'POST', '/items/notes', { title: 'limited', status: 'published' });
      for (const [socket, uids] of [
        [first, ['a1', 'a2', 'a3']],
        [second, ['b1', 'b2']],
        [admin, ['x']],
      ] as const)
        for (const uid of uids) expect((await socket.next(isEvent(uid)))['data'][0].id).to.equal(note.id);
      // An unsubscribe frees a place for the user on any of its sockets.
      first.send({ type: 'unsubscribe', uid: 'a1' });
      // A socket's messages are handled in order: the pong says the unsubscribe is done.
      expect(await first.request({ type: 'ping', uid: 'p' })).to.deep.equal({ type: 'pong', uid: 'p' });
      expect((await subscribe(second, 'b3'))['event']).to.equal('init');
      // The user holds 5 again (a2, a3, b1, b2, b3).
      const third = await authed(EDITOR.token);
      expect((await subscribe(third, 'c1'))['error'].code).to.equal('LIMIT_EXCEEDED');
      // A closed socket frees its places, once the server has seen it close.
      first.ws.close();
      await first.closed;
      let answer: Message = {};
      for (let i = 0; i < 50; i++) {
        answer = await subscribe(third, 'c1');
        if (answer['event'] === 'init') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(answer['event']).to.equal('init');
    });
  },
  {
    env: {
      WEBSOCKETS_ENABLED: 'true',
      WEBSOCKETS_SUBSCRIPTION_LIMIT: '3',
      WEBSOCKETS_SUBSCRIPTION_USER_LIMIT: '5',
    },
  },
);
