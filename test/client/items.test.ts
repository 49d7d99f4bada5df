import { expect } from 'chai';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ContentClient, EmptyParamError, Meta, TransportError } from '../../src/client/index.js';
import { describeEachDatabase, TEST_ADMIN } from '../support/server.js';
import { createRole, createUser } from '../integration/auth/helpers.js';
import { adminClient, expectServerError, rejection, SQLITE_ONLY } from './support.js';

interface Article {
  id: number;
  title: string;
  status: string;
  rank: number;
}

describeEachDatabase(
  'client items',
  (ctx) => {
    let client: ContentClient<{ articles: Article }>;
    const articles = () => client.items('articles');
    const rowCount = async () => Number((await ctx().server.db('articles').count({ n: '*' }))[0]?.['n']);

    before(async () => {
      client = (await adminClient(ctx())) as ContentClient<{ articles: Article }>;
      await client.collections.createOne({
        collection: 'articles',
        schema: {},
        meta: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'title', type: 'string' },
          { field: 'status', type: 'string' },
          { field: 'rank', type: 'integer' },
        ],
      });
    });

    beforeEach(async () => {
      await ctx().server.db('articles').delete();
    });

    it('round-trips one item: create, read, update, delete, each journalled', async () => {
      const created = await articles().createOne({ title: 'First', status: 'draft', rank: 1 });
      expect(created).to.include({ title: 'First', status: 'draft', rank: 1 });
      const id = created?.id as number;
      expect(await articles().readOne(id, { fields: ['title'] })).to.deep.equal({ title: 'First' });
      expect(await articles().updateOne(id, { status: 'published' }, { fields: ['id', 'status'] })).to.deep.equal({
        id,
        status: 'published',
      });
      await articles().deleteOne(id);
      expect(await rowCount()).to.equal(0);
      const activity = await client.activity.readByQuery({
        filter: { collection: { _eq: 'articles' }, item: { _eq: String(id) } },
        fields: ['action'],
        sort: ['id'],
      });
      expect(activity.data?.map((a) => a.action)).to.deep.equal(['create', 'update', 'delete']);
    });

    it('creates, updates and deletes many', async () => {
      const created = await articles().createMany([
        { title: 'a', status: 'draft', rank: 1 },
        { title: 'b', status: 'draft', rank: 2 },
        { title: 'c', status: 'draft', rank: 3 },
      ]);
      expect(created.status).to.equal(200);
      const ids = (created.data ?? []).map((a) => a.id);
      expect(ids).to.have.length(3);
      const [first = 0, , third = 0] = ids;

      const many = await articles().updateMany(ids.slice(0, 2), { status: 'published' }, { fields: ['id', 'status'] });
      expect(many.data?.map((a) => a.status)).to.deep.equal(['published', 'published']);
      const batch = await articles().updateBatch([
        { id: first, rank: 10 },
        { id: third, rank: 30 },
      ]);
      expect(batch.data?.map((a) => a.rank)).to.deep.equal([10, 30]);

      const read = await articles().readMany([third, first], { fields: ['title', 'status', 'rank'] });
      expect(read.data).to.deep.equal([
        { title: 'a', status: 'published', rank: 10 },
        { title: 'c', status: 'draft', rank: 30 },
      ]);

      await articles().deleteMany(ids.slice(0, 2));
      expect(await ctx().server.db('articles').pluck('title')).to.deep.equal(['c']);
    });

    it('sends fields arrays, filter objects, sort and meta the way the server reads them', async () => {
      await articles().createMany([
        { title: 'low', status: 'published', rank: 1 },
        { title: 'high', status: 'published', rank: 9 },
        { title: 'hidden', status: 'draft', rank: 5 },
        { title: 'quote "&=?', status: 'published', rank: 3 },
      ]);
      const result = await articles().readByQuery({
        fields: ['title', 'rank'],
        filter: { _and: [{ status: { _eq: 'published' } }, { rank: { _gte: 2 } }] },
        sort: ['-rank'],
        meta: Meta.FILTER_COUNT,
        limit: -1,
      });
      expect(result.data).to.deep.equal([
        { title: 'high', rank: 9 },
        { title: 'quote "&=?', rank: 3 },
      ]);
      expect(result.meta).to.deep.equal({ filter_count: 2 });
      const searched = await articles().readByQuery({ filter: { title: { _eq: 'quote "&=?' } }, fields: 'rank' });
      expect(searched.data).to.deep.equal([{ rank: 3 }]);
      const aliased = await articles().readByQuery({
        fields: ['name'],
        alias: { name: 'title' },
        sort: 'rank',
        limit: 1,
      });
      expect(aliased.data).to.deep.equal([{ name: 'low' }]);
    });

    it('sends deep objects: a nested filter on an o2m reaches the server', async () => {
      const role = await client.roles.createOne({ name: 'deep-editors' });
      const roleId = role?.id as string;
      await client.users.createMany([
        { email: 'deep-a@example.com', role: roleId },
        { email: 'deep-b@example.com', role: roleId },
      ]);
      const read = await client.roles.readOne(roleId, {
        fields: ['name', 'users.email'],
        deep: { users: { _filter: { email: { _eq: 'deep-b@example.com' } } } },
      });
      expect(read).to.deep.equal({ name: 'deep-editors', users: [{ email: 'deep-b@example.com' }] });
    });

    it('requestOptions override the query parameters, and their headers the Authorization', async () => {
      await articles().createMany([
        { title: 'one', status: 'x', rank: 1 },
        { title: 'two', status: 'x', rank: 2 },
      ]);
      const result = await articles().readByQuery(
        { fields: ['title'], sort: 'rank' },
        { requestOptions: { params: { fields: ['rank'], sort: '-rank' } } },
      );
      expect(result.data).to.deep.equal([{ rank: 2 }, { rank: 1 }]);
      const anonymous = articles().readByQuery({}, { requestOptions: { headers: { Authorization: null } } });
      expectServerError(await rejection(anonymous), 403, 'FORBIDDEN');
    });

    it('readMany sends the requestOptions headers on both its requests (the key lookup and the read)', async () => {
      await articles().createMany([
        { title: 'one', status: 'x', rank: 1 },
        { title: 'two', status: 'x', rank: 2 },
      ]);
      const keys = (await ctx().server.db('articles').orderBy('rank').pluck('id')) as number[];
      const signedOut = new ContentClient<{ articles: Article }>(ctx().server.url);
      const asAdmin = { requestOptions: { headers: { Authorization: `Bearer ${TEST_ADMIN.token}` } } };
      const read = await signedOut.items('articles').readMany(keys, { fields: ['title'] }, asAdmin);
      expect(read.data).to.deep.equal([{ title: 'one' }, { title: 'two' }]);
    });

    it('an unknown collection is FORBIDDEN and a bad filter INVALID_QUERY, as TransportError', async () => {
      expectServerError(await rejection(client.items('no_such').readByQuery()), 403, 'FORBIDDEN');
      const invalid = await rejection(articles().readByQuery({ filter: { nope: { _eq: 1 } } }));
      expectServerError(invalid, 400, 'INVALID_QUERY');
      expect(invalid.response?.raw).to.deep.equal({ errors: invalid.errors });
      expect(invalid.parent?.message).to.equal('Request failed with status code 400');
    });

    it('a role without permission gets FORBIDDEN and nothing is written', async () => {
      const user = await createUser(ctx().server.db, {
        role: await createRole(ctx().server.db),
        token: 'no-perm-token',
      });
      const limited = new ContentClient<{ articles: Article }>(ctx().server.url, {
        auth: { staticToken: 'no-perm-token' },
      });
      expect((await limited.users.me.read({ fields: ['id'] }))?.id).to.equal(user.id);
      const error = await rejection(limited.items('articles').createOne({ title: 'sneaky', status: 'x', rank: 0 }));
      expectServerError(error, 403, 'FORBIDDEN');
      expect(await rowCount()).to.equal(0);
    });

    it('an empty id or collection throws EmptyParamError before any request', async () => {
      const offline = new ContentClient('http://127.0.0.1:9');
      let caught: unknown;
      await offline
        .items('articles')
        .readOne('')
        .catch((error: unknown) => (caught = error));
      expect(caught).to.be.instanceOf(EmptyParamError).with.property('message', 'id cannot be an empty string');
      expect(() => offline.items('')).to.throw(EmptyParamError, 'collection cannot be an empty string');
    });

    it('keys with / ? # % and spaces reach their own item: read, update and delete touch only it', async () => {
      await client.collections.createOne({
        collection: 'codes',
        schema: {},
        meta: {},
        fields: [
          { field: 'code', type: 'string', schema: { is_primary_key: true } },
          { field: 'label', type: 'string' },
        ],
      });
      const codes = client.items('codes');
      const keys = ['h', 'h#1', 'q', 'q?x=1', 'a/b', '50%25 off', 'ü 😀'];
      await codes.createMany(keys.map((code) => ({ code, label: code })));
      for (const code of keys) {
        expect(await codes.readOne(code), code).to.deep.equal({ code, label: code });
        expect(await codes.updateOne(code, { label: `${code}!` }), code).to.deep.equal({ code, label: `${code}!` });
      }
      await codes.deleteOne('h#1');
      await codes.deleteOne('q?x=1');
      const left = await ctx().server.db('codes').orderBy('code').pluck('code');
      expect(left).to.deep.equal(['50%25 off', 'a/b', 'h', 'q', 'ü 😀']);
    });

    it('a response cut, aborted or timed out while its body arrives is a TransportError with its status', async () => {
      // A server that answers the headers and part of the body, then stops (or cuts the connection).
      const stalling = createServer((req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"data":[');
        // Each failure comes a while after the headers were sent (a busy machine may take a moment to read them).
        if (req.url?.startsWith('/items/cut') === true) setTimeout(() => req.socket.destroy(), 300);
        if (req.url?.startsWith('/items/aborted') === true) setTimeout(() => aborts.abort(), 300);
      });
      const aborts = new AbortController();
      await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = stalling.address() as AddressInfo;
        const remote = new ContentClient(`http://127.0.0.1:${port}`, { auth: { staticToken: 'unused' } });
        const cases = [
          ['cut', remote.items('cut').readByQuery(), 'TypeError'],
          [
            'aborted',
            remote.items('aborted').readByQuery({}, { requestOptions: { signal: aborts.signal } }),
            'AbortError',
          ],
          [
            'timed out',
            remote.items('slow').readByQuery({}, { requestOptions: { signal: AbortSignal.timeout(1000) } }),
            'TimeoutError',
          ],
        ] as const;
        for (const [what, request, parent] of cases) {
          const error = await rejection(request);
          expect(error.response?.status, what).to.equal(200);
          expect(error.parent?.name, what).to.equal(parent);
          expect(error.errors, what).to.deep.equal([]);
        }
      } finally {
        stalling.closeAllConnections();
        stalling.close();
      }
    });

    it('a network failure is a TransportError without response', async () => {
      const offline = new ContentClient('http://127.0.0.1:9');
      const error = await rejection(offline.server.info());
      expect(error).to.be.instanceOf(TransportError);
      expect(error.response).to.equal(undefined);
      expect(error.parent).to.be.instanceOf(Error);
      expect(error.errors).to.deep.equal([]);
    });
  },
  SQLITE_ONLY,
);
