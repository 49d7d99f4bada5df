import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { HookBus, HookError } from '../../../src/items/hooks.js';
import { registerFlowHooks } from '../../../src/flows/index.js';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { adminApi, createCommandSchema, dataOf, errorsOf, parseJson } from '../commands/schema.js';
import { Receiver } from './receiver.js';

type Row = Record<string, unknown>;
interface Step {
  readonly key: string;
  readonly status: string;
  readonly data: unknown;
}

const receiver = new Receiver();

describeEachDatabase(
  'flows',
  (ctx) => {
    const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);

    /** A flow and its chain, saved through /flows and /operations; `resolve`/`reject` name keys. */
    const createFlow = async (
      flow: Row,
      operations: readonly (Row & { key: string; resolve?: string; reject?: string })[],
    ): Promise<string> => {
      const id = String(
        dataOf<Row>(await api('POST', '/flows', { status: 'active', accountability: 'all', ...flow }))['id'],
      );
      const ids = new Map(operations.map((op) => [op.key, randomUUID()]));
      // Last first: an operation's resolve and reject name operations that exist.
      for (const op of [...operations].reverse()) {
        const { resolve, reject, ...rest } = op;
        dataOf(
          await api('POST', '/operations', {
            ...rest,
            id: ids.get(op.key),
            flow: id,
            resolve: resolve === undefined ? null : ids.get(resolve),
            reject: reject === undefined ? null : ids.get(reject),
          }),
        );
      }
      const [first] = operations;
      if (first !== undefined) dataOf(await api('PATCH', `/flows/${id}`, { operation: ids.get(first.key) }));
      return id;
    };

    const trigger = (id: string, body?: unknown, token: string | null = TEST_ADMIN.token) =>
      ctx().api(`/flows/trigger/${id}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        },
        body: JSON.stringify(body ?? {}),
      });

    /** The steps of the flow's runs, oldest first (svc_activity `run` + svc_revisions, as Directus logs them). */
    const runs = async (flowId: string): Promise<Step[][]> => {
      const { db } = ctx().server;
      const rows = await db('svc_activity')
        .join('svc_revisions', 'svc_revisions.activity', 'svc_activity.id')
        .where({ 'svc_activity.action': 'run', 'svc_activity.collection': 'svc_flows', 'svc_activity.item': flowId })
        .orderBy('svc_activity.id')
        .select<Row[]>('svc_revisions.data');
      return rows.map((row) => (parseJson(row['data']) as { steps: Step[] }).steps);
    };

    before(async () => {
      await createCommandSchema(ctx());
      await receiver.start();
    });
    after(() => receiver.stop());
    beforeEach(() => {
      receiver.requests.length = 0;
      receiver.failures = 0;
    });

    it('flows and operations are system collections served at /flows and /operations', async () => {
      const id = await createFlow({ name: 'listed', trigger: 'webhook', options: { method: 'POST' } }, [
        { key: 'say', type: 'log', options: { message: 'hi' } },
      ]);
      const flows = dataOf<Row[]>(await api('GET', '/flows?fields=id,name,operations.key'));
      expect(flows.find((f) => f['id'] === id)).to.deep.include({ name: 'listed', operations: [{ key: 'say' }] });
      expect(dataOf<Row[]>(await api('GET', `/operations?filter[flow][_eq]=${id}&fields=key,type`))).to.deep.equal([
        { key: 'say', type: 'log' },
      ]);
      const graphql = await ctx().api('/graphql/system', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN.token}` },
        body: JSON.stringify({ query: `{ flows_by_id(id: "${id}") { name trigger } }` }),
      });
      expect(((await graphql.json()) as { data: unknown }).data).to.deep.equal({
        flows_by_id: { name: 'listed', trigger: 'webhook' },
      });
    });

    it("a flow and its operations are saved in one request, as the README's example does", async () => {
      const [id, first] = [randomUUID(), randomUUID()];
      dataOf(
        await api('POST', '/flows', {
          id,
          name: 'one request',
          trigger: 'webhook',
          status: 'active',
          operation: first,
          options: { method: 'POST' },
          operations: [
            { id: first, key: 'echo', type: 'transform', options: { json: { got: '{{ $trigger.body.n }}' } } },
          ],
        }),
      );
      expect(await (await trigger(id, { n: 1 })).json()).to.deep.equal({ got: 1 });
    });

    it('a webhook runs condition, transform, item and request operations, passes data by key, and logs each step', async () => {
      const id = await createFlow(
        { name: 'publish', trigger: 'webhook', options: { method: 'POST', return: '$all' } },
        [
          {
            key: 'check',
            type: 'condition',
            options: { filter: { $trigger: { body: { status: { _eq: 'published' } } } } },
            resolve: 'shape',
            reject: 'skipped',
          },
          {
            key: 'shape',
            type: 'transform',
            options: { json: { title: '{{ $trigger.body.title }}', views: '{{ $trigger.body.views }}' } },
            resolve: 'save',
          },
          {
            key: 'save',
            type: 'item-create',
            options: {
              collection: 'articles',
              permissions: '$full',
              payload: { title: '{{ shape.title }}', views: '{{ shape.views }}', status: 'published' },
            },
            resolve: 'read',
          },
          {
            key: 'read',
            type: 'item-read',
            options: {
              collection: 'articles',
              key: '{{ save }}',
              permissions: '$full',
              query: { fields: ['id', 'title', 'views'] },
            },
            resolve: 'notify',
          },
          {
            key: 'notify',
            type: 'request',
            options: {
              url: `${receiver.url}/rebuild`,
              method: 'POST',
              headers: [{ header: 'x-title', value: 'new: {{ read.title }}' }],
              body: '{{ read }}',
            },
          },
          { key: 'skipped', type: 'log', options: { message: 'not published: {{ $last }}' } },
        ],
      );

      const answer = (await (await trigger(id, { status: 'published', title: 'Hello', views: 7 })).json()) as Row;
      const saved = answer['save'];
      expect(answer['shape']).to.deep.equal({ title: 'Hello', views: 7 });
      expect(answer['read']).to.deep.equal({ id: saved, title: 'Hello', views: 7 });
      expect(answer['notify']).to.deep.include({ status: 200, data: { ok: true, got: '/rebuild' } });
      const [delivery] = await receiver.waitFor(1);
      expect(JSON.parse(delivery?.body ?? '')).to.deep.equal({ id: saved, title: 'Hello', views: 7 });
      expect(delivery?.headers['x-title']).to.equal('new: Hello');
      expect(await ctx().server.db('articles').where({ id: saved }).first()).to.include({ title: 'Hello' });

      // A draft takes the reject path: nothing is written, nothing is sent.
      const before = await ctx().server.db('articles').count({ n: '*' }).first<{ n: number | string }>();
      const draft = (await (await trigger(id, { status: 'draft', title: 'Nope' })).json()) as Row;
      expect(draft['check']).to.deep.equal([
        { path: '$trigger.body.status', message: '"$trigger.body.status" does not match the condition' },
      ]);
      const after = await ctx().server.db('articles').count({ n: '*' }).first<{ n: number | string }>();
      expect(Number(after?.n)).to.equal(Number(before?.n));
      expect(receiver.requests).to.have.length(1);

      const logged = await runs(id);
      expect(logged.map((steps) => steps.map((s) => `${s.key}:${s.status}`))).to.deep.equal([
        ['check:resolve', 'shape:resolve', 'save:resolve', 'read:resolve', 'notify:resolve'],
        ['check:reject', 'skipped:resolve'],
      ]);
    });

    it('a request to a denied address is refused at run time, with the reason in the log', async () => {
      const id = await createFlow({ name: 'denied', trigger: 'webhook', options: { method: 'POST' } }, [
        { key: 'leak', type: 'request', options: { url: 'http://169.254.169.254/latest/meta-data/', method: 'GET' } },
      ]);
      const answer = (await (await trigger(id)).json()) as Row;
      expect(String(answer['message'])).to.match(/169\.254\.169\.254 is denied/);
      const [steps] = await runs(id);
      expect(steps?.[0]).to.deep.include({ key: 'leak', status: 'reject' });
      expect(JSON.stringify(steps?.[0]?.data)).to.match(/is denied/);
    });

    it('a chain that loops stops after FLOWS_MAX_STEPS, and a flow that triggers itself at FLOWS_MAX_DEPTH', async () => {
      // Saving a loop is refused (flow-graphs.test.ts): these were written past the API, as a
      // loop saved before that rule was, to show the run time's backstop.
      const { db } = ctx().server;
      const looping = await createFlow({ name: 'loop', trigger: 'webhook', options: { method: 'POST' } }, [
        { key: 'ping', type: 'log', options: { message: 'ping' }, resolve: 'pong' },
        { key: 'pong', type: 'log', options: { message: 'pong' } },
      ]);
      const ping = (await db('svc_operations').where({ flow: looping, key: 'ping' }).first()) as Row;
      await db('svc_operations').where({ flow: looping, key: 'pong' }).update({ resolve: ping['id'] });
      const answer = (await (await trigger(looping)).json()) as Row;
      expect(String(answer['message'])).to.match(/FLOWS_MAX_STEPS \(10\)/);
      const [steps] = await runs(looping);
      expect(steps).to.have.length(11);
      expect(steps?.[10]).to.deep.include({ status: 'unknown' });

      const selfId = randomUUID();
      dataOf(
        await api('POST', '/flows', {
          id: selfId,
          name: 'self',
          status: 'active',
          accountability: 'all',
          trigger: 'webhook',
          options: { method: 'POST' },
        }),
      );
      const opId = randomUUID();
      await db('svc_operations').insert({
        id: opId,
        flow: selfId,
        key: 'again',
        type: 'trigger',
        options: JSON.stringify({ flow: selfId }),
      });
      await db('svc_flows').where({ id: selfId }).update({ operation: opId });
      const nested = (await (await trigger(selfId)).json()) as Row;
      expect(String(nested['message'])).to.match(/FLOWS_MAX_DEPTH \(3\)/);
      // Depths 0 to 3 ran (and are logged); the fifth was refused before it started.
      expect(await runs(selfId)).to.have.length(4);
    });

    it('a manual flow needs a user and one of its collections; an unknown flow is FORBIDDEN', async () => {
      const id = await createFlow({ name: 'manual', trigger: 'manual', options: { collections: ['articles'] } }, [
        { key: 'echo', type: 'transform', options: { json: { keys: '{{ $trigger.body.keys }}' } } },
      ]);
      expect((await trigger(id, { collection: 'articles', keys: [1] }, null)).status).to.equal(401);
      expect(
        errorsOf(
          { status: 400, body: await (await trigger(id, { collection: 'authors', keys: [1] })).json() } as never,
          400,
        )[0]?.[0],
      ).to.equal('INVALID_PAYLOAD');
      expect(await (await trigger(id, { collection: 'articles', keys: [1, 2] })).json()).to.deep.equal({
        keys: [1, 2],
      });
      expect((await trigger(randomUUID())).status).to.equal(403);
    });

    it('an async webhook answers 204 at once and runs on the job queue', async () => {
      const id = await createFlow({ name: 'async', trigger: 'webhook', options: { method: 'POST', async: true } }, [
        {
          key: 'call',
          type: 'request',
          options: { url: `${receiver.url}/async`, method: 'POST', body: '{{ $trigger.body }}' },
        },
      ]);
      const res = await trigger(id, { hello: 'world' });
      expect(res.status).to.equal(204);
      const [delivery] = await receiver.waitFor(1);
      expect(JSON.parse(delivery?.body ?? '')).to.deep.equal({ hello: 'world' });
    });

    it('event flows: a publish calls the receiver once with the item, and a blocking flow refuses a write with its message', async () => {
      const bus = new HookBus();
      registerFlowHooks(bus, ctx().server.flows);
      await createFlow(
        {
          name: 'rebuild on publish',
          trigger: 'event',
          options: {
            type: 'action',
            scope: ['items.update'],
            collections: ['articles'],
            filter: { payload: { status: { _eq: 'published' } } },
          },
        },
        [
          {
            key: 'rebuild',
            type: 'request',
            options: { url: `${receiver.url}/build`, method: 'POST', body: '{{ $trigger }}' },
          },
        ],
      );
      await createFlow(
        {
          name: 'no spam',
          trigger: 'event',
          options: { type: 'filter', scope: ['items.create'], collections: ['articles'] },
        },
        [
          {
            key: 'check',
            type: 'condition',
            options: { filter: { $trigger: { payload: { title: { _ncontains: 'spam' } } } } },
          },
        ],
      );
      const context = { database: ctx().server.db, schema: null, accountability: null };
      bus.runAction(['items.update'], { collection: 'articles', keys: [1], payload: { status: 'draft' } }, context);
      bus.runAction(['items.update'], { collection: 'articles', keys: [2], payload: { status: 'published' } }, context);
      bus.runAction(['items.update'], { collection: 'authors', keys: [2], payload: { status: 'published' } }, context);
      const [delivery] = await receiver.waitFor(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.requests).to.have.length(1);
      expect(JSON.parse(delivery?.body ?? '')).to.deep.include({
        event: 'items.update',
        collection: 'articles',
        keys: [2],
        payload: { status: 'published' },
      });

      const meta = { collection: 'articles' };
      expect(await bus.runFilter(['items.create'], { title: 'fine' }, meta, context)).to.deep.equal({ title: 'fine' });
      const refusal = await bus.runFilter(['items.create'], { title: 'buy spam' }, meta, context).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).to.be.instanceOf(HookError);
      expect((refusal as HookError).message).to.match(
        /flow "no spam" refused the write: "\$trigger\.payload\.title" does not match the condition/,
      );
    });

    it('through the items service: a publish calls the receiver once with the item, a blocking flow refuses a write and nothing is written', async () => {
      const { db } = ctx().server;
      await db('svc_flows').where({ trigger: 'event' }).update({ status: 'inactive' });
      await createFlow(
        {
          name: 'publish hook',
          trigger: 'event',
          options: {
            type: 'action',
            scope: ['items.update'],
            collections: ['articles'],
            filter: { payload: { status: { _eq: 'published' } } },
          },
        },
        [
          {
            key: 'item',
            type: 'item-read',
            options: { collection: 'articles', key: '{{ $trigger.keys.0 }}', permissions: '$full' },
            resolve: 'send',
          },
          {
            key: 'send',
            type: 'request',
            options: { url: `${receiver.url}/publish`, method: 'POST', body: '{{ item }}' },
          },
        ],
      );
      await createFlow(
        {
          name: 'guard',
          trigger: 'event',
          options: { type: 'filter', scope: ['items.create'], collections: ['articles'] },
        },
        [
          {
            key: 'check',
            type: 'condition',
            options: { filter: { $trigger: { payload: { title: { _ncontains: 'spam' } } } } },
          },
        ],
      );
      // No wait: a flow saved through this instance applies to its next write.
      const created = dataOf<Row>(await api('POST', '/items/articles', { title: 'Ready', status: 'draft' }));
      dataOf(await api('PATCH', `/items/articles/${String(created['id'])}`, { title: 'Ready now' }));
      dataOf(await api('PATCH', `/items/articles/${String(created['id'])}`, { status: 'published' }));
      const [delivery] = await receiver.waitFor(1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.requests).to.have.length(1);
      expect(JSON.parse(delivery?.body ?? '')).to.deep.include({
        id: created['id'],
        title: 'Ready now',
        status: 'published',
      });

      const before = await db('articles').count({ n: '*' }).first<{ n: number | string }>();
      const refused = await api('POST', '/items/articles', { title: 'cheap spam' });
      expect(refused.status).to.equal(400);
      expect(refused.body?.errors?.[0]?.message).to.match(/flow "guard" refused the write/);
      const after = await db('articles').count({ n: '*' }).first<{ n: number | string }>();
      expect(Number(after?.n)).to.equal(Number(before?.n));
    });
  },
  { env: { IMPORT_IP_DENY_LIST: '169.254.0.0/16', FLOWS_MAX_STEPS: '10', FLOWS_MAX_DEPTH: '3' } },
);
