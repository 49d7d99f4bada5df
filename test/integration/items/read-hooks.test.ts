import { expect } from 'chai';
import { InvalidPayloadError } from '../../../src/errors.js';
import type { HookContext, HookMeta } from '../../../src/items/hooks.js';
import type { Query } from '../../../src/query/index.js';
import { TEST_ADMIN, describeEachDatabase } from '../../support/server.js';
import { adminApi, createCommandSchema, dataOf, errorsOf } from '../commands/schema.js';
import { graphql } from '../graphql/graphql-client.js';
import { TestSocket, socketUrl } from '../realtime/sockets.js';

type Row = Record<string, unknown>;

/** What the test's read handlers do to the next read: nothing, narrow its query, refuse it, or change its items. */
type Behaviour = 'pass' | 'narrow' | 'refuse' | 'mark';

/** One handler call, as the handler saw it. */
interface Seen {
  readonly event: string;
  readonly payload?: unknown;
  readonly meta: HookMeta;
  readonly context: HookContext;
}

/**
 * Directus 10's read events of the items service (src/items/read-events.ts) through the real
 * server: every door's read (REST GET, the fast door on PostgreSQL, SEARCH, exports and
 * `limit=-1` streams, GraphQL, the WebSocket) runs the `items.query` filters on its query and
 * the `items.read` filters and actions on its items.
 */
describeEachDatabase(
  'items: the items.query and items.read events around every read',
  (ctx) => {
    let behaviour: Behaviour = 'pass';
    let seen: Seen[] = [];
    const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
    const calls = (event: string) => seen.filter((s) => s.event === event);
    /** The action calls once `n` have come (actions run after the read, unawaited). */
    const actions = async (n: number) => {
      const deadline = Date.now() + 5000;
      while (calls('articles.items.read:action').length < n) {
        if (Date.now() > deadline) throw new Error(`fewer than ${String(n)} items.read actions`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return calls('articles.items.read:action');
    };
    let first: unknown;

    before(async () => {
      await createCommandSchema(ctx());
      const { hooks } = ctx().server;
      hooks.filter(
        'articles.items.query',
        (payload: unknown, meta: HookMeta, context: HookContext) => {
          seen.push({ event: 'articles.items.query', payload, meta, context });
          if (behaviour === 'refuse') throw new InvalidPayloadError('articles are not read today');
          if (behaviour === 'narrow') return { ...(payload as Query), fields: ['id'] };
          return undefined;
        },
        'test-read-hooks',
      );
      hooks.filter(
        'articles.items.read',
        (payload: unknown, meta: HookMeta, context: HookContext) => {
          seen.push({ event: 'articles.items.read', payload, meta, context });
          if (behaviour !== 'mark') return undefined;
          return (payload as Row[]).map((item) => ({ ...item, title: `${String(item['title'])}!` }));
        },
        'test-read-hooks',
      );
      hooks.action(
        'articles.items.read',
        (meta: HookMeta, context: HookContext) => {
          seen.push({ event: 'articles.items.read:action', meta, context });
        },
        'test-read-hooks',
      );
      const created = dataOf<Row[]>(await api('POST', '/items/articles', [{ title: 'one' }, { title: 'two' }]));
      first = created[0]?.['id'];
    });

    beforeEach(() => {
      behaviour = 'pass';
      seen = [];
    });

    describe('REST', () => {
      it('GET /items/articles: the query filter, then the read filter and action with the query and items', async () => {
        behaviour = 'mark';
        const body = await api('GET', '/items/articles?fields=id,title&sort=id&meta=total_count');
        expect(dataOf<Row[]>(body).map((item) => item['title'])).to.deep.equal(['one!', 'two!']);
        expect((body.body as { meta?: unknown }).meta).to.deep.equal({ total_count: 2 });
        const [query] = calls('articles.items.query');
        expect(query?.payload).to.deep.include({ fields: ['id', 'title'], sort: ['id'] });
        expect(query?.meta).to.deep.equal({ collection: 'articles' });
        expect(query?.context.accountability?.admin).to.equal(true);
        expect(query?.context.schema?.collections['articles']?.primary).to.equal('id');
        const [read] = calls('articles.items.read');
        expect((read?.payload as Row[]).map((item) => item['title'])).to.deep.equal(['one', 'two']);
        expect(read?.meta).to.deep.equal({ query: query?.payload, collection: 'articles' });
        const [action] = await actions(1);
        expect(action?.meta['collection']).to.equal('articles');
        expect((action?.meta['payload'] as Row[]).map((item) => item['title'])).to.deep.equal(['one!', 'two!']);
      });

      it('GET /items/articles/:id: one item, read as a list of one', async () => {
        behaviour = 'mark';
        const item = dataOf<Row>(await api('GET', `/items/articles/${String(first)}?fields=title`));
        expect(item).to.deep.equal({ title: 'one!' });
        expect(calls('articles.items.query')).to.have.length(1);
        expect(calls('articles.items.read')[0]?.payload).to.deep.equal([{ title: 'one' }]);
      });

      it('the query the filter returns is the one read', async () => {
        behaviour = 'narrow';
        const items = dataOf<Row[]>(await api('GET', '/items/articles?fields=id,title&sort=id'));
        expect(items).to.deep.equal([{ id: first }, { id: Number(first) + 1 }]);
        expect(calls('articles.items.query')).to.have.length(1);
      });

      it('a query filter that throws refuses the read with its own error', async () => {
        behaviour = 'refuse';
        const errors = errorsOf(await api('GET', '/items/articles'), 400);
        expect(errors.map(([code]) => code)).to.deep.equal(['INVALID_PAYLOAD']);
        expect(calls('articles.items.read')).to.have.length(0);
      });

      it('SEARCH with keys, limit=-1 and an export: each read through the same events', async () => {
        behaviour = 'mark';
        const searched = dataOf<Row[]>(
          await api('SEARCH', '/items/articles', { keys: [first], query: { fields: ['title'] } }),
        );
        expect(searched).to.deep.equal([{ title: 'one!' }]);
        const streamed = dataOf<Row[]>(await api('GET', '/items/articles?fields=title&sort=id&limit=-1'));
        expect(streamed).to.deep.equal([{ title: 'one!' }, { title: 'two!' }]);
        const exported = await ctx().api('/items/articles?fields=title&sort=id&export=json', {
          headers: { Authorization: `Bearer ${TEST_ADMIN.token}` },
        });
        expect(exported.status).to.equal(200);
        expect(JSON.parse(await exported.text())).to.deep.equal([{ title: 'one!' }, { title: 'two!' }]);
        expect(calls('articles.items.query')).to.have.length(3);
        expect(await actions(3)).to.have.length(3);
      });

      it('meta counts the query as given, as Directus does', async () => {
        behaviour = 'narrow';
        const body = await api('GET', '/items/articles?filter[title][_eq]=one&meta=filter_count');
        expect((body.body as { meta?: unknown }).meta).to.deep.equal({ filter_count: 1 });
      });
    });

    describe('GraphQL', () => {
      it('a list, an item by id and their events', async () => {
        behaviour = 'mark';
        const res = await graphql(
          ctx(),
          `{ articles(sort: ["id"]) { title } articles_by_id(id: ${String(first)}) { title } }`,
        );
        expect(res.body.errors).to.equal(undefined);
        expect(res.body.data).to.deep.equal({
          articles: [{ title: 'one!' }, { title: 'two!' }],
          articles_by_id: { title: 'one!' },
        });
        expect(calls('articles.items.query')).to.have.length(2);
        expect(calls('articles.items.query')[0]?.context.accountability?.admin).to.equal(true);
        expect(await actions(2)).to.have.length(2);
      });

      it('a refusal is the error of its field', async () => {
        behaviour = 'refuse';
        const res = await graphql(ctx(), '{ articles { id } }');
        expect(res.body.errors?.map((e) => e.extensions['code'])).to.deep.equal(['INVALID_PAYLOAD']);
      });
    });

    describe('WebSocket', () => {
      it("an items read and a subscription's init data", async () => {
        const socket = await TestSocket.open(
          socketUrl(ctx().server.url, `/websocket?access_token=${TEST_ADMIN.token}`),
        );
        try {
          behaviour = 'mark';
          const read = await socket.request({
            type: 'items',
            collection: 'articles',
            action: 'read',
            id: first,
            query: { fields: ['title'] },
            uid: 'r',
          });
          expect(read['data']).to.deep.equal({ title: 'one!' });
          const init = await socket.request({
            type: 'subscribe',
            collection: 'articles',
            query: { fields: ['title'], sort: ['id'] },
            uid: 's',
          });
          expect(init['data']).to.deep.equal([{ title: 'one!' }, { title: 'two!' }]);
          expect(calls('articles.items.query').map((call) => call.meta)).to.deep.equal([
            { collection: 'articles' },
            { collection: 'articles' },
          ]);
        } finally {
          socket.close();
        }
      });
    });
  },
  { env: { WEBSOCKETS_ENABLED: 'true' } },
);
