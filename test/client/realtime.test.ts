import { expect } from 'chai';
import { WebSocket } from 'ws';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ContentClient,
  type PresenceUser,
  type WebSocketConstructor,
  type WebSocketLike,
} from '../../src/client/index.js';
import { describeEachDatabase, TEST_ADMIN } from '../support/server.js';
import { TEST_REDIS_URL } from '../support/services.js';
import { adminClient, SQLITE_ONLY } from './support.js';

/** `ws` sockets, remembered so a test can cut them as a network would. */
function recordingSockets(): {
  WebSocket: WebSocketConstructor;
  opened: WebSocketLike[];
  received: Record<string, unknown>[];
} {
  const opened: WebSocketLike[] = [];
  const received: Record<string, unknown>[] = [];
  class Recording extends WebSocket {
    constructor(url: string) {
      super(url);
      opened.push(this as unknown as WebSocketLike);
      this.on('message', (data) => received.push(JSON.parse(String(data)) as Record<string, unknown>));
    }
  }
  return { WebSocket: Recording as unknown as WebSocketConstructor, opened, received };
}

describeEachDatabase(
  'client realtime',
  (ctx) => {
    let client: ContentClient<{ notes: { id: number; title: string } }>;

    before(async () => {
      client = (await adminClient(ctx())) as typeof client;
      await client.collections.createOne({
        collection: 'notes',
        schema: {},
        meta: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'title', type: 'string' },
        ],
      });
    });

    it('subscribe(collection, query) iterates init, then the changes, and reconnects after a cut', async () => {
      const sockets = recordingSockets();
      const live = client.realtime({ WebSocket: sockets.WebSocket, initialDelayMs: 20 });
      const subscription = live.subscribe('notes', { fields: ['title'] });
      expect((await subscription.next()).value).to.deep.equal({ event: 'init', data: [] });
      await client.items('notes').createOne({ title: 'first' });
      expect((await subscription.next()).value).to.deep.equal({ event: 'create', data: [{ title: 'first' }] });

      sockets.opened[0]?.close();
      // Subscribed again on the new socket: its init shows the current items.
      expect((await subscription.next()).value).to.deep.equal({ event: 'init', data: [{ title: 'first' }] });
      expect(sockets.opened).to.have.length(2);
      await client.items('notes').createOne({ title: 'second' });
      expect((await subscription.next()).value).to.deep.equal({ event: 'create', data: [{ title: 'second' }] });
      subscription.unsubscribe();
      expect(await subscription.next()).to.deep.equal({ value: undefined, done: true });
      live.close();
    });

    it('presence(collection, item) iterates who has the item open, joins again after a cut, and leaves', async () => {
      const note = await client.items('notes').createOne({ title: 'shared' });
      const id = String((note as { id: number }).id);
      const me = (await client.users.me.read({ fields: ['id'] })) as { id: string };
      const sockets = recordingSockets();
      const live = client.realtime({ WebSocket: sockets.WebSocket, initialDelayMs: 20 });
      const watch = live.presence('notes', id);
      const first: readonly PresenceUser[] = (await watch.next()).value ?? [];
      expect(first.map((u) => u.id)).to.deep.equal([me.id]);
      expect(first[0]).to.have.all.keys('id', 'first_name', 'last_name');
      const other = client.realtime({ WebSocket: recordingSockets().WebSocket });
      const second = other.presence('notes', id);
      await second.next();
      // The same user twice (two tabs) is one.
      expect((await watch.next()).value).to.have.length(1);
      sockets.opened[0]?.close();
      expect((await watch.next()).value).to.have.length(1);
      expect(sockets.opened).to.have.length(2);
      watch.leave();
      expect(await watch.next()).to.deep.equal({ value: undefined, done: true });
      live.close();
      other.close();
    });

    it('a refused subscription rejects its iterator with the code', async () => {
      const live = client.realtime({ WebSocket: recordingSockets().WebSocket });
      const subscription = live.subscribe('no_such_collection');
      let error: unknown;
      try {
        await subscription.next();
      } catch (e) {
        error = e;
      }
      expect(String(error)).to.contain('FORBIDDEN');
      live.close();
    });

    it('a token the server refuses rejects every subscription with the code, and does not reconnect', async () => {
      const sockets = recordingSockets();
      const stranger = new ContentClient(ctx().server.url, { auth: { staticToken: 'not-a-token' } });
      const live = stranger.realtime({ WebSocket: sockets.WebSocket, initialDelayMs: 20 });
      const outcomes = await Promise.all(
        [live.subscribe('notes'), live.subscribe('notes', { fields: ['title'] })].map((subscription) =>
          Promise.race([
            subscription.next().then(
              () => 'answered',
              (error: unknown) => String(error),
            ),
            sleep(3000).then(() => 'no answer within 3 s'),
          ]),
        ),
      );
      expect(outcomes).to.deep.equal([
        'Error: AUTH_FAILED: Authentication handshake failed.',
        'Error: AUTH_FAILED: Authentication handshake failed.',
      ]);
      await sleep(200);
      expect(sockets.opened).to.have.length(1);
      live.close();
    });
  },
  { ...SQLITE_ONLY, env: { WEBSOCKETS_ENABLED: 'true' } },
);

describeEachDatabase(
  'client realtime, a token expiring on an open socket',
  (ctx) => {
    it('renews the token in place when the server says TOKEN_EXPIRED: the socket and its subscription go on', async () => {
      const client = await adminClient(ctx(), { auth: { msRefreshBeforeExpires: 500 } });
      await client.collections.createOne({
        collection: 'notes',
        schema: {},
        meta: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'title', type: 'string' },
        ],
      });
      const sockets = recordingSockets();
      const live = client.realtime({ WebSocket: sockets.WebSocket, initialDelayMs: 20 });
      const subscription = live.subscribe('notes', { fields: ['title'] });
      expect((await subscription.next()).value).to.deep.equal({ event: 'init', data: [] });
      // ACCESS_TOKEN_TTL is 2 s: then the server says TOKEN_EXPIRED and waits (up to 3 s) for a
      // new token, telling no change meanwhile; the client renews it and sends it.
      const isAuth = (status: string) => (m: Record<string, unknown>) => m['type'] === 'auth' && m['status'] === status;
      const renewed = () => {
        const expired = sockets.received.findIndex(isAuth('error'));
        return expired >= 0 && sockets.received.slice(expired).some(isAuth('ok'));
      };
      for (const until = Date.now() + 10_000; !renewed(); await sleep(20))
        if (Date.now() > until)
          expect.fail(`no renewed token after TOKEN_EXPIRED: ${JSON.stringify(sockets.received)}`);
      expect(sockets.received.find(isAuth('error'))).to.deep.nested.include({ 'error.code': 'TOKEN_EXPIRED' });
      // Written with the static token: the client's POSTs do not refresh (the SDK's rule).
      const written = await ctx().api('/items/notes', {
        method: 'POST',
        headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'after expiry' }),
      });
      expect(written.status).to.equal(200);
      expect((await subscription.next()).value).to.deep.equal({ event: 'create', data: [{ title: 'after expiry' }] });
      expect(sockets.opened).to.have.length(1);
      live.close();
    });
  },
  { ...SQLITE_ONLY, env: { WEBSOCKETS_ENABLED: 'true', ACCESS_TOKEN_TTL: '2s', WEBSOCKETS_REST_AUTH_TIMEOUT: '3' } },
);

describeEachDatabase(
  'client realtime through Redis, a subscription resuming',
  (ctx) => {
    it('after a cut it resumes after the last change it saw: what was written meanwhile comes next, no init, nothing twice', async () => {
      const client = (await adminClient(ctx())) as ContentClient<{ notes: { id: number; title: string } }>;
      await client.collections.createOne({
        collection: 'notes',
        schema: {},
        meta: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'title', type: 'string' },
        ],
      });
      // Sockets that cannot connect while `isAway` (a refused port): the writes below land meanwhile.
      let isAway = false;
      const opened: WebSocketLike[] = [];
      class Gated extends WebSocket {
        constructor(url: string) {
          super(isAway ? 'ws://127.0.0.1:1/' : url);
          if (!isAway) opened.push(this as unknown as WebSocketLike);
        }
      }
      const live = client.realtime({
        WebSocket: Gated as unknown as WebSocketConstructor,
        initialDelayMs: 20,
        maxDelayMs: 200,
      });
      const subscription = live.subscribe('notes', { fields: ['title'] });
      expect((await subscription.next()).value).to.deep.equal({ event: 'init', data: [] });
      await client.items('notes').createOne({ title: 'first' });
      expect((await subscription.next()).value).to.deep.equal({ event: 'create', data: [{ title: 'first' }] });

      isAway = true;
      opened[0]?.close();
      await client.items('notes').createOne({ title: 'while away 1' });
      await client.items('notes').updateOne(1, { title: 'first, renamed while away' });
      await client.items('notes').createOne({ title: 'while away 2' });
      isAway = false;
      const next = async () => (await subscription.next()).value;
      expect(await next()).to.deep.equal({ event: 'create', data: [{ title: 'while away 1' }] });
      expect(opened, 'a new socket').to.have.length(2);
      expect(await next()).to.deep.equal({ event: 'update', data: [{ title: 'first, renamed while away' }] });
      expect(await next()).to.deep.equal({ event: 'create', data: [{ title: 'while away 2' }] });
      await client.items('notes').createOne({ title: 'after' });
      expect(await next(), 'then the live changes, none twice').to.deep.equal({
        event: 'create',
        data: [{ title: 'after' }],
      });
      subscription.unsubscribe();
      live.close();
    });
  },
  { ...SQLITE_ONLY, env: { WEBSOCKETS_ENABLED: 'true', REDIS: TEST_REDIS_URL } },
);
