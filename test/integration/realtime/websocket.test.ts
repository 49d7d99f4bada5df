import { expect } from 'chai';
import { describeEachDatabase, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { adminApi, createLiveFixture, EDITOR, metricGauge, socketUrl, TestSocket, type Message } from './sockets.js';

const isEvent = (uid: string, event?: string) => (m: Message) =>
  m['type'] === 'subscription' && m['uid'] === uid && (event === undefined || m['event'] === event);

describeEachDatabase(
  'realtime: the WebSocket protocol',
  (ctx) => {
    let editorRole: string;
    const sockets: TestSocket[] = [];
    const open = async (query = '') => {
      const socket = await TestSocket.open(socketUrl(ctx().server.url, `/websocket${query}`));
      sockets.push(socket);
      return socket;
    };
    const authed = async (token = TEST_ADMIN.token) => {
      const socket = await open();
      expect(await socket.request({ type: 'auth', access_token: token, uid: 'a' })).to.include({
        type: 'auth',
        status: 'ok',
      });
      return socket;
    };

    before(async () => {
      editorRole = await createLiveFixture(ctx());
    });
    afterEach(() => {
      for (const socket of sockets.splice(0)) socket.close();
    });
    /** A count the server tells at GET /server/metrics. */
    const gauge = (name: string) => metricGauge(ctx().server.url, TEST_ADMIN.token, name);
    const openSockets = () => gauge('svc_websocket_connections');

    it('delivers create, update and delete of REST writes with the subscribed fields', async () => {
      const socket = await authed();
      const init = await socket.request({
        type: 'subscribe',
        collection: 'notes',
        query: { fields: ['id', 'title'] },
        uid: 's1',
      });
      expect(init).to.deep.include({ type: 'subscription', event: 'init', uid: 's1' });
      const created = await adminApi(ctx(), 'POST', '/items/notes', { title: 'one', body: 'b' });
      expect(await socket.next(isEvent('s1'))).to.deep.equal({
        type: 'subscription',
        event: 'create',
        data: [{ id: created.id, title: 'one' }],
        uid: 's1',
      });
      await adminApi(ctx(), 'PATCH', `/items/notes/${created.id}`, { title: 'two' });
      expect((await socket.next(isEvent('s1'))).data).to.deep.equal([{ id: created.id, title: 'two' }]);
      await adminApi(ctx(), 'DELETE', `/items/notes/${created.id}`);
      expect(await socket.next(isEvent('s1'))).to.deep.include({ event: 'delete', data: [created.id] });
    });

    it('sends only the events of the subscribed kind, and stops after unsubscribe', async () => {
      const socket = await authed();
      await socket.request({ type: 'subscribe', collection: 'notes', event: 'update', uid: 'u' });
      const note = await adminApi(ctx(), 'POST', '/items/notes', { title: 'kinds' });
      await adminApi(ctx(), 'PATCH', `/items/notes/${note.id}`, { title: 'kinds 2' });
      const update = await socket.next(isEvent('u'));
      expect(update['event']).to.equal('update');
      expect(socket.pending).to.have.length(0);
      socket.send({ type: 'unsubscribe', uid: 'u' });
      await socket.request({ type: 'subscribe', collection: 'notes', event: 'delete', uid: 'd' });
      await adminApi(ctx(), 'PATCH', `/items/notes/${note.id}`, { title: 'kinds 3' });
      await adminApi(ctx(), 'DELETE', `/items/notes/${note.id}`);
      expect(await socket.next(isEvent('d'))).to.deep.include({ event: 'delete', data: [note.id] });
      expect(socket.pending.filter(isEvent('u'))).to.have.length(0);
    });

    it("applies the subscriber's row filter and field permissions at delivery, and a permission change at once", async () => {
      const socket = await authed(EDITOR.token);
      await socket.request({ type: 'subscribe', collection: 'notes', query: { fields: ['*'] }, uid: 'e' });
      await adminApi(ctx(), 'POST', '/items/notes', { title: 'hidden draft', body: 'x' });
      const published = await adminApi(ctx(), 'POST', '/items/notes', {
        title: 'visible',
        status: 'published',
        body: 'x',
      });
      // The draft never arrives: the first event is the published note, without `body`.
      expect((await socket.next(isEvent('e'))).data).to.deep.equal([
        { id: published.id, title: 'visible', status: 'published' },
      ]);
      await adminApi(ctx(), 'PATCH', '/permissions/' + (await readPermissionId(ctx(), editorRole)), {
        fields: 'id',
      });
      await adminApi(ctx(), 'PATCH', `/items/notes/${published.id}`, { title: 'renamed' });
      expect((await socket.next(isEvent('e'))).data).to.deep.equal([{ id: published.id }]);
    });

    it('an item written over the socket is an event for its subscribers', async () => {
      const writer = await authed();
      const reader = await authed();
      await reader.request({ type: 'subscribe', collection: 'notes', query: { fields: ['title'] }, uid: 'r' });
      const created = await writer.request({
        type: 'items',
        collection: 'notes',
        action: 'create',
        data: { title: 'socket write' },
        uid: 'w',
      });
      expect(created).to.deep.include({ type: 'items', uid: 'w' });
      expect(created['data']).to.include({ title: 'socket write' });
      expect((await reader.next(isEvent('r', 'create'))).data).to.deep.equal([{ title: 'socket write' }]);
      const read = await writer.request({
        type: 'items',
        collection: 'notes',
        action: 'read',
        id: created['data'].id,
        query: { fields: ['id', 'title'] },
        uid: 'r2',
      });
      expect(read['data']).to.deep.equal({ id: created['data'].id, title: 'socket write' });
    });

    it('items: read of an id is the item (FORBIDDEN when missing); update and delete need id, ids or query (Directus 10)', async () => {
      const socket = await authed();
      const { db } = ctx().server;
      const ids = await Promise.all(
        ['keep 1', 'keep 2', 'keep 3'].map(
          async (title) => (await adminApi(ctx(), 'POST', '/items/notes', { title })).id,
        ),
      );
      const count = async () => Number((await db('notes').count<{ n: number }[]>({ n: '*' }))[0]?.n);
      const before = await count();
      const missing = await socket.request({
        type: 'items',
        collection: 'notes',
        action: 'read',
        id: 999999,
        uid: 'm',
      });
      expect(missing).to.deep.include({ type: 'items', status: 'error' });
      expect(missing['error'].code).to.equal('FORBIDDEN');
      const many = await socket.request({
        type: 'items',
        collection: 'notes',
        action: 'read',
        ids: ids.slice(0, 2),
        query: { fields: ['title'] },
        uid: 'ids',
      });
      expect(many['data']).to.deep.equal([{ title: 'keep 1' }, { title: 'keep 2' }]);
      // No selection: refused, not applied to every item the default limit reaches.
      for (const action of ['delete', 'update']) {
        const refused = await socket.request({
          type: 'items',
          collection: 'notes',
          action,
          ...(action === 'update' ? { data: { body: 'everywhere' } } : {}),
          uid: action,
        });
        expect(refused['error'], action).to.include({ code: 'INVALID_PAYLOAD' });
      }
      expect(await count()).to.equal(before);
      expect(await db('notes').where({ body: 'everywhere' }).first()).to.equal(undefined);
      const byQuery = await socket.request({
        type: 'items',
        collection: 'notes',
        action: 'update',
        query: { filter: { id: { _in: ids.slice(1) } }, fields: ['id', 'body'] },
        data: { body: 'by query' },
        uid: 'uq',
      });
      // In the order the query selected them: no sort given, any order.
      expect(byQuery['data']).to.have.deep.members(ids.slice(1).map((id) => ({ id, body: 'by query' })));
      const deleted = await socket.request({
        type: 'items',
        collection: 'notes',
        action: 'delete',
        query: { filter: { body: { _eq: 'by query' } } },
        uid: 'dq',
      });
      expect([...(deleted['data'] as number[])].sort()).to.deep.equal(ids.slice(1).sort());
      expect(await count()).to.equal(before - 2);
      // A uid of another type is refused, not answered as if there were none.
      socket.send({ type: 'ping', uid: { not: 'a uid' } });
      expect((await socket.next((m) => m['type'] === 'ping'))['error']).to.include({ code: 'INVALID_PAYLOAD' });
    });

    it("the query's meta (total_count, filter_count) comes with an items read and a subscription's init (Directus 10)", async () => {
      const socket = await authed();
      await adminApi(ctx(), 'POST', '/items/notes', { title: 'counted', status: 'published' });
      const { db } = ctx().server;
      const total = Number((await db('notes').count<{ n: number }[]>({ n: '*' }))[0]?.n);
      const published = Number(
        (await db('notes').where({ status: 'published' }).count<{ n: number }[]>({ n: '*' }))[0]?.n,
      );
      const query = { fields: ['id'], filter: { status: { _eq: 'published' } }, limit: 1, meta: '*' };
      const read = await socket.request({ type: 'items', collection: 'notes', action: 'read', query, uid: 'r' });
      expect(read['meta']).to.deep.equal({ total_count: total, filter_count: published });
      expect(read['data']).to.have.length(1);
      const init = await socket.request({ type: 'subscribe', collection: 'notes', query, uid: 's' });
      expect(init).to.deep.include({ event: 'init', meta: { total_count: total, filter_count: published } });
      const plain = await socket.request({ type: 'items', collection: 'notes', action: 'read', uid: 'p' });
      expect(plain).to.not.have.property('meta');
    });

    it("a subscription to one item (Directus 10's item): the item at init, then that item's events only, as an object", async () => {
      const socket = await authed();
      const [one, other] = [
        await adminApi(ctx(), 'POST', '/items/notes', { title: 'watched' }),
        await adminApi(ctx(), 'POST', '/items/notes', { title: 'not watched' }),
      ];
      const missing = await socket.request({ type: 'subscribe', collection: 'notes', item: 999999, uid: 'm' });
      expect(missing['error'].code).to.equal('FORBIDDEN');
      const init = await socket.request({
        type: 'subscribe',
        collection: 'notes',
        item: one.id,
        query: { fields: ['title'] },
        uid: 'i',
      });
      expect(init).to.deep.equal({ type: 'subscription', event: 'init', data: { title: 'watched' }, uid: 'i' });
      await adminApi(ctx(), 'PATCH', `/items/notes/${other.id}`, { title: 'elsewhere' });
      await adminApi(ctx(), 'PATCH', '/items/notes', { keys: [other.id, one.id], data: { body: 'both' } });
      expect(await socket.next(isEvent('i'))).to.deep.equal({
        type: 'subscription',
        event: 'update',
        data: { title: 'watched' },
        uid: 'i',
      });
      await adminApi(ctx(), 'DELETE', '/items/notes', [other.id, one.id]);
      expect(await socket.next(isEvent('i'))).to.deep.equal({
        type: 'subscription',
        event: 'delete',
        data: one.id,
        uid: 'i',
      });
      expect(await socket.request({ type: 'ping', uid: 'p' })).to.deep.equal({ type: 'pong', uid: 'p' });
      expect(socket.pending.filter(isEvent('i'))).to.deep.equal([]);
      const badItem = await socket.request({ type: 'subscribe', collection: 'notes', item: [1], uid: 'b' });
      expect(badItem['error'].code).to.equal('INVALID_PAYLOAD');
    });

    it('an import is one create event per item, as Directus 10 sends them', async () => {
      const socket = await authed();
      await socket.request({ type: 'subscribe', collection: 'notes', query: { fields: ['title'] }, uid: 'i' });
      const form = new FormData();
      const rows = Array.from({ length: 25 }, (_, i) => ({ title: `imported ${i}` }));
      form.append('file', new Blob([JSON.stringify(rows)], { type: 'application/json' }), 'notes.json');
      const res = await ctx().api('/utils/import/notes', {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_ADMIN.token}` },
        body: form,
      });
      expect(res.status, await res.text()).to.be.oneOf([200, 204]);
      const titles: string[] = [];
      for (const _row of rows) {
        const event = await socket.next(isEvent('i'));
        expect(event['event']).to.equal('create');
        expect(event['data']).to.have.length(1);
        titles.push((event['data'] as { title: string }[])[0]!.title);
      }
      expect(titles.sort()).to.deep.equal(rows.map((r) => r.title).sort());
    });

    it('schema changes are system events of svc_collections', async () => {
      const socket = await authed();
      await socket.request({
        type: 'subscribe',
        collection: 'svc_collections',
        query: { fields: ['collection'] },
        uid: 'c',
      });
      await adminApi(ctx(), 'POST', '/collections', {
        collection: 'made_live',
        schema: {},
        meta: {},
        fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } }],
      });
      expect(await socket.next(isEvent('c'))).to.deep.include({ event: 'create', data: [{ collection: 'made_live' }] });
      await adminApi(ctx(), 'DELETE', '/collections/made_live');
      expect(await socket.next(isEvent('c'))).to.deep.include({ event: 'delete', data: ['made_live'] });
    });

    it('comment writes, through /activity/comment and /comments, are events of svc_comments', async () => {
      const socket = await authed();
      await socket.request({
        type: 'subscribe',
        collection: 'svc_comments',
        query: { fields: ['id', 'comment'] },
        uid: 'k',
      });
      const note = await adminApi(ctx(), 'POST', '/items/notes', { title: 'commented' });
      const activity = await adminApi(ctx(), 'POST', '/activity/comment', {
        collection: 'notes',
        item: note.id,
        comment: 'first',
      });
      const created = await socket.next(isEvent('k'));
      expect(created).to.deep.include({ event: 'create' });
      const [comment] = created['data'] as { id: string; comment: string }[];
      expect(comment).to.include({ comment: 'first' });
      await adminApi(ctx(), 'PATCH', `/activity/comment/${activity.id}`, { comment: 'second' });
      expect(await socket.next(isEvent('k'))).to.deep.include({
        event: 'update',
        data: [{ id: comment!.id, comment: 'second' }],
      });
      await adminApi(ctx(), 'DELETE', `/activity/comment/${activity.id}`);
      expect(await socket.next(isEvent('k'))).to.deep.include({ event: 'delete', data: [comment!.id] });

      const direct = await adminApi(ctx(), 'POST', '/comments', {
        collection: 'notes',
        item: String(note.id),
        comment: 'direct',
      });
      expect(await socket.next(isEvent('k'))).to.deep.include({
        event: 'create',
        data: [{ id: direct.id, comment: 'direct' }],
      });
      await adminApi(ctx(), 'DELETE', `/comments/${direct.id}`);
      expect(await socket.next(isEvent('k'))).to.deep.include({ event: 'delete', data: [direct.id] });
    });

    it('two users of one role whose read rule does not name $CURRENT_USER share one read per change', async () => {
      await adminApi(ctx(), 'POST', '/users', { email: 'editor2@example.com', role: editorRole, token: 'editor-2' });
      const first = await authed(EDITOR.token);
      const second = await authed('editor-2');
      for (const socket of [first, second])
        await socket.request({ type: 'subscribe', collection: 'notes', query: { fields: ['id'] }, uid: 'g' });
      // The live reads are the selects of notes bound to the role's filter value ('published').
      const liveReads: string[] = [];
      const record = (q: { sql: string; bindings?: unknown[] }) => {
        if (/^select/i.test(q.sql) && /notes/.test(q.sql) && (q.bindings ?? []).includes('published'))
          liveReads.push(q.sql);
      };
      ctx().server.db.on('query', record);
      try {
        const note = await adminApi(ctx(), 'POST', '/items/notes', { title: 'shared', status: 'published' });
        for (const socket of [first, second])
          expect((await socket.next(isEvent('g', 'create'))).data).to.deep.equal([{ id: note.id }]);
      } finally {
        ctx().server.db.off('query', record);
      }
      expect(liveReads).to.have.length(1);
    });

    it('users of a role whose read rule names $CURRENT_USER get only the rows it lets them see', async () => {
      const role = await adminApi(ctx(), 'POST', '/roles', { name: 'Owners' });
      await adminApi(ctx(), 'POST', '/permissions', {
        role: role.id,
        collection: 'notes',
        action: 'read',
        permissions: { title: { _eq: '$CURRENT_USER' } },
        fields: ['id', 'title'],
      });
      const owner = await adminApi(ctx(), 'POST', '/users', { email: 'o1@example.com', role: role.id, token: 'o-1' });
      await adminApi(ctx(), 'POST', '/users', { email: 'o2@example.com', role: role.id, token: 'o-2' });
      const [mine, other] = [await authed('o-1'), await authed('o-2')];
      for (const socket of [other, mine])
        await socket.request({ type: 'subscribe', collection: 'notes', query: { fields: ['title'] }, uid: 'o' });
      await adminApi(ctx(), 'POST', '/items/notes', { title: owner.id });
      expect((await mine.next(isEvent('o', 'create'))).data).to.deep.equal([{ title: owner.id }]);
      expect(await other.request({ type: 'ping', uid: 'p' })).to.deep.equal({ type: 'pong', uid: 'p' });
      expect(other.pending.filter(isEvent('o'))).to.have.length(0);
    });

    it('bad messages get an error for their uid and the connection lives on', async () => {
      const socket = await authed();
      socket.send('{not json');
      expect(await socket.next()).to.deep.include({ type: 'error', status: 'error' });
      socket.send({ type: 'launch', uid: 'x' });
      expect((await socket.next((m) => m['uid'] === 'x'))['error']).to.include({ code: 'INVALID_PAYLOAD' });
      const forbidden = await socket.request({ type: 'subscribe', collection: 'nothing_here', uid: 'f' });
      expect(forbidden).to.deep.include({ type: 'subscribe', status: 'error', uid: 'f' });
      expect(forbidden['error'].code).to.equal('FORBIDDEN');
      const badQuery = await socket.request({
        type: 'subscribe',
        collection: 'notes',
        query: { filter: { nope: { _eq: 1 } } },
        uid: 'q',
      });
      expect(badQuery['error'].code).to.be.oneOf(['INVALID_QUERY', 'FORBIDDEN']);
      const editor = await authed(EDITOR.token);
      expect((await editor.request({ type: 'subscribe', collection: 'secrets', uid: 's' }))['error'].code).to.equal(
        'FORBIDDEN',
      );
      expect(await socket.request({ type: 'ping', uid: 'p' })).to.deep.equal({ type: 'pong', uid: 'p' });
    });

    it('a message nesting deeper than 100 levels is refused before it is parsed, and the socket lives on', async () => {
      const socket = await authed();
      const filter = '{"_and":[' + '{"_or":['.repeat(200) + ']}'.repeat(200) + ']}';
      socket.send(`{"type":"subscribe","collection":"notes","uid":"deep","query":{"filter":${filter}}}`);
      const refused = await socket.next((m) => m['type'] === 'error');
      expect(refused['error']).to.deep.include({ code: 'INVALID_PAYLOAD' });
      expect(refused['error'].message).to.match(/nests deeper than 100 levels/);
      expect(socket.pending.filter((m) => m['uid'] === 'deep')).to.deep.equal([]);
      expect(await socket.request({ type: 'ping', uid: 'p' })).to.deep.equal({ type: 'pong', uid: 'p' });
    });

    it('refuses subscriptions over the limit with LIMIT_EXCEEDED', async () => {
      const socket = await authed();
      for (const uid of ['1', '2', '3'])
        expect((await socket.request({ type: 'subscribe', collection: 'notes', uid }))['event']).to.equal('init');
      const refused = await socket.request({ type: 'subscribe', collection: 'notes', uid: '4' });
      expect(refused['error'].code).to.equal('LIMIT_EXCEEDED');
      expect(await socket.request({ type: 'ping', uid: 'p' })).to.deep.equal({ type: 'pong', uid: 'p' });
    });

    it('closes a connection sending a frame over the size limit, and only that one', async () => {
      const big = await authed();
      const other = await authed();
      big.send({ type: 'ping', padding: 'x'.repeat(10 * 1024 * 1024) });
      expect((await big.closed).code).to.equal(1009);
      expect(await other.request({ type: 'ping', uid: 'p' })).to.deep.equal({ type: 'pong', uid: 'p' });
    });

    it('a client that never reads is cut once its buffer is full; the others go on', async function () {
      this.timeout(120_000);
      await ctx()
        .server.db('notes')
        .insert(Array.from({ length: 200 }, (_, i) => ({ title: `bulk ${i}`, body: 'x'.repeat(190) })));
      const slow = await authed();
      const other = await authed();
      await other.request({ type: 'subscribe', collection: 'notes', query: { fields: ['title'] }, uid: 'o' });
      const open = await openSockets();
      // The slow client stops reading; each init it asks for is about 50 KB.
      (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
      for (let i = 0; i < 300; i++) slow.send({ type: 'subscribe', collection: 'notes', uid: 'same' });
      // The server cuts it once more than WEBSOCKETS_MAX_BUFFERED_SIZE waits for it (its own count says when).
      const deadline = Date.now() + 100_000;
      while ((await openSockets()) !== open - 1) {
        if (Date.now() > deadline) throw new Error(`still ${await openSockets()} sockets open, ${open - 1} expected`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Its subscribes still waiting when it was cut are dropped: they hold nothing.
      const subscriptions = await gauge('svc_live_subscriptions');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await gauge('svc_live_subscriptions')).to.equal(subscriptions);
      expect(subscriptions).to.equal(1);
      // The others go on.
      await adminApi(ctx(), 'POST', '/items/notes', { title: 'after the cut' });
      expect((await other.next((m) => m['uid'] === 'o' && m['event'] === 'create'))['data']).to.deep.equal([
        { title: 'after the cut' },
      ]);
      expect(await other.request({ type: 'ping', uid: 'p' })).to.deep.equal({ type: 'pong', uid: 'p' });
      (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.resume();
      // Closed with 1013 (try again later) behind what was buffered; destroyed when it did not answer in time.
      expect((await slow.closed).code).to.be.oneOf([1013, 1006]);
      await ctx().server.db('notes').where('title', 'like', 'bulk %').delete();
    });

    it('handshake (Directus 10): no auth in time, a refused one or another message first is AUTH_FAILED without uid, then the socket closes', async () => {
      const failed = {
        type: 'auth',
        status: 'error',
        error: { code: 'AUTH_FAILED', message: 'Authentication handshake failed.' },
      };
      const idle = await open();
      expect(await idle.next()).to.deep.equal(failed);
      expect((await idle.closed).code).to.equal(1008);
      for (const first of [
        { type: 'auth', access_token: 'not-a-token', uid: 'w' },
        { type: 'auth', email: EDITOR.email, password: 'wrong', uid: 'p' },
        { type: 'auth', uid: 'n' },
        { type: 'subscribe', collection: 'notes', uid: 's' },
      ]) {
        const socket = await open();
        socket.send(first);
        expect(await socket.next(), JSON.stringify(first)).to.deep.equal(failed);
        expect((await socket.closed).code).to.equal(1008);
      }
    });

    it('a refused auth on an authenticated socket is AUTH_FAILED for its uid; the socket stays as it was (Directus 10)', async () => {
      const socket = await authed(EDITOR.token);
      for (const auth of [
        { type: 'auth', access_token: 'not-a-token', uid: 'w' },
        { type: 'auth', email: EDITOR.email, password: 'wrong', uid: 'p' },
      ])
        expect(await socket.request(auth)).to.deep.equal({
          type: 'auth',
          status: 'error',
          error: { code: 'AUTH_FAILED', message: 'Authentication failed.' },
          uid: auth.uid,
        });
      // Still the editor: its subscription answers.
      expect((await socket.request({ type: 'subscribe', collection: 'notes', uid: 's' }))['event']).to.equal('init');
      expect(socket.ws.readyState).to.equal(socket.ws.OPEN);
    });

    it('without a uid (Directus 10) the init and the events carry none; unsubscribe without a uid ends them all', async () => {
      const socket = await authed();
      socket.send({ type: 'subscribe', collection: 'notes', query: { fields: ['id', 'title'] } });
      const init = await socket.next((m) => m['type'] === 'subscription');
      expect(init).to.have.keys(['type', 'event', 'data']);
      expect(init['event']).to.equal('init');
      socket.send({ type: 'subscribe', collection: 'notes', event: 'delete' });
      expect(await socket.next((m) => m['type'] === 'subscription')).to.not.have.property('uid');
      const note = await adminApi(ctx(), 'POST', '/items/notes', { title: 'no uid' });
      expect(await socket.next((m) => m['type'] === 'subscription')).to.deep.equal({
        type: 'subscription',
        event: 'create',
        data: [{ id: note.id, title: 'no uid' }],
      });
      await adminApi(ctx(), 'DELETE', `/items/notes/${note.id}`);
      // Both subscriptions (a second subscribe without uid adds one) get the delete.
      for (let i = 0; i < 2; i++)
        expect(await socket.next((m) => m['type'] === 'subscription')).to.deep.equal({
          type: 'subscription',
          event: 'delete',
          data: [note.id],
        });
      socket.send({ type: 'unsubscribe' });
      await adminApi(ctx(), 'POST', '/items/notes', { title: 'after unsubscribe' });
      expect(await socket.request({ type: 'ping', uid: 'p' })).to.deep.equal({ type: 'pong', uid: 'p' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(socket.pending).to.have.length(0);
    });

    it('a create of many items is one create event per item; an update or delete of many is one event with them all (Directus 10)', async () => {
      const socket = await authed();
      await socket.request({ type: 'subscribe', collection: 'notes', query: { fields: ['id', 'title'] }, uid: 'm' });
      const created = (await adminApi(
        ctx(),
        'POST',
        '/items/notes',
        Array.from({ length: 50 }, (_, i) => ({ title: `many ${i}` })),
      )) as { id: number }[];
      const events: Message[] = [];
      for (let i = 0; i < 50; i++) events.push(await socket.next(isEvent('m')));
      expect(events.every((e) => e['event'] === 'create' && e['data'].length === 1)).to.equal(true);
      expect(events.map((e) => e['data'][0].id).sort()).to.deep.equal(created.map((c) => c.id).sort());
      const keys = created.slice(0, 3).map((c) => c.id);
      await adminApi(ctx(), 'PATCH', '/items/notes', { keys, data: { title: 'many updated' } });
      const update = await socket.next(isEvent('m'));
      expect(update['event']).to.equal('update');
      expect(update['data'].map((d: { id: number }) => d.id).sort()).to.deep.equal([...keys].sort());
      await adminApi(ctx(), 'DELETE', '/items/notes', keys);
      const deleted = await socket.next(isEvent('m'));
      expect(deleted['event']).to.equal('delete');
      expect([...deleted['data']].sort()).to.deep.equal([...keys].sort());
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(socket.pending).to.have.length(0);
      await ctx().server.db('notes').where('title', 'like', 'many %').delete();
    });

    it('a delete event goes only to those who could read the item before it went, on both protocols', async () => {
      const editor = await authed(EDITOR.token);
      await editor.request({ type: 'subscribe', collection: 'notes', uid: 'e' });
      await editor.request({ type: 'subscribe', collection: 'notes', event: 'delete', uid: 'd' });
      const admin = await authed();
      await admin.request({ type: 'subscribe', collection: 'notes', event: 'delete', uid: 'a' });
      const draft = await adminApi(ctx(), 'POST', '/items/notes', { title: 'hidden draft', status: 'draft' });
      const published = await adminApi(ctx(), 'POST', '/items/notes', { title: 'seen', status: 'published' });
      // The editor sees only the published note's create.
      expect((await editor.next(isEvent('e', 'create')))['data'][0].id).to.equal(published.id);
      await adminApi(ctx(), 'DELETE', `/items/notes/${draft.id}`);
      expect(await admin.next(isEvent('a'))).to.deep.include({ event: 'delete', data: [draft.id] });
      await adminApi(ctx(), 'DELETE', '/items/notes', [published.id]);
      expect(await admin.next(isEvent('a'))).to.deep.include({ event: 'delete', data: [published.id] });
      // The draft's delete never reached the editor: its next delete events are the published note's.
      for (const uid of ['e', 'd'])
        expect(await editor.next(isEvent(uid, 'delete'))).to.deep.include({ data: [published.id] });
      // One delete of both: the editor is told of the one it could read.
      const again = await adminApi(ctx(), 'POST', '/items/notes', [
        { title: 'draft 2', status: 'draft' },
        { title: 'published 2', status: 'published' },
      ]);
      await adminApi(
        ctx(),
        'DELETE',
        '/items/notes',
        again.map((n: { id: number }) => n.id),
      );
      for (const uid of ['e', 'd'])
        expect(await editor.next(isEvent(uid, 'delete'))).to.deep.include({ data: [again[1].id] });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(editor.pending.filter((m) => m['event'] === 'delete')).to.have.length(0);
    });

    it('auth with email and password, then with the refresh token', async () => {
      const socket = await open();
      const first = await socket.request({ type: 'auth', email: EDITOR.email, password: EDITOR.password, uid: 'l' });
      expect(first).to.include({ type: 'auth', status: 'ok' });
      expect(first['refresh_token']).to.be.a('string');
      const second = await socket.request({ type: 'auth', refresh_token: first['refresh_token'], uid: 'r' });
      expect(second).to.include({ type: 'auth', status: 'ok' });
      expect(second['refresh_token']).to.be.a('string').and.not.equal(first['refresh_token']);
    });

    it('a token with the upgrade authenticates; a bad one is refused with 401', async () => {
      const socket = await open(`?access_token=${TEST_ADMIN.token}`);
      expect((await socket.request({ type: 'subscribe', collection: 'notes', uid: 's' }))['event']).to.equal('init');
      let error: unknown;
      try {
        await open('?access_token=wrong');
      } catch (e) {
        error = e;
      }
      expect(String(error)).to.include('401');
    });
  },
  {
    env: {
      WEBSOCKETS_ENABLED: 'true',
      WEBSOCKETS_REST_AUTH_TIMEOUT: '300ms',
      WEBSOCKETS_SUBSCRIPTION_LIMIT: '3',
      WEBSOCKETS_MAX_MESSAGE_SIZE: '64kb',
      WEBSOCKETS_MAX_BUFFERED_SIZE: '256kb',
      METRICS_ENABLED: 'true',
    },
  },
);

async function readPermissionId(ctx: ServerContext, role: string): Promise<number> {
  const row = await ctx.server
    .db('svc_permissions')
    .where({ role, collection: 'notes', action: 'read' })
    .first<{ id: number }>('id');
  return row.id;
}
