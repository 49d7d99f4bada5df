import { expect } from 'chai';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { adminApi, createLiveFixture, EDITOR, socketUrl, TestSocket, type Message } from './sockets.js';

const isPresence = (uid: string) => (m: Message) => m['type'] === 'presence' && m['uid'] === uid;
const ids = (m: Message) => (m['users'] as { id: string }[]).map((u) => u.id).sort();

/**
 * The WebSocket protocol's `presence` message (src/realtime/presence.ts): who has an item
 * open, told to each member of the item's room at every join and leave.
 */
describeEachDatabase(
  'realtime: presence',
  (ctx) => {
    const sockets: TestSocket[] = [];
    let editorId = '';
    let published = 0;
    let draft = 0;
    const authed = async (token: string) => {
      const socket = await TestSocket.open(socketUrl(ctx().server.url, '/websocket'));
      sockets.push(socket);
      expect(await socket.request({ type: 'auth', access_token: token, uid: 'a' })).to.include({ status: 'ok' });
      return socket;
    };

    before(async () => {
      await createLiveFixture(ctx());
      const editor = await ctx().server.db('svc_users').where({ email: EDITOR.email }).first<{ id: string }>('id');
      editorId = editor.id;
      await ctx().server.db('svc_users').where({ id: editorId }).update({ first_name: 'Eddie', last_name: 'Tor' });
      published = (await adminApi(ctx(), 'POST', '/items/notes', { title: 'open', status: 'published' })).id;
      draft = (await adminApi(ctx(), 'POST', '/items/notes', { title: 'hidden', status: 'draft' })).id;
    });
    afterEach(() => {
      for (const socket of sockets.splice(0)) socket.close();
    });

    it('tells each member who has the item open, at every join, leave and close', async () => {
      const admin = await authed(TEST_ADMIN.token);
      const editor = await authed(EDITOR.token);
      admin.send({ type: 'presence', action: 'join', collection: 'notes', item: published, uid: 'p' });
      const adminId = (await admin.next(isPresence('p')))['users'][0].id as string;
      editor.send({ type: 'presence', collection: 'notes', item: String(published), uid: 'q' });
      const seenByEditor = await editor.next(isPresence('q'));
      expect(seenByEditor).to.deep.include({ collection: 'notes', item: String(published) });
      expect(ids(seenByEditor)).to.deep.equal([adminId, editorId].sort());
      // Names only: no e-mail, no role.
      expect(seenByEditor['users']).to.deep.include({ id: editorId, first_name: 'Eddie', last_name: 'Tor' });
      expect(ids(await admin.next(isPresence('p')))).to.deep.equal([adminId, editorId].sort());

      editor.send({ type: 'presence', action: 'leave', collection: 'notes', item: published, uid: 'q' });
      expect(ids(await admin.next(isPresence('p')))).to.deep.equal([adminId]);

      editor.send({ type: 'presence', action: 'join', collection: 'notes', item: published, uid: 'r' });
      await editor.next(isPresence('r'));
      expect(ids(await admin.next(isPresence('p')))).to.have.length(2);
      editor.close();
      expect(ids(await admin.next(isPresence('p')))).to.deep.equal([adminId]);
    });

    it('refuses an item the caller cannot read (FORBIDDEN), a bad message, and the public role', async () => {
      const editor = await authed(EDITOR.token);
      const refused = await editor.request({ type: 'presence', collection: 'notes', item: draft, uid: 'x' });
      expect(refused).to.deep.include({ type: 'presence', status: 'error', uid: 'x' });
      expect(refused['error'].code).to.equal('FORBIDDEN');
      const secret = await editor.request({ type: 'presence', collection: 'secrets', item: 1, uid: 'y' });
      expect(secret['error'].code).to.equal('FORBIDDEN');
      const noItem = await editor.request({ type: 'presence', collection: 'notes', uid: 'z' });
      expect(noItem['error'].code).to.equal('INVALID_PAYLOAD');
      const badAction = await editor.request({
        type: 'presence',
        action: 'stay',
        collection: 'notes',
        item: published,
        uid: 'w',
      });
      expect(badAction['error'].code).to.equal('INVALID_PAYLOAD');

      const anonymous = await TestSocket.open(socketUrl(ctx().server.url, '/websocket'));
      sockets.push(anonymous);
      const refusedPublic = await anonymous.request({
        type: 'presence',
        collection: 'notes',
        item: published,
        uid: 'v',
      });
      expect(refusedPublic['error'].code).to.equal('FORBIDDEN');
    });

    it('counts rooms against WEBSOCKETS_SUBSCRIPTION_LIMIT per connection', async () => {
      const admin = await authed(TEST_ADMIN.token);
      const notes = (await adminApi(ctx(), 'POST', '/items/notes', [
        { title: 'a' },
        { title: 'b' },
        { title: 'c' },
        { title: 'd' },
      ])) as { id: number }[];
      for (const [i, note] of notes.slice(0, 3).entries()) {
        admin.send({ type: 'presence', collection: 'notes', item: note.id, uid: `r${i}` });
        await admin.next(isPresence(`r${i}`));
      }
      const over = await admin.request({ type: 'presence', collection: 'notes', item: notes[3]?.id, uid: 'r4' });
      expect(over['error'].code).to.equal('LIMIT_EXCEEDED');
      // Joining a room again is no new room.
      admin.send({ type: 'presence', collection: 'notes', item: notes[0]?.id, uid: 'r0' });
      expect(ids(await admin.next(isPresence('r0')))).to.have.length(1);
    });
  },
  { env: { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_REST_AUTH: 'public', WEBSOCKETS_SUBSCRIPTION_LIMIT: '3' } },
);
