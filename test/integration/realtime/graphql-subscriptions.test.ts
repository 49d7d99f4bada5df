import { expect } from 'chai';
import { createClient, type Client, type ExecutionResult } from 'graphql-ws';
import { WebSocket } from 'ws';
import { describeEachDatabase, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { adminApi, createLiveFixture, EDITOR, metricGauge, socketUrl } from './sockets.js';

type Result = ExecutionResult<Record<string, any>>;

/** A graphql-ws subscription whose results are taken one at a time. */
class Subscription {
  readonly #results: Result[] = [];
  readonly #waiting: ((r: Result) => void)[] = [];
  readonly done: Promise<unknown>;
  readonly stop: () => void;

  constructor(client: Client, query: string) {
    let stop: () => void = () => undefined;
    this.done = new Promise((resolve) => {
      stop = client.subscribe(
        { query },
        {
          next: (result) => {
            const waiter = this.#waiting.shift();
            if (waiter !== undefined) waiter(result as Result);
            else this.#results.push(result as Result);
          },
          error: resolve,
          complete: () => resolve(undefined),
        },
      );
    });
    this.stop = stop;
  }

  next(timeoutMs = 5000): Promise<Result> {
    const queued = this.#results.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no result in time')), timeoutMs);
      this.#waiting.push((r) => {
        clearTimeout(timer);
        resolve(r);
      });
    });
  }
}

describeEachDatabase(
  'realtime: GraphQL subscriptions (graphql-ws)',
  (ctx) => {
    const clients: Client[] = [];
    const connect = (path: string, token?: string, onClose?: (event: { code: number; reason: string }) => void) => {
      const client = createClient({
        url: socketUrl(ctx().server.url, path),
        webSocketImpl: WebSocket,
        connectionParams: token === undefined ? {} : { access_token: token },
        retryAttempts: 0,
        lazy: false,
        // The expected closes (TOKEN_EXPIRED) are asserted, not printed.
        onNonLazyError: () => undefined,
        on: { closed: (event) => onClose?.(event as { code: number; reason: string }) },
      });
      clients.push(client);
      return client;
    };

    before(async () => {
      await createLiveFixture(ctx());
    });
    afterEach(async () => {
      await Promise.all(clients.splice(0).map((c) => c.dispose()));
      // The server ends them as their sockets close: the next test counts its own from zero.
      await liveSubscriptions(ctx(), 0);
    });

    it('<collection>_mutated answers {key, event, data} with the own selection, for REST and GraphQL writes', async () => {
      const client = connect('/graphql', TEST_ADMIN.token);
      const sub = new Subscription(client, 'subscription { notes_mutated { key event data { id title } } }');
      await liveSubscriptions(ctx(), 1);
      const created = await adminApi(ctx(), 'POST', '/items/notes', { title: 'via rest' });
      expect((await sub.next()).data).to.deep.equal({
        notes_mutated: {
          key: String(created.id),
          event: 'create',
          data: { id: String(created.id), title: 'via rest' },
        },
      });
      const res = await ctx().api('/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_ADMIN.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `mutation { update_notes_item(id: ${created.id}, data: { title: "via graphql" }) { id } }`,
        }),
      });
      expect(res.status, await res.text()).to.equal(200);
      expect((await sub.next()).data?.['notes_mutated']).to.deep.include({
        event: 'update',
        data: { id: String(created.id), title: 'via graphql' },
      });
      await adminApi(ctx(), 'DELETE', `/items/notes/${created.id}`);
      expect((await sub.next()).data?.['notes_mutated']).to.deep.equal({
        key: String(created.id),
        event: 'delete',
        data: null,
      });
    });

    it('filters by event and by the subscriber’s permissions of now', async () => {
      const client = connect('/graphql', 'realtime-editor-token');
      const sub = new Subscription(
        client,
        'subscription { notes_mutated(event: create) { key data { title status } } }',
      );
      await liveSubscriptions(ctx(), 1);
      await adminApi(ctx(), 'POST', '/items/notes', { title: 'draft' });
      const visible = await adminApi(ctx(), 'POST', '/items/notes', { title: 'published', status: 'published' });
      // The event's data is read when it is delivered, with the subscriber's permissions of that
      // moment, so the update waits for the create's delivery; the update itself must never come.
      expect((await sub.next()).data?.['notes_mutated']).to.deep.equal({
        key: String(visible.id),
        data: { title: 'published', status: 'published' },
      });
      await adminApi(ctx(), 'PATCH', `/items/notes/${visible.id}`, { title: 'not a create' });
      const second = await adminApi(ctx(), 'POST', '/items/notes', { title: 'published 2', status: 'published' });
      expect((await sub.next()).data?.['notes_mutated']).to.deep.equal({
        key: String(second.id),
        data: { title: 'published 2', status: 'published' },
      });
    });

    it('system collections on /graphql/system', async () => {
      const client = connect('/graphql/system', TEST_ADMIN.token);
      const sub = new Subscription(client, 'subscription { roles_mutated { event data { name } } }');
      await liveSubscriptions(ctx(), 1);
      await adminApi(ctx(), 'POST', '/roles', { name: 'Watchers' });
      expect((await sub.next()).data?.['roles_mutated']).to.deep.equal({ event: 'create', data: { name: 'Watchers' } });
    });

    it('no token is the public role: a collection it cannot read has no subscription', async () => {
      const client = connect('/graphql');
      const sub = new Subscription(client, 'subscription { notes_mutated { key } }');
      const [error] = (await sub.done) as readonly { extensions: { code: string; errors: { message: string }[] } }[];
      expect(error?.extensions.code).to.equal('GRAPHQL_VALIDATION');
      expect(error?.extensions.errors[0]?.message).to.match(
        /Cannot query field "notes_mutated"|not configured to execute subscription/,
      );
    });

    it('the HTTP schema describes the Subscription root; a subscription sent over HTTP is GRAPHQL_VALIDATION', async () => {
      const post = (path: string, query: string) =>
        ctx().api(path, {
          method: 'POST',
          headers: { authorization: `Bearer ${TEST_ADMIN.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query }),
        });
      const introspected = await post('/graphql', '{ __schema { subscriptionType { name fields { name } } } }');
      const schema = ((await introspected.json()) as { data: { __schema: any } }).data.__schema;
      expect(schema.subscriptionType.name).to.equal('Subscription');
      expect(schema.subscriptionType.fields.map((f: { name: string }) => f.name)).to.include('notes_mutated');
      const sdl = await ctx().api('/server/specs/graphql/system', {
        headers: { authorization: `Bearer ${TEST_ADMIN.token}` },
      });
      expect(sdl.status).to.equal(200);
      expect(await sdl.text()).to.match(/type Subscription \{[^}]*roles_mutated\(event: EventEnum\): roles_mutated/);

      for (const [path, query] of [
        ['/graphql', 'subscription { notes_mutated { key } }'],
        ['/graphql/system', 'subscription { roles_mutated { key } }'],
      ] as const) {
        const res = await post(path, query);
        const text = await res.text();
        expect(res.status, text).to.equal(400);
        const [error] = (JSON.parse(text) as { errors: { message: string; extensions: any }[] }).errors;
        expect(error?.extensions.code).to.equal('GRAPHQL_VALIDATION');
        expect(error?.extensions.errors[0].message).to.include(`WebSocket (graphql-ws) at ${path}`);
      }
    });

    it('WEBSOCKETS_SUBSCRIPTION_LIMIT holds per graphql-ws connection: one more is LIMIT_EXCEEDED until one ends', async () => {
      const client = connect('/graphql', TEST_ADMIN.token);
      const query = 'subscription { notes_mutated { key } }';
      const outcome = async (sub: Subscription) => Promise.race([sub.done, aMoment().then(() => 'running')]);
      const running = [
        new Subscription(client, query),
        new Subscription(client, query),
        new Subscription(client, query),
      ];
      for (const sub of running) expect(await outcome(sub)).to.equal('running');
      // Refused as it starts: its one result is the error, then it completes.
      const refused = new Subscription(client, query);
      expect(await outcome(refused)).to.equal(undefined);
      const [error] = (await refused.next()).errors ?? [];
      expect(error?.extensions?.['code']).to.equal('LIMIT_EXCEEDED');
      running[0]?.stop();
      expect(await outcome(new Subscription(client, query))).to.equal('running');
      // The subscriptions that run still get their events.
      const created = await adminApi(ctx(), 'POST', '/items/notes', { title: 'limited' });
      expect((await running[1]!.next()).data).to.deep.equal({ notes_mutated: { key: String(created.id) } });
    });

    it('a burst of subscribes on one connection cannot pass WEBSOCKETS_SUBSCRIPTION_LIMIT together', async () => {
      const client = connect('/graphql', TEST_ADMIN.token);
      const query = 'subscription { notes_mutated { key } }';
      const burst = Array.from({ length: 12 }, () => new Subscription(client, query));
      const outcomes = await Promise.all(
        burst.map((sub) => Promise.race([sub.done.then(() => 'ended'), aMoment().then(() => 'running')])),
      );
      expect(outcomes.filter((o) => o === 'running')).to.have.length(3);
      const created = await adminApi(ctx(), 'POST', '/items/notes', { title: 'burst' });
      for (const [i, sub] of burst.entries())
        if (outcomes[i] === 'running')
          expect((await sub.next()).data).to.deep.equal({ notes_mutated: { key: String(created.id) } });
    });

    it('a delete is told only to subscribers who could read the item before it went', async () => {
      const client = connect('/graphql', EDITOR.token);
      const sub = new Subscription(client, 'subscription { notes_mutated(event: delete) { key event } }');
      await liveSubscriptions(ctx(), 1);
      const draft = await adminApi(ctx(), 'POST', '/items/notes', { title: 'gql draft', status: 'draft' });
      const published = await adminApi(ctx(), 'POST', '/items/notes', { title: 'gql published', status: 'published' });
      await adminApi(ctx(), 'DELETE', `/items/notes/${draft.id}`);
      await adminApi(ctx(), 'DELETE', `/items/notes/${published.id}`);
      expect((await sub.next()).data).to.deep.equal({
        notes_mutated: { key: String(published.id), event: 'delete' },
      });
    });

    it('an expired token ends the socket with TOKEN_EXPIRED', async function () {
      this.timeout(15000);
      const login = await ctx().api('/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'editor@example.com', password: 'editor-password' }),
      });
      const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
      let closed: (e: { code: number; reason: string }) => void = () => undefined;
      const closing = new Promise<{ code: number; reason: string }>((resolve) => (closed = resolve));
      const client = connect('/graphql', token, (e) => closed(e));
      const sub = new Subscription(client, 'subscription { notes_mutated { key } }');
      await liveSubscriptions(ctx(), 1);
      // ACCESS_TOKEN_TTL is 2s in this suite: the next change after that is not delivered.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      await adminApi(ctx(), 'POST', '/items/notes', { title: 'after expiry', status: 'published' });
      expect(await closing).to.deep.include({ code: 4401, reason: 'TOKEN_EXPIRED' });
      void sub;
    });
  },
  {
    env: {
      WEBSOCKETS_ENABLED: 'true',
      ACCESS_TOKEN_TTL: '2s',
      WEBSOCKETS_SUBSCRIPTION_LIMIT: '3',
      METRICS_ENABLED: 'true',
    },
  },
);

/** A second: a subscription not refused by then is running. */
function aMoment(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1000));
}

/**
 * Waits until the server holds `count` live subscriptions (GET /server/metrics): a subscription
 * is registered some time after its subscribe message is sent (the caller's permissions and
 * schema are loaded first), and a change committed before that is not told to it.
 */
async function liveSubscriptions(ctx: ServerContext, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const live = await metricGauge(ctx.server.url, TEST_ADMIN.token, 'svc_live_subscriptions');
    if (live === count) return;
    if (Date.now() > deadline) expect.fail(`${count} live subscriptions expected, the server holds ${live}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
