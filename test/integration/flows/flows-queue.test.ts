import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import Bull from 'bull';
import { FLOW_LANES_EVERY_MS, FLOW_LANES_JOB, flowJobHandlers, registerFlowHooks } from '../../../src/flows/index.js';
import { FLOW_RUN_JOB } from '../../../src/flows/flow-jobs.js';
import { createJobQueue } from '../../../src/jobs/job-queue.js';
import { laneOf } from '../../../src/flows/run-lanes.js';
import { HookBus } from '../../../src/items/hooks.js';
import { createLogger } from '../../../src/logger/index.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { describeEachDatabase, testConfig, TEST_ADMIN } from '../../support/server.js';
import {
  PROCESS_TEST_TIMEOUT_MS,
  startServiceProcess,
  WORKER_ENTRY,
  type ServiceProcess,
} from '../../support/service-process.js';
import { TEST_REDIS_URL } from '../../support/services.js';
import { adminApi, createCommandSchema, dataOf, parseJson } from '../commands/schema.js';
import { Receiver } from './receiver.js';

type Row = Record<string, unknown>;
const SECRET_BYTES = Buffer.from('a shared secret of the receiver');
const SECRET = `whsec_${SECRET_BYTES.toString('base64')}`;

/** Polls until `check` holds, or fails saying what did not happen (and, when `what` is a function, what it saw). */
async function within(
  ms: number,
  what: string | (() => string),
  check: () => Promise<boolean> | boolean,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) expect.fail(`${typeof what === 'string' ? what : what()}: not within ${ms} ms`);
    await delay(50);
  }
}

/**
 * Flows on the job queue with Redis: the API instances queue runs in bull, a worker process
 * runs them (src/flows/flow-jobs.ts), with the queue's retries and backoff (JOBS_ATTEMPTS).
 */
describeEachDatabase(
  'flows on the job queue (Redis and a worker)',
  (ctx) => {
    const receiver = new Receiver();
    let worker: ServiceProcess | undefined;
    let second: RunningServer | undefined;
    const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);

    // Made inactive and switched on with its operation in place: a schedule active before its
    // operation exists runs (and logs) runs of no step meanwhile, as many as a slow machine takes.
    const createFlow = async (flow: Row, operation: Row): Promise<string> => {
      const id = String(
        dataOf<Row>(await api('POST', '/flows', { accountability: 'all', ...flow, status: 'inactive' }))['id'],
      );
      const op = randomUUID();
      dataOf(await api('POST', '/operations', { id: op, flow: id, ...operation }));
      dataOf(await api('PATCH', `/flows/${id}`, { operation: op, status: 'active' }));
      return id;
    };

    const claims = async (flowId: string) =>
      (await ctx().server.db('svc_flow_claims').where({ flow: flowId }).orderBy('created')) as Row[];
    const runStatuses = async (flowId: string) => {
      const rows = (await ctx()
        .server.db('svc_activity')
        .join('svc_revisions', 'svc_revisions.activity', 'svc_activity.id')
        .where({ 'svc_activity.action': 'run', 'svc_activity.item': flowId })
        .orderBy('svc_activity.id')
        .select('svc_revisions.data')) as Row[];
      return rows.map((row) => (parseJson(row['data']) as { steps: { status: string }[] }).steps[0]?.status);
    };

    before(async () => {
      await createCommandSchema(ctx());
      await receiver.start();
      worker = await startServiceProcess(
        WORKER_ENTRY,
        { ...ctx().database.env, ...ctx().env, SECRET: 'test-secret', LOG_LEVEL: 'info' },
        PROCESS_TEST_TIMEOUT_MS - 30_000,
      );
    });
    after(async () => {
      await worker?.stop();
      await second?.close();
      await receiver.stop();
    });
    beforeEach(() => {
      receiver.requests.length = 0;
      receiver.failures = 0;
      receiver.refuse = () => false;
    });

    it('a receiver that fails three times then succeeds gets one successful delivery, signed, with one webhook-id', async () => {
      const bus = new HookBus();
      registerFlowHooks(bus, ctx().server.flows);
      const id = await createFlow(
        {
          name: 'rebuild on publish',
          trigger: 'event',
          options: {
            type: 'action',
            scope: ['items.update'],
            collections: ['articles'],
            filter: { payload: { status: { _eq: 'published' } } },
            retry: true,
          },
        },
        {
          key: 'deliver',
          type: 'request',
          options: { url: `${receiver.url}/hook`, method: 'POST', body: '{{ $trigger }}', secret: SECRET },
        },
      );
      receiver.failures = 3;
      const context = { database: ctx().server.db, schema: null, accountability: null };
      bus.runAction(['items.update'], { collection: 'articles', keys: [5], payload: { status: 'published' } }, context);
      const requests = await receiver.waitFor(4, 30_000);
      await delay(1500);
      expect(receiver.requests).to.have.length(4);
      const ids = new Set(requests.map((r) => r.headers['webhook-id']));
      expect(ids.size).to.equal(1);
      const last = requests[3];
      const signed = `${String(last?.headers['webhook-id'])}.${String(last?.headers['webhook-timestamp'])}.${last?.body ?? ''}`;
      expect(last?.headers['webhook-signature']).to.equal(
        `v1,${createHmac('sha256', SECRET_BYTES).update(signed).digest('base64')}`,
      );
      expect(JSON.parse(last?.body ?? '')).to.deep.include({ event: 'items.update', keys: [5] });
      await within(30_000, 'the claim is done', async () => (await claims(id))[0]?.['state'] === 'done');
      expect(await runStatuses(id)).to.deep.equal(['reject', 'reject', 'reject', 'resolve']);
    });

    it('the flows one event matches go as one job, fanned out by the worker: each run has its own claim and retries alone', async () => {
      const bus = new HookBus();
      registerFlowHooks(bus, ctx().server.flows);
      const flowTo = (path: string, retry: boolean) =>
        createFlow(
          {
            name: `fan-out ${path}`,
            trigger: 'event',
            options: { type: 'action', scope: ['items.delete'], collections: ['articles'], retry },
          },
          { key: 'deliver', type: 'request', options: { url: `${receiver.url}/${path}`, method: 'POST', body: '{}' } },
        );
      const [steady, flaky] = [await flowTo('steady', false), await flowTo('flaky', true)];
      // The steady flow's one try must not be refused: the flaky one's path alone fails, twice.
      const refused = { left: 2 };
      receiver.refuse = (url) => url === '/flaky' && refused.left-- > 0;
      const context = { database: ctx().server.db, schema: null, accountability: null };
      const eventJobs = () => (worker?.output().match(/"name":"flow-event"[^\n}]*"msg":"job done"/g) ?? []).length;
      const eventJobsBefore = eventJobs();
      bus.runAction(['items.delete'], { collection: 'articles', keys: [7] }, context);
      await within(30_000, 'both claims are done', async () =>
        (await Promise.all([claims(steady), claims(flaky)])).every((rows) => rows[0]?.['state'] === 'done'),
      );
      const [steadyClaims, flakyClaims] = [await claims(steady), await claims(flaky)];
      expect(steadyClaims).to.have.length(1);
      expect(flakyClaims).to.have.length(1);
      expect(steadyClaims[0]?.['key']).not.to.equal(flakyClaims[0]?.['key']);
      expect(receiver.requests.map((r) => r.url).sort()).to.deep.equal(['/flaky', '/flaky', '/flaky', '/steady']);
      expect(await runStatuses(steady)).to.deep.equal(['resolve']);
      expect(await runStatuses(flaky)).to.deep.equal(['reject', 'reject', 'resolve']);
      expect(eventJobs() - eventJobsBefore, 'one event job fanned out in the worker').to.equal(1);
    });

    /**
     * Three updates of item 1 in a row and one of item 2, delivered by each of `paths`' flows
     * (retried) to `/<path>/<key>`; the first flow's receiver refuses item 1's first two requests.
     * Answers the deliveries the receiver took (200), in the order they arrived.
     */
    const updateInRow = async (collection: string, paths: readonly string[]): Promise<string[]> => {
      const bus = new HookBus();
      registerFlowHooks(bus, ctx().server.flows);
      const ids: string[] = [];
      for (const path of paths) {
        ids.push(
          await createFlow(
            {
              name: `in order ${path}`,
              trigger: 'event',
              options: { type: 'action', scope: ['items.update'], collections: [collection], retry: true },
            },
            {
              key: 'deliver',
              type: 'request',
              options: {
                url: `${receiver.url}/${path}/{{ $trigger.keys.0 }}`,
                method: 'POST',
                body: '{{ $trigger.payload }}',
              },
            },
          ),
        );
      }
      const refused = { left: 2 };
      receiver.refuse = (url) => url === `/${paths[0] ?? ''}/1` && refused.left-- > 0;
      const context = { database: ctx().server.db, schema: null, accountability: null };
      for (const n of [1, 2, 3]) {
        bus.runAction(['items.update'], { collection, keys: [1], payload: { n } }, context);
      }
      bus.runAction(['items.update'], { collection, keys: [2], payload: { n: 4 } }, context);
      await within(30_000, 'every run is done', async () => {
        const rows = (await Promise.all(ids.map(claims))).flat();
        return rows.length === 4 * paths.length && rows.every((row) => row['state'] === 'done');
      });
      await delay(500);
      expect(receiver.requests.filter((r) => r.status === 500)).to.have.length(2);
      return receiver.requests
        .filter((r) => r.status === 200)
        .map((r) => `${r.url} ${String((JSON.parse(r.body) as { n: number }).n)}`);
    };

    it("an item's deliveries arrive once each, in write order, after its first one got through; another item's go on meanwhile", async () => {
      const delivered = await updateInRow('authors', ['item']);
      expect(delivered).to.deep.equal(['/item/2 4', '/item/1 1', '/item/1 2', '/item/1 3']);
    });

    it("an event's runs fanned out keep the order in each flow's lane: one flow retrying holds neither the other flow nor the other item", async () => {
      const delivered = await updateInRow('articles', ['held', 'free']);
      const of = (prefix: string) => delivered.filter((entry) => entry.startsWith(prefix));
      expect(of('/held/1')).to.deep.equal(['/held/1 1', '/held/1 2', '/held/1 3']);
      expect(of('/free/1')).to.deep.equal(['/free/1 1', '/free/1 2', '/free/1 3']);
      expect(of('/held/2')).to.deep.equal(['/held/2 4']);
      expect(of('/free/2')).to.deep.equal(['/free/2 4']);
      // The free flow's and item 2's deliveries went while item 1's first was being retried.
      const firstHeld = delivered.indexOf('/held/1 1');
      expect(delivered.slice(0, firstHeld).sort()).to.deep.equal([
        '/free/1 1',
        '/free/1 2',
        '/free/1 3',
        '/free/2 4',
        '/held/2 4',
      ]);
    });

    it("a later event of an item whose earlier event's job a worker holds, its claim not recorded yet, waits for it", async () => {
      // Two workers take an item's two events at once; the later one gets to its claim first.
      // The earlier job is held taken (bull's active list) on a queue of its own, that no
      // worker process takes from: this process plays both workers.
      const namespace = `race-${randomUUID()}`;
      const { flows } = ctx().server;
      const jobs = createJobQueue({
        redis: flows.config.redis,
        namespace,
        settings: flows.config.jobs,
        handlers: {},
        logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
      });
      const taker = new Bull('jobs', TEST_REDIS_URL, { prefix: `${namespace}:bull` });
      const deps = { ...flows, jobs };
      const runJob = flowJobHandlers(() => deps)[FLOW_RUN_JOB];
      const run = (data: unknown) => runJob?.(data, { id: randomUUID(), attempt: 1, attempts: 4 });
      try {
        const id = await createFlow(
          {
            name: 'raced',
            trigger: 'event',
            options: { type: 'action', scope: ['items.update'], collections: ['raced'] },
          },
          {
            key: 'deliver',
            type: 'request',
            options: { url: `${receiver.url}/raced`, method: 'POST', body: '{{ $trigger.payload }}' },
          },
        );
        const event = (n: number) => ({
          flowId: id,
          key: randomUUID(),
          trigger: { event: 'items.update', collection: 'raced', keys: [1], payload: { n } },
          accountability: null,
          depth: 0,
          seq: n,
        });
        const [first, second] = [event(1), event(2)];
        await jobs.add(FLOW_RUN_JOB, `flow:${first.key}`, first);
        const held = await taker.getNextJob();
        expect(held?.data).to.deep.include({ key: first.key });

        await run(second);
        const stateOf = async (key: string) =>
          ((await ctx().server.db('svc_flow_claims').where({ key }).first()) as Row | undefined)?.['state'];
        expect(await stateOf(second.key), 'the later run waits').to.equal('waiting');
        expect(receiver.requests).to.deep.equal([]);

        // The earlier run goes; once settled it queues the waiting one again, which goes next.
        await run(first);
        expect(await stateOf(first.key)).to.equal('done');
        const woken = await taker.getNextJob();
        expect(woken?.data).to.deep.include({ key: second.key });
        await run(woken?.data);
        expect(await stateOf(second.key)).to.equal('done');
        const delivered = receiver.requests.map((r) => (JSON.parse(r.body) as { n: number }).n);
        expect(delivered).to.deep.equal([1, 2]);
      } finally {
        await taker.obliterate({ force: true });
        await taker.close();
        await jobs.close();
      }
    });

    it('a waiting run its lane left behind (its predecessor settled, nothing queued it) is queued again by the lanes job, every minute', async () => {
      const queue = new Bull('jobs', TEST_REDIS_URL, { prefix: `${ctx().env['CACHE_NAMESPACE'] ?? ''}:bull` });
      try {
        const repeatable = await queue.getRepeatableJobs();
        expect(repeatable.filter((job) => job.name === FLOW_LANES_JOB).map((job) => job.every)).to.deep.equal([
          FLOW_LANES_EVERY_MS,
        ]);
      } finally {
        await queue.close();
      }
      const id = await createFlow(
        {
          name: 'stranded',
          trigger: 'event',
          options: { type: 'action', scope: ['items.update'], collections: ['stranded'], retry: true },
        },
        {
          key: 'deliver',
          type: 'request',
          options: { url: `${receiver.url}/stranded`, method: 'POST', body: '{{ $trigger.payload }}' },
        },
      );
      const trigger = { event: 'items.update', collection: 'stranded', keys: [9], payload: { n: 9 } };
      const lane = laneOf(id, trigger);
      const [done, waiting] = [randomUUID(), randomUUID()];
      const job = { flowId: id, key: waiting, trigger, accountability: null, depth: 0, seq: 2 };
      const row = { created: Date.now(), flow: id, lane };
      await ctx()
        .server.db('svc_flow_claims')
        .insert([
          { ...row, key: done, state: 'done', seq: 1 },
          { ...row, key: waiting, state: 'waiting', seq: 2, job: JSON.stringify(job) },
        ]);
      const lanes = flowJobHandlers(() => ctx().server.flows)[FLOW_LANES_JOB];
      await lanes?.({}, { id: 'lanes', attempt: 1, attempts: 1 });
      const [request] = await receiver.waitFor(1, 15_000);
      expect(JSON.parse(request?.body ?? '')).to.deep.equal({ n: 9 });
      await within(30_000, 'the claim is done', async () =>
        (await claims(id)).every((claim) => claim['state'] === 'done'),
      );
      await delay(500);
      expect(receiver.requests).to.have.length(1);
    });

    it('a delivery whose tries run out is a dead letter, listed and replayed once', async () => {
      const bus = new HookBus();
      registerFlowHooks(bus, ctx().server.flows);
      const id = await createFlow(
        {
          name: 'always down',
          trigger: 'event',
          options: { type: 'action', scope: ['items.create'], collections: ['authors'], retry: true },
        },
        {
          key: 'deliver',
          type: 'request',
          options: { url: `${receiver.url}/down`, method: 'POST', body: '{{ $trigger.payload }}' },
        },
      );
      receiver.failures = 100;
      const context = { database: ctx().server.db, schema: null, accountability: null };
      bus.runAction(['items.create'], { collection: 'authors', key: 1, payload: { name: 'Ada' } }, context);
      await receiver.waitFor(4, 30_000);
      await within(30_000, 'the claim failed', async () => (await claims(id))[0]?.['state'] === 'failed');
      const [dead] = dataOf<Row[]>(await api('GET', '/flows/runs')).filter((run) => run['flow'] === id);
      expect(dead?.['error']).to.match(/answered 500/);
      receiver.failures = 0;
      dataOf(await api('POST', `/flows/runs/${String(dead?.['key'])}/replay`));
      const requests = await receiver.waitFor(5, 15_000);
      expect(JSON.parse(requests[4]?.body ?? '')).to.deep.equal({ name: 'Ada' });
      expect(dataOf<Row[]>(await api('GET', '/flows/runs')).filter((run) => run['flow'] === id)).to.deep.equal([]);
      expect((await api('POST', `/flows/runs/${String(dead?.['key'])}/replay`)).status).to.equal(403);
    });

    it('a schedule fires once a second across two API instances and a worker', async () => {
      second = await startServer(testConfig(ctx().database, ctx().env), {
        logger: createLogger({ logLevel: 'silent', logStyle: 'raw' }),
      });
      const id = await createFlow(
        { name: 'every second', trigger: 'schedule', options: { cron: '* * * * * *' } },
        {
          key: 'tick',
          type: 'request',
          options: { url: `${receiver.url}/tick`, method: 'POST', body: '{{ $trigger }}' },
        },
      );
      await receiver.waitFor(4, 30_000);
      dataOf(await api('PATCH', `/flows/${id}`, { status: 'inactive' }));
      // Runs queued before the flow went inactive still arrive, and a busy worker may deliver one
      // seconds late: wait until every delivery is logged and none has come for 2 s.
      let seen = '';
      const what = () => `every delivery is logged, then nothing more comes (last seen: ${seen})`;
      await within(60_000, what, async () => {
        const logged = await runStatuses(id);
        const now = `${receiver.requests.length} delivered, ${logged.join(',')} logged`;
        const isStill = now === seen && receiver.requests.length === logged.length;
        seen = now;
        if (!isStill) await delay(2000);
        return isStill;
      });
      expect(await runStatuses(id)).to.deep.equal(receiver.requests.map(() => 'resolve'));
      const seconds = receiver.requests.map((r) => (JSON.parse(r.body) as { $schedule: string }).$schedule);
      expect(new Set(seconds).size, seconds.join(' ')).to.equal(seconds.length);
    });

    it('only administrators see the dead letters', async () => {
      const res = await ctx().api('/flows/runs');
      expect(res.status).to.equal(403);
      expect(
        (await ctx().api('/flows/runs', { headers: { authorization: `Bearer ${TEST_ADMIN.token}` } })).status,
      ).to.equal(200);
    });
  },
  {
    timeoutMs: PROCESS_TEST_TIMEOUT_MS,
    env: () => ({
      REDIS: TEST_REDIS_URL,
      IMPORT_IP_DENY_LIST: '169.254.0.0/16',
      // Deliveries take FLOWS_RETRY_ATTEMPTS, not JOBS_ATTEMPTS: the tests below fail with two tries.
      JOBS_ATTEMPTS: '2',
      FLOWS_RETRY_ATTEMPTS: '4',
    }),
  },
);
