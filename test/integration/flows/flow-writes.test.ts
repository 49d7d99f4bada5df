import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import { adminApi, createCommandSchema, dataOf, parseJson } from '../commands/schema.js';
import { Receiver } from './receiver.js';

type Row = Record<string, unknown>;
interface Step {
  readonly key: string;
  readonly status: string;
  readonly data: unknown;
}

/** The hooks read the event flows again after a second (event-hooks.ts FLOWS_TTL_MS). */
const EVENT_FLOWS_TTL_MS = 1100;

/** Polls until `check` holds, or fails saying what did not happen. */
async function within(ms: number, what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) expect.fail(`${what}: not within ${ms} ms`);
    await delay(50);
  }
}

/**
 * A flow's item operations write through the items service (src/flows/item-operations.ts): with
 * `emitEvents`, as in Directus, the write fires the items' events, so it starts other flows;
 * a chain of flows re-triggering each other through writes stops at FLOWS_MAX_DEPTH.
 */
describeEachDatabase(
  'flows: item operations through the items events',
  (ctx) => {
    const receiver = new Receiver();
    const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);

    const createFlow = async (flow: Row, operation: Row): Promise<string> => {
      const [id, op] = [randomUUID(), randomUUID()];
      dataOf(
        await api('POST', '/flows', {
          id,
          status: 'active',
          accountability: 'all',
          operation: op,
          operations: [{ id: op, ...operation }],
          ...flow,
        }),
      );
      return id;
    };

    const runs = async (flowId: string): Promise<Step[][]> => {
      const rows = await ctx()
        .server.db('svc_activity')
        .join('svc_revisions', 'svc_revisions.activity', 'svc_activity.id')
        .where({ 'svc_activity.action': 'run', 'svc_activity.item': flowId })
        .orderBy('svc_activity.id')
        .select<Row[]>('svc_revisions.data');
      return rows.map((row) => (parseJson(row['data']) as { steps: Step[] }).steps);
    };

    const trigger = (id: string, body: unknown) =>
      ctx().api(`/flows/trigger/${id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN.token}` },
        body: JSON.stringify(body),
      });

    before(async () => {
      await createCommandSchema(ctx());
      await receiver.start();
    });
    after(() => receiver.stop());

    it("flow A's write to a collection starts flow B, triggered on its create, once; without emitEvents it starts nothing", async () => {
      const writeAuthor = (emitEvents: boolean) =>
        createFlow(
          { name: `write author (${String(emitEvents)})`, trigger: 'webhook', options: { method: 'POST' } },
          {
            key: 'save',
            type: 'item-create',
            options: {
              collection: 'authors',
              permissions: '$full',
              emitEvents,
              payload: { name: '{{ $trigger.body.name }}' },
            },
          },
        );
      const [silent, emitting] = [await writeAuthor(false), await writeAuthor(true)];
      const b = await createFlow(
        {
          name: 'on author',
          trigger: 'event',
          options: { type: 'action', scope: ['items.create'], collections: ['authors'] },
        },
        {
          key: 'tell',
          type: 'request',
          options: { url: `${receiver.url}/author`, method: 'POST', body: '{{ $trigger.payload }}' },
        },
      );
      await delay(EVENT_FLOWS_TTL_MS);

      expect((await trigger(silent, { name: 'Quiet' })).status).to.equal(200);
      expect((await trigger(emitting, { name: 'Ada' })).status).to.equal(200);
      // Runs without Redis are queued in this process one after the other: B's run for Ada
      // is logged after any for Quiet would have been.
      await within(15_000, "B's run is logged", async () => (await runs(b)).length >= 1);
      expect(receiver.requests.map((r) => JSON.parse(r.body) as unknown)).to.deep.equal([{ name: 'Ada' }]);
      const logged = await runs(b);
      expect(logged.map((steps) => steps.map((s) => `${s.key}:${s.status}`))).to.deep.equal([['tell:resolve']]);
      const names = (await ctx().server.db('authors').orderBy('id').select('name')) as Row[];
      expect(names.map((row) => row['name'])).to.deep.equal(['Quiet', 'Ada']);
    });

    it('a flow re-triggering itself through its own writes stops at FLOWS_MAX_DEPTH, the refusal in its log', async () => {
      const loop = await createFlow(
        {
          name: 'tag again',
          trigger: 'event',
          options: { type: 'action', scope: ['items.create'], collections: ['tags'] },
        },
        {
          key: 'again',
          type: 'item-create',
          options: { collection: 'tags', permissions: '$full', emitEvents: true, payload: { label: 'again' } },
        },
      );
      await delay(EVENT_FLOWS_TTL_MS);
      dataOf(await api('POST', '/items/tags', { label: 'first' }));
      // Depths 0 to 3 ran, each writing a tag; the fifth start was refused, and logged.
      await within(20_000, 'the refusal is logged', async () => (await runs(loop)).length >= 5);
      // The refusal is logged when the fourth run's write commits, maybe before that run's own log.
      const logged = (await runs(loop)).map((steps) => steps.map((s) => `${s.key}:${s.status}`).join());
      expect(logged.sort()).to.deep.equal([
        '$trigger:reject',
        'again:resolve',
        'again:resolve',
        'again:resolve',
        'again:resolve',
      ]);
      const refused = (await runs(loop)).find((steps) => steps[0]?.key === '$trigger');
      expect(JSON.stringify(refused?.[0]?.data)).to.match(/deeper than FLOWS_MAX_DEPTH \(3\)/);
      const tags = (await ctx().server.db('tags').count({ n: '*' }).first()) as { n: number | string };
      expect(Number(tags.n)).to.equal(5);
    });
  },
  { env: { FLOWS_MAX_DEPTH: '3', IMPORT_IP_DENY_LIST: '169.254.0.0/16' } },
);
