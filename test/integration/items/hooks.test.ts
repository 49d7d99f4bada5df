import { expect } from 'chai';
import { InvalidPayloadError } from '../../../src/errors.js';
import type { HookContext, HookMeta } from '../../../src/items/hooks.js';
import { TEST_ADMIN, describeEachDatabase } from '../../support/server.js';
import { adminApi, createCommandSchema, dataOf, errorsOf } from '../commands/schema.js';
import { graphql } from '../graphql/graphql-client.js';
import { TestSocket, socketUrl } from '../realtime/sockets.js';

type Row = Record<string, unknown>;

/** What the test's filters do to the next write: nothing, change its payload, or refuse it. */
type Behaviour = 'pass' | 'change' | 'refuse' | 'crash';

/** One filter or action call, as the handler saw it. */
interface Seen {
  readonly event: string;
  readonly payload?: unknown;
  readonly meta: HookMeta;
  readonly context: HookContext;
  /** For actions: the written row as the database had it when the action ran. */
  readonly row?: Row | undefined;
}

/**
 * The items service's hooks (src/items/hooks.ts) through the real server: one HookBus per
 * process, handlers registered on it as an extension would, and every door's write (REST,
 * GraphQL, the WebSocket) running the same filters before and actions after its commit.
 */
describeEachDatabase(
  'items: filters and actions around every write',
  (ctx) => {
    let behaviour: Behaviour = 'pass';
    let seen: Seen[] = [];
    let waiting: ((call: Seen) => void) | undefined;
    const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
    const count = async () => Number((await ctx().server.db('articles').count({ n: '*' }).first<{ n: unknown }>())?.n);
    const titleOf = async (id: unknown) =>
      (await ctx().server.db('articles').where({ id }).first<Row | undefined>('title'))?.['title'];
    /** The next action call of `event`, however soon it came. */
    const nextAction = (event: string) =>
      new Promise<Seen>((resolve, reject) => {
        const found = seen.find((s) => s.event === event && s.row !== undefined);
        if (found !== undefined) {
          resolve(found);
          return;
        }
        const timer = setTimeout(() => {
          reject(new Error(`no ${event} action`));
        }, 5000);
        waiting = (call) => {
          if (call.event !== event) return;
          clearTimeout(timer);
          resolve(call);
        };
      });

    before(async () => {
      await createCommandSchema(ctx());
      const { hooks, db } = ctx().server;
      const filter = (event: string) => (payload: unknown, meta: HookMeta, context: HookContext) => {
        seen.push({ event, payload, meta, context });
        if (behaviour === 'refuse') throw new InvalidPayloadError('articles are closed');
        if (behaviour === 'crash') throw new Error('the extension broke');
        if (behaviour === 'change' && event === 'articles.items.create') {
          return { ...(payload as Row), title: String((payload as Row)['title']).toUpperCase() };
        }
        if (behaviour === 'change' && event === 'items.update') return { ...(payload as Row), views: 42 };
        return undefined;
      };
      const action = (event: string) => async (meta: HookMeta, context: HookContext) => {
        const keys = (meta['keys'] ?? [meta['key']]) as (string | number)[];
        const row = (await db('articles').whereIn('id', keys).select('id', 'title', 'views'))[0] as Row | undefined;
        const call = { event, meta, context, row: row ?? {} };
        seen.push(call);
        waiting?.(call);
      };
      hooks.filter('articles.items.create', filter('articles.items.create'), 'test-hooks');
      hooks.filter('items.update', filter('items.update'), 'test-hooks');
      hooks.filter('items.delete', filter('items.delete'), 'test-hooks');
      hooks.action('articles.items.create', action('articles.items.create'), 'test-hooks');
      hooks.action('items.update', action('items.update'), 'test-hooks');
      hooks.action('items.delete', action('items.delete'), 'test-hooks');
    });

    beforeEach(() => {
      behaviour = 'pass';
      seen = [];
      waiting = undefined;
    });

    describe('a filter changes the payload: what it returns is written', () => {
      it('REST POST /items/articles', async () => {
        behaviour = 'change';
        const created = dataOf<Row>(await api('POST', '/items/articles?fields=id,title', { title: 'quiet' }));
        expect(created['title']).to.equal('QUIET');
        expect(await titleOf(created['id'])).to.equal('QUIET');
        const [call] = seen;
        expect(call?.payload).to.deep.equal({ title: 'quiet' });
        expect(call?.meta).to.deep.equal({ collection: 'articles' });
        expect(call?.context.accountability?.admin).to.equal(true);
        expect(call?.context.schema?.collections['articles']?.primary).to.equal('id');
      });

      it('REST PATCH /items/articles/:id: items.update with the keys', async () => {
        const { id } = dataOf<Row>(await api('POST', '/items/articles', { title: 'patched' }));
        behaviour = 'change';
        const updated = dataOf<Row>(await api('PATCH', `/items/articles/${String(id)}?fields=views`, { views: 1 }));
        expect(updated).to.deep.equal({ views: 42 });
        const update = seen.find((s) => s.event === 'items.update');
        expect(update?.payload).to.deep.equal({ views: 1 });
        expect(update?.meta).to.deep.equal({ keys: [String(id)], collection: 'articles' });
      });

      it('GraphQL create_articles_item, through the same filter', async () => {
        behaviour = 'change';
        const res = await graphql(ctx(), 'mutation { create_articles_item(data: { title: "graph" }) { id title } }');
        expect(res.body.errors).to.equal(undefined);
        const created = res.body.data?.['create_articles_item'] as Row;
        expect(created['title']).to.equal('GRAPH');
        expect(await titleOf(created['id'])).to.equal('GRAPH');
      });

      it('the WebSocket items update, through the same filter', async () => {
        const { id } = dataOf<Row>(await api('POST', '/items/articles', { title: 'socket' }));
        const socket = await TestSocket.open(
          socketUrl(ctx().server.url, `/websocket?access_token=${TEST_ADMIN.token}`),
        );
        try {
          behaviour = 'change';
          const answer = await socket.request({
            type: 'items',
            collection: 'articles',
            action: 'update',
            id,
            data: { views: 3 },
            query: { fields: ['id', 'views'] },
            uid: 'u',
          });
          expect(answer['data']).to.deep.equal({ id, views: 42 });
        } finally {
          socket.close();
        }
      });
    });

    describe('a filter that throws refuses the write: nothing written, its error answered', () => {
      it('REST POST: the service error it threw, with its code and status', async () => {
        const before = await count();
        behaviour = 'refuse';
        const errors = errorsOf(await api('POST', '/items/articles', [{ title: 'one' }, { title: 'two' }]), 400);
        expect(errors.map(([code]) => code)).to.deep.equal(['INVALID_PAYLOAD']);
        expect(await count()).to.equal(before);
        // No action for these rows (an earlier test's action may still land in `seen`: they run
        // after their commit, unawaited by the request).
        expect(seen.some((s) => s.row !== undefined && ['one', 'two'].includes(String(s.row['title'])))).to.equal(
          false,
        );
      });

      it('REST PATCH and DELETE: the item unchanged, still there', async () => {
        const { id } = dataOf<Row>(await api('POST', '/items/articles', { title: 'kept' }));
        behaviour = 'refuse';
        errorsOf(await api('PATCH', `/items/articles/${String(id)}`, { title: 'lost' }), 400);
        errorsOf(await api('DELETE', '/items/articles', { query: { filter: { id: { _eq: id } } } }), 400);
        expect(await titleOf(id)).to.equal('kept');
        const deleteFilter = seen.find((s) => s.event === 'items.delete');
        expect(deleteFilter?.payload).to.deep.equal([id]);
      });

      it('GraphQL: the error code in extensions, nothing written', async () => {
        const before = await count();
        behaviour = 'refuse';
        const res = await graphql(ctx(), 'mutation { create_articles_items(data: [{ title: "g" }]) { id } }');
        expect(res.body.errors?.map((e) => e.extensions['code'])).to.deep.equal(['INVALID_PAYLOAD']);
        expect(await count()).to.equal(before);
      });

      it('a handler that fails unexpectedly: 500, nothing written', async () => {
        const before = await count();
        behaviour = 'crash';
        const errors = errorsOf(await api('POST', '/items/articles', { title: 'crash' }), 500);
        expect(errors.map(([code]) => code)).to.deep.equal(['INTERNAL_SERVER_ERROR']);
        expect(await count()).to.equal(before);
      });
    });

    describe('actions run after the commit', () => {
      it('create: with the key, the row already committed', async () => {
        const created = dataOf<Row>(await api('POST', '/items/articles', { title: 'acted' }));
        const call = await nextAction('articles.items.create');
        expect(call.meta).to.deep.include({ key: created['id'], collection: 'articles' });
        expect(call.meta['payload']).to.deep.equal({ title: 'acted' });
        expect(call.row).to.deep.include({ id: created['id'], title: 'acted' });
      });

      it('update and delete: with the keys', async () => {
        const { id } = dataOf<Row>(await api('POST', '/items/articles', { title: 'twice' }));
        seen = [];
        dataOf(await api('PATCH', `/items/articles/${String(id)}`, { views: 7 }));
        const updated = await nextAction('items.update');
        expect(updated.meta).to.deep.include({ collection: 'articles', payload: { views: 7 } });
        expect((updated.meta['keys'] as unknown[]).map(String)).to.deep.equal([String(id)]);
        expect(updated.row).to.deep.include({ views: 7 });
        expect((await api('DELETE', `/items/articles/${String(id)}`)).status).to.equal(204);
        const deleted = await nextAction('items.delete');
        expect(deleted.meta).to.deep.include({ collection: 'articles' });
        expect((deleted.meta['keys'] as unknown[]).map(String)).to.deep.equal([String(id)]);
        expect(deleted.meta['payload']).to.deep.equal(deleted.meta['keys']);
        // The action ran once the delete was committed: the row was gone.
        expect(deleted.row).to.deep.equal({});
      });
    });
  },
  { env: { WEBSOCKETS_ENABLED: 'true' } },
);
