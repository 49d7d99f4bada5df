import { statementsRunOn } from '../../support/statements.js';
import { expect } from 'chai';
import { createGuardrails, generate } from 'otplib';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { sqliteTarget } from '../../support/services.js';
import { createCaller, grant, jwtFor } from '../access/permission-helpers.js';
import { graphql, graphqlData } from '../graphql/graphql-client.js';
import { adminWrite, createNotes, notesQueriesDuring, read, retitleInSql, titleOf } from './cache-helpers.js';

const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 });

describeEachDatabase(
  'data cache with CACHE_AUTO_PURGE',
  (ctx) => {
    before(() => createNotes(ctx()));

    it('answers a repeated read from the cache without touching the database', async () => {
      const { api, server } = ctx();
      const first = await read(api, '/items/notes/1');
      expect(first.status).to.equal(200);
      await retitleInSql(server.db, 1, 'changed in SQL');
      let again: Awaited<ReturnType<typeof read>> | undefined;
      expect(
        await notesQueriesDuring(server.db, async () => void (again = await read(api, '/items/notes/1'))),
      ).to.equal(0);
      expect(again?.text).to.equal(first.text);
      expect((again?.body.data as { title: string }).title).to.equal('first');
      // With auto purge an entry may go at any moment, so clients revalidate.
      expect(again?.cacheControl).to.equal('no-cache');
    });

    it('a write through the API purges: the next read shows the new value', async () => {
      const { api, server } = ctx();
      await retitleInSql(server.db, 2, 'second');
      expect(await titleOf(api, 2)).to.equal('second');
      await retitleInSql(server.db, 2, 'stale');
      expect(await titleOf(api, 2)).to.equal('second');
      await adminWrite(api, 'PATCH', '/items/notes/3', { title: 'third, patched' });
      expect(await titleOf(api, 2)).to.equal('stale');
      expect(await titleOf(api, 3)).to.equal('third, patched');
    });

    it('a GraphQL mutation purges and is never answered from the cache', async () => {
      const { api, server } = ctx();
      const mutation = 'mutation { update_notes_item(id: 3, data: { title: "by graphql" }) { title } }';
      expect(await titleOf(api, 3)).to.equal('third, patched');
      expect(await graphqlData(ctx(), mutation)).to.deep.equal({ update_notes_item: { title: 'by graphql' } });
      expect(await titleOf(api, 3)).to.equal('by graphql');
      await retitleInSql(server.db, 3, 'set in SQL');
      // The same mutation document again runs again: it writes, and the next read sees it.
      expect(await graphqlData(ctx(), mutation)).to.deep.equal({ update_notes_item: { title: 'by graphql' } });
      expect(await server.db('notes').where('id', 3).first('title')).to.deep.equal({ title: 'by graphql' });
    });

    it('enabling and disabling TFA purges: a cached read of the user shows the secret set, then cleared', async () => {
      const { api, server } = ctx();
      const admin = (await server.db('svc_users').where('email', TEST_ADMIN.email).first('id')) as { id: string };
      const secretRead = async () =>
        ((await read(api, `/users/${admin.id}?fields=tfa_secret`)).body.data as { tfa_secret: unknown }).tfa_secret;
      expect(await secretRead()).to.equal(null);
      const generated = await adminWrite(api, 'POST', '/users/me/tfa/generate', { password: TEST_ADMIN.password });
      const { secret } = generated as { secret: string };
      await adminWrite(api, 'POST', '/users/me/tfa/enable', { secret, otp: await generate({ secret, guardrails }) });
      expect(await secretRead()).to.equal('**********');
      await adminWrite(api, 'POST', `/users/${admin.id}/tfa/disable`, {});
      expect(await secretRead()).to.equal(null);
    });

    it('a write to a collection of CACHE_AUTO_PURGE_IGNORE_LIST leaves the cache alone', async () => {
      const { api, server } = ctx();
      const cached = await titleOf(api, 1);
      await adminWrite(api, 'POST', '/presets', { bookmark: 'mine', collection: 'notes' });
      await retitleInSql(server.db, 1, 'after the preset');
      expect(await titleOf(api, 1)).to.equal(cached);
      await adminWrite(api, 'POST', '/utils/cache/clear', {});
      expect(await titleOf(api, 1)).to.equal('after the preset');
    });

    it('caches GraphQL queries per document and variables, and not results with errors', async () => {
      const { server } = ctx();
      const query = 'query Note($id: ID!) { notes_by_id(id: $id) { title } }';
      const titleVia = async (id: number) =>
        ((await graphqlData(ctx(), query, { variables: { id } }))['notes_by_id'] as { title: string }).title;
      await retitleInSql(server.db, 1, 'one');
      await retitleInSql(server.db, 2, 'two');
      await adminWrite(ctx().api, 'POST', '/utils/cache/clear', {});
      expect(await titleVia(1)).to.equal('one');
      await retitleInSql(server.db, 1, 'one, later');
      expect(await titleVia(1)).to.equal('one');
      expect(await titleVia(2)).to.equal('two');

      const viaGet = async () =>
        (await read(ctx().api, `/graphql?query=${encodeURIComponent('{ notes_by_id(id: 2) { title } }')}`)).body.data;
      expect(await viaGet()).to.deep.equal({ notes_by_id: { title: 'two' } });
      await retitleInSql(server.db, 2, 'two, later');
      expect(await viaGet()).to.deep.equal({ notes_by_id: { title: 'two' } });

      // One root field fails validation at run time: the other still runs its statement.
      const failing = '{ notes_by_id(id: 1) { title } broken: notes(limit: -5) { id } }';
      const withErrors = await graphql(ctx(), failing);
      expect(withErrors.body.errors, JSON.stringify(withErrors.body)).to.have.length(1);
      expect(await notesQueriesDuring(server.db, async () => void (await graphql(ctx(), failing)))).to.be.greaterThan(
        0,
      );
    });

    it('serves a schema change at once: the schema version is part of the key', async () => {
      const { api } = ctx();
      const before = await read(api, '/items/notes/1');
      expect(before.body.data).not.to.have.property('rating');
      await adminWrite(api, 'POST', '/fields/notes', { field: 'rating', type: 'integer' });
      const after = await read(api, '/items/notes/1');
      expect(after.body.data).to.have.property('rating', null);
    });

    it('does not cache errors', async () => {
      const { api, server } = ctx();
      expect((await read(api, '/items/notes/40')).status).to.equal(403);
      await server.db('notes').insert({ id: 40, title: 'forty', owner: 'b' });
      expect(await titleOf(api, 40)).to.equal('forty');
    });
  },
  { env: () => ({ CACHE_ENABLED: 'true', CACHE_AUTO_PURGE: 'true' }) },
);

describeEachDatabase(
  'data cache: callers never share entries',
  (ctx) => {
    before(() => createNotes(ctx()));

    it('two roles reading the same URL each get their own answer', async () => {
      const { api } = ctx();
      const ownerA = await createCaller(ctx().server.db);
      const everyone = await createCaller(ctx().server.db);
      await grant(ctx(), ownerA.role, [{ collection: 'notes', action: 'read', permissions: { owner: { _eq: 'a' } } }]);
      await grant(ctx(), everyone.role, [{ collection: 'notes', action: 'read' }]);
      const ids = async (token: string) =>
        ((await read(api, '/items/notes?fields=id&sort=id', token)).body.data as { id: number }[]).map((n) => n.id);
      expect(await ids(everyone.token)).to.deep.equal([1, 2, 3]);
      expect(await ids(ownerA.token)).to.deep.equal([1, 3]);
      expect(await ids(everyone.token)).to.deep.equal([1, 2, 3]);
      expect((await read(api, '/items/notes?fields=id&sort=id', null)).status).to.equal(403);
    });

    it('two users of one role get their own answer where rules name the current user', async () => {
      const { api, server } = ctx();
      const first = await createCaller(server.db);
      const role = first.role;
      await grant(ctx(), role, [
        { collection: 'svc_users', action: 'read', permissions: { id: { _eq: '$CURRENT_USER' } }, fields: ['id'] },
      ]);
      const second = await createCaller(server.db);
      await server.db('svc_users').where('id', second.user).update({ role });
      await adminWrite(api, 'POST', '/utils/cache/clear', {});
      const usersOf = async (token: string) =>
        ((await read(api, '/users?fields=id', token)).body.data as { id: string }[]).map((u) => u.id);
      expect(await usersOf(first.token)).to.deep.equal([first.user]);
      expect(await usersOf(second.token)).to.deep.equal([second.user]);
    });

    it('a permission change through the API applies to the next read, without CACHE_AUTO_PURGE', async () => {
      const { api } = ctx();
      const caller = await createCaller(ctx().server.db);
      await grant(ctx(), caller.role, [{ collection: 'notes', action: 'read', permissions: { owner: { _eq: 'a' } } }]);
      const ids = async () =>
        ((await read(api, '/items/notes?fields=id&sort=id', caller.token)).body.data as { id: number }[]).map(
          (n) => n.id,
        );
      expect(await ids()).to.deep.equal([1, 3]);
      const [row] = (await adminWrite(
        api,
        'GET',
        `/permissions?filter[role][_eq]=${caller.role}&fields=id`,
        undefined,
      )) as { id: number }[];
      await adminWrite(api, 'PATCH', `/permissions/${String(row?.id)}`, { permissions: { owner: { _eq: 'b' } } });
      expect(await ids()).to.deep.equal([2]);
    });

    it('without CACHE_AUTO_PURGE a data write leaves entries until the TTL or a clear', async () => {
      const { api } = ctx();
      expect(await titleOf(api, 2)).to.equal('second');
      await adminWrite(api, 'PATCH', '/items/notes/2', { title: 'second, patched' });
      expect(await titleOf(api, 2)).to.equal('second');
      await adminWrite(api, 'POST', '/utils/cache/clear', {});
      expect(await titleOf(api, 2)).to.equal('second, patched');
    });

    it('tells clients how long they may keep an answer: public without a caller, private with one', async () => {
      const { api } = ctx();
      await grant(ctx(), null, [{ collection: 'notes', action: 'read' }]);
      const miss = await read(api, '/items/notes/1?fields=id', null);
      expect(miss.cacheControl).to.equal('public, max-age=300, s-maxage=0');
      const hit = await read(api, '/items/notes/1?fields=id', null);
      expect(hit.cacheControl).to.match(/^public, max-age=(299|300), s-maxage=0$/);
      expect((await read(api, '/items/notes/1?fields=id')).cacheControl).to.equal('private, max-age=300, s-maxage=0');
      expect((await read(api, '/items/notes/999')).cacheControl).to.equal('no-cache');
    });
  },
  { targets: [sqliteTarget], env: () => ({ CACHE_ENABLED: 'true' }) },
);

describeEachDatabase(
  'data cache: request skips, value size and streamed reads',
  (ctx) => {
    before(() => createNotes(ctx()));

    it('a request with Cache-Control: no-store is read from the database and not stored (CACHE_SKIP_ALLOWED)', async () => {
      const { api, server } = ctx();
      expect(await titleOf(api, 1)).to.equal('first');
      await retitleInSql(server.db, 1, 'fresh');
      const skipped = await read(api, '/items/notes/1?fields=title', TEST_ADMIN.token, { 'Cache-Control': 'no-store' });
      expect((skipped.body.data as { title: string }).title).to.equal('fresh');
      expect(skipped.cacheControl).to.equal('no-store');
      expect(await titleOf(api, 1)).to.equal('first');
    });

    it('does not store an answer bigger than CACHE_VALUE_MAX_SIZE', async () => {
      const { api, server } = ctx();
      await server.db('notes').insert({ id: 50, title: 'x'.repeat(300), owner: 'c' });
      expect(await titleOf(api, 50)).to.have.length(300);
      await retitleInSql(server.db, 50, 'short now');
      expect(await titleOf(api, 50)).to.equal('short now');
      expect(await titleOf(api, 50)).to.equal('short now');
      await retitleInSql(server.db, 50, 'changed again');
      expect(await titleOf(api, 50)).to.equal('short now');
    });

    it('stores a streamed limit=-1 read that fits CACHE_VALUE_MAX_SIZE', async () => {
      const { api, server } = ctx();
      const titles = async () =>
        (
          (await read(api, '/items/notes?limit=-1&fields=title&filter[owner][_eq]=a&sort=id')).body.data as {
            title: string;
          }[]
        ).map((n) => n.title);
      const first = await titles();
      expect(first).to.have.length(2);
      await retitleInSql(server.db, 3, 'streamed change');
      expect(await titles()).to.deep.equal(first);
    });
  },
  {
    targets: [sqliteTarget],
    env: () => ({
      CACHE_ENABLED: 'true',
      CACHE_SKIP_ALLOWED: 'true',
      CACHE_VALUE_MAX_SIZE: '200',
    }),
  },
);

describeEachDatabase(
  'data cache: streamed reads without CACHE_VALUE_MAX_SIZE',
  (ctx) => {
    before(() => createNotes(ctx()));

    it('are never held back for the cache', async () => {
      const { api, server } = ctx();
      const titles = async () =>
        ((await read(api, '/items/notes?limit=-1&fields=title&sort=id')).body.data as { title: string }[]).map(
          (n) => n.title,
        );
      expect(await titles()).to.deep.equal(['first', 'second', 'third']);
      await retitleInSql(server.db, 2, 'streamed, uncached');
      expect(await titles()).to.deep.equal(['first', 'streamed, uncached', 'third']);
    });
  },
  { targets: [sqliteTarget], env: () => ({ CACHE_ENABLED: 'true' }) },
);

describeEachDatabase(
  'data cache without CACHE_SCHEMA',
  (ctx) => {
    before(() => createNotes(ctx()));

    /** Overview builds while `work` runs: each reads svc_relations once (catalog/overview/build.ts), nothing else does. */
    const overviewBuildsDuring = async (work: () => Promise<void>): Promise<number> =>
      (await statementsRunOn(ctx().server.db, work)).filter((sql) => /\bfrom [`"]?svc_relations\b/i.test(sql)).length;

    it("builds the overview once per read: the cache key, the role's ip_access and the read share it", async () => {
      const { api, server } = ctx();
      const caller = await createCaller(server.db);
      await grant(ctx(), caller.role, [{ collection: 'notes', action: 'read' }]);
      const token = jwtFor(caller);
      let miss: Awaited<ReturnType<typeof read>> | undefined;
      expect(
        await overviewBuildsDuring(async () => void (miss = await read(api, '/items/notes/1?fields=title', token))),
      ).to.equal(1);
      expect(miss?.body.data).to.deep.equal({ title: 'first' });
      let hit: Awaited<ReturnType<typeof read>> | undefined;
      expect(
        await overviewBuildsDuring(async () => void (hit = await read(api, '/items/notes/1?fields=title', token))),
      ).to.equal(1);
      expect(hit?.text).to.equal(miss?.text);
      expect(
        await overviewBuildsDuring(async () => void (await read(api, '/items/notes?fields=title&sort=id'))),
      ).to.equal(1);
      const graphqlRead = `/graphql?query=${encodeURIComponent('{ notes_by_id(id: 1) { title } }')}`;
      let viaGraphql: Awaited<ReturnType<typeof read>> | undefined;
      expect(await overviewBuildsDuring(async () => void (viaGraphql = await read(api, graphqlRead, token)))).to.equal(
        1,
      );
      expect(viaGraphql?.body.data).to.deep.equal({ notes_by_id: { title: 'first' } });
    });
  },
  {
    targets: [sqliteTarget],
    env: () => ({ CACHE_ENABLED: 'true', CACHE_SCHEMA: 'false' }),
  },
);
