import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { cookieNamed } from '../auth/helpers.js';
import { adminApi, socketUrl, TestSocket, type Message } from './sockets.js';

const isEvent = (uid: string, event?: string) => (m: Message) =>
  m['type'] === 'subscription' && m['uid'] === uid && (event === undefined || m['event'] === event);

/**
 * Reads at delivery shared by users whose rules name `$CURRENT_USER`: one read for every user
 * of a role whose rule is checked in memory, one per permission fingerprint otherwise, one per
 * user when neither is safe. Every case checks first that no one gets a row or a field their
 * rule does not allow.
 */
describeEachDatabase(
  'realtime: reads at delivery shared across users',
  (ctx) => {
    const sockets: TestSocket[] = [];
    const roles: Record<string, string> = {};
    const users: Record<string, string> = {};

    /** A socket of `token`, subscribed to tickets with `query` under `uid`. */
    const subscriber = async (token: string, query: object, uid = 't') => {
      const socket = await TestSocket.open(socketUrl(ctx().server.url, '/websocket'));
      sockets.push(socket);
      expect(await socket.request({ type: 'auth', access_token: token, uid: 'a' })).to.include({ status: 'ok' });
      await socket.request({ type: 'subscribe', collection: 'tickets', query, uid });
      return socket;
    };
    /** Nothing (more) for `uid` on `socket`: a ping answered after the deliveries found nothing queued. */
    const nothingFor = async (socket: TestSocket, uid = 't') => {
      expect(await socket.request({ type: 'ping', uid: 'p' })).to.deep.equal({ type: 'pong', uid: 'p' });
      expect(socket.pending.filter(isEvent(uid))).to.deep.equal([]);
    };
    /** The selects of `table` run while `run` runs whose bindings `matches`. */
    const selectsOf = async (
      table: RegExp,
      matches: (bindings: unknown[]) => boolean,
      run: () => Promise<void>,
    ): Promise<number> => {
      const seen: string[] = [];
      const record = (q: { sql: string; bindings?: unknown[] }) => {
        if (/^select/i.test(q.sql) && table.test(q.sql) && matches(q.bindings ?? [])) seen.push(q.sql);
      };
      ctx().server.db.on('query', record);
      try {
        await run();
      } finally {
        ctx().server.db.off('query', record);
      }
      return seen.length;
    };
    const ticketReads = (matches: (bindings: unknown[]) => boolean, run: () => Promise<void>) =>
      selectsOf(/tickets/, matches, run);
    const user = async (name: string, role: string, lastName = name) => {
      const created = await adminApi(ctx(), 'POST', '/users', {
        email: `${name}@example.com`,
        role: roles[role],
        token: `token-${name}`,
        last_name: lastName,
      });
      users[name] = created.id as string;
      return `token-${name}`;
    };

    before(async () => {
      const id = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };
      await adminApi(ctx(), 'POST', '/collections', {
        collection: 'projects',
        schema: {},
        fields: [id, { field: 'lead', type: 'uuid' }],
      });
      await adminApi(ctx(), 'POST', '/collections', {
        collection: 'tickets',
        schema: {},
        fields: [
          id,
          { field: 'title', type: 'string' },
          { field: 'status', type: 'string' },
          { field: 'owner', type: 'uuid' },
          { field: 'project', type: 'integer' },
          { field: 'secret', type: 'string' },
        ],
      });
      await adminApi(ctx(), 'POST', '/relations', {
        collection: 'projects',
        field: 'lead',
        related_collection: 'svc_users',
      });
      await adminApi(ctx(), 'POST', '/relations', {
        collection: 'tickets',
        field: 'owner',
        related_collection: 'svc_users',
      });
      await adminApi(ctx(), 'POST', '/relations', {
        collection: 'tickets',
        field: 'project',
        related_collection: 'projects',
      });
      const rules: Record<string, object> = {
        // Checked in memory (owner), the status part in the one read.
        Owners: { owner: { _eq: '$CURRENT_USER' }, status: { _eq: 'open' } },
        // A relational path: not checked in memory, each user read on their own.
        Leads: { project: { lead: { _eq: '$CURRENT_USER' } } },
        // A variable with a path, under an operator not checked in memory: users with the same name read alike.
        Namesakes: { title: { _neq: '$CURRENT_USER.last_name' } },
      };
      for (const [name, permissions] of Object.entries(rules)) {
        const role = await adminApi(ctx(), 'POST', '/roles', { name });
        roles[name] = role.id as string;
        await adminApi(ctx(), 'POST', '/permissions', {
          role: role.id,
          collection: 'tickets',
          action: 'read',
          permissions,
          fields: ['id', 'title', 'status', 'owner', 'project'],
        });
      }
    });
    afterEach(() => {
      for (const socket of sockets.splice(0)) socket.close();
    });

    it('one read serves every user of a role whose rule is owner = $CURRENT_USER; each gets their rows and fields only', async () => {
      const [ann, bob, cat] = [await user('ann', 'Owners'), await user('bob', 'Owners'), await user('cat', 'Owners')];
      const a = await subscriber(ann, { fields: ['id', 'title'] });
      const b = await subscriber(bob, { fields: ['id', 'title'] });
      const c = await subscriber(cat, { fields: ['id', 'title'] });
      let first: { id: number } = { id: 0 };
      // The shared read is the one bound to the rule's 'open'; per user there would be three.
      const reads = await ticketReads(
        (bindings) => bindings.includes('open'),
        async () => {
          first = await adminApi(ctx(), 'POST', '/items/tickets', {
            title: 'a1',
            status: 'open',
            owner: users['ann'],
            secret: 'x',
          });
          // The rule's field is read to check it, and not sent: it was not selected.
          expect((await a.next(isEvent('t', 'create'))).data).to.deep.equal([{ id: first.id, title: 'a1' }]);
        },
      );
      expect(reads).to.equal(1);
      await nothingFor(b);
      await nothingFor(c);

      await b.request({ type: 'subscribe', collection: 'tickets', query: { fields: ['*'] }, uid: 's' });
      await adminApi(ctx(), 'POST', '/items/tickets', [
        { title: 'b1', status: 'open', owner: users['bob'], secret: 's' },
        { title: 'b-closed', status: 'closed', owner: users['bob'] },
        { title: 'c1', status: 'open', owner: users['cat'] },
        { title: 'nobody', status: 'open', owner: null },
      ]);
      expect((await b.next(isEvent('t', 'create'))).data).to.deep.equal([{ id: first.id + 1, title: 'b1' }]);
      // All the role may read of it (not `secret`), `owner` among them.
      expect((await b.next(isEvent('s', 'create'))).data).to.deep.equal([
        { id: first.id + 1, title: 'b1', status: 'open', owner: users['bob'], project: null },
      ]);
      expect((await c.next(isEvent('t', 'create'))).data).to.deep.equal([{ id: first.id + 3, title: 'c1' }]);
      await nothingFor(a);
      await nothingFor(b);
      await nothingFor(b, 's');
      await nothingFor(c);

      // The ticket changes hands: the new owner is told, the old one no longer.
      await adminApi(ctx(), 'PATCH', `/items/tickets/${first.id}`, { owner: users['bob'] });
      expect((await b.next(isEvent('t', 'update'))).data).to.deep.equal([{ id: first.id, title: 'a1' }]);
      expect((await b.next(isEvent('s', 'update'))).data[0]).to.include({ owner: users['bob'] });
      await nothingFor(a);
      await nothingFor(c);
    });

    it("a change is read for each socket's last authentication; only the sockets then sent something are authenticated again, and one whose session ended meanwhile gets nothing", async () => {
      // Session tokens: each authentication of one asks the database for its session row.
      const names = ['ida', 'jon', 'kim', 'lou'];
      // Every user made first: a change to users forgets every authentication that stood.
      for (const name of names) {
        await user(name, 'Owners');
        await adminApi(ctx(), 'PATCH', `/users/${users[name]}`, { password: `${name}-password` });
      }
      const sessionOf = async (name: string) => {
        const res = await fetch(`${ctx().server.url}/auth/login`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ email: `${name}@example.com`, password: `${name}-password`, mode: 'session' }),
        });
        expect(res.status, await res.clone().text()).to.equal(200);
        return cookieNamed(res, 'svc_session_token').value;
      };
      const sockets = new Map<string, TestSocket>();
      for (const name of names) sockets.set(name, await subscriber(await sessionOf(name), { fields: ['title'] }));
      const ida = sockets.get('ida') as TestSocket;
      const reads = await selectsOf(
        /svc_sessions/,
        () => true,
        async () => {
          await adminApi(ctx(), 'POST', '/items/tickets', { title: 'for ida', status: 'open', owner: users['ida'] });
          expect((await ida.next(isEvent('t', 'create'))).data).to.deep.equal([{ title: 'for ida' }]);
        },
      );
      // Ida's session, once: not the three others', who were sent nothing.
      expect(reads).to.equal(1);
      for (const name of names.slice(1)) await nothingFor(sockets.get(name) as TestSocket);

      // Jon's session ends behind the service's back (no cache is told): his next ticket is read
      // for his last authentication, then he is asked again before it is sent, and refused.
      await ctx().server.db('svc_sessions').where({ user: users['jon'] }).delete();
      await adminApi(ctx(), 'POST', '/items/tickets', { title: 'for jon', status: 'open', owner: users['jon'] });
      const jon = sockets.get('jon') as TestSocket;
      expect((await jon.closed).code, 'his socket is closed').to.not.equal(1000);
      expect(jon.pending.filter(isEvent('t'))).to.deep.equal([]);
      // The others go on.
      await adminApi(ctx(), 'POST', '/items/tickets', { title: 'for kim', status: 'open', owner: users['kim'] });
      expect((await (sockets.get('kim') as TestSocket).next(isEvent('t', 'create'))).data).to.deep.equal([
        { title: 'for kim' },
      ]);
    });

    it('a rule through a relation is not checked in memory: each user is read on their own, and sees only their rows', async () => {
      const [dan, eve] = [await user('dan', 'Leads'), await user('eve', 'Leads')];
      const danProject = await adminApi(ctx(), 'POST', '/items/projects', { lead: users['dan'] });
      const d = await subscriber(dan, { fields: ['title'] });
      const e = await subscriber(eve, { fields: ['title'] });
      const ids = [users['dan'], users['eve']];
      const reads = await ticketReads(
        (bindings) => bindings.some((b) => ids.includes(b as string)),
        async () => {
          await adminApi(ctx(), 'POST', '/items/tickets', { title: 'for dan', project: danProject.id });
          expect((await d.next(isEvent('t', 'create'))).data).to.deep.equal([{ title: 'for dan' }]);
          await nothingFor(e);
        },
      );
      expect(reads).to.equal(2);
    });

    it('users whose rules resolve alike ($CURRENT_USER.last_name) share one read per fingerprint', async () => {
      const smiths = [await user('fay', 'Namesakes', 'Smith'), await user('gus', 'Namesakes', 'Smith')];
      const f = await subscriber(smiths[0] as string, { fields: ['title'] });
      const g = await subscriber(smiths[1] as string, { fields: ['title'] });
      const h = await subscriber(await user('hal', 'Namesakes', 'Jones'), { fields: ['title'] });
      const reads = await ticketReads(
        (bindings) => bindings.some((b) => b === 'Smith' || b === 'Jones'),
        async () => {
          // Not for the Smiths (title = their name), for Jones.
          await adminApi(ctx(), 'POST', '/items/tickets', { title: 'Smith' });
          expect((await h.next(isEvent('t', 'create'))).data).to.deep.equal([{ title: 'Smith' }]);
          await nothingFor(f);
          await nothingFor(g);
        },
      );
      // One read for the Smiths, one for Jones.
      expect(reads).to.equal(2);
      await adminApi(ctx(), 'POST', '/items/tickets', { title: 'Jones' });
      for (const socket of [f, g])
        expect((await socket.next(isEvent('t', 'create'))).data).to.deep.equal([{ title: 'Jones' }]);
      await nothingFor(h);
    });
  },
  // A user read is trusted for a minute (not the default second): the sockets opened one after
  // another, their last authentications all still stand at the writes.
  { env: { WEBSOCKETS_ENABLED: 'true', AUTH_USER_CACHE_TTL: '60s' } },
);
