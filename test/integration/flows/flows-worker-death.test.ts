import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { describeEachDatabase, TEST_ADMIN } from '../../support/server.js';
import {
  PROCESS_TEST_TIMEOUT_MS,
  startServiceProcess,
  WORKER_ENTRY,
  type ServiceProcess,
} from '../../support/service-process.js';
import { TEST_REDIS_URL } from '../../support/services.js';
import { adminApi, dataOf, parseJson } from '../commands/schema.js';
import { Receiver } from './receiver.js';

type Row = Record<string, unknown>;

/** Polls until `check` holds, or fails saying what did not happen. */
async function within(ms: number, what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) expect.fail(`${what}: not within ${ms} ms`);
    await delay(100);
  }
}

/**
 * A worker killed (SIGKILL: no goodbye to bull) in the middle of a flow's run: once another
 * worker runs, bull finds the job's lock expired (JOBS_LOCK_DURATION, looked for every
 * JOBS_STALLED_INTERVAL) and runs it again as its next attempt; the run's claim (run-claims.ts)
 * lets that retry through, once. The receiver hears from the run once, and one run is logged.
 */
describeEachDatabase(
  'flows: a worker killed in the middle of a run',
  (ctx) => {
    const receiver = new Receiver();
    const workers: ServiceProcess[] = [];
    const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
    const startWorker = async () => {
      const worker = await startServiceProcess(
        WORKER_ENTRY,
        { ...ctx().database.env, ...ctx().env, SECRET: 'test-secret', LOG_LEVEL: 'info' },
        PROCESS_TEST_TIMEOUT_MS - 60_000,
      );
      workers.push(worker);
      return worker;
    };

    before(() => receiver.start());
    after(async () => {
      for (const worker of workers) await worker.stop();
      await receiver.stop();
    });

    it('the run completes exactly once on the next worker: one delivery, one claim done, one run logged', async () => {
      const [id, hello, nap, deliver] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      dataOf(
        await api('POST', '/flows', {
          id,
          name: 'slow delivery',
          status: 'active',
          accountability: 'all',
          trigger: 'webhook',
          options: { method: 'POST', async: true },
          operation: hello,
          operations: [
            {
              id: hello,
              key: 'hello',
              type: 'log',
              options: { message: 'run {{ $trigger.body.n }} started' },
              resolve: nap,
            },
            { id: nap, key: 'nap', type: 'sleep', options: { milliseconds: 4000 }, resolve: deliver },
            {
              id: deliver,
              key: 'deliver',
              type: 'request',
              options: { url: `${receiver.url}/done`, method: 'POST', body: '{{ $trigger.body }}' },
            },
          ],
        }),
      );
      const first = await startWorker();
      const res = await ctx().api(`/flows/trigger/${id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN.token}` },
        body: JSON.stringify({ n: 1 }),
      });
      expect(res.status).to.equal(204);
      // The first worker is in the run's sleep: it logged the first operation.
      await within(60_000, 'the first worker starts the run', () => first.output().includes('run 1 started'));
      await first.stop('SIGKILL');
      expect(receiver.requests).to.have.length(0);

      const second = await startWorker();
      await receiver.waitFor(1, 90_000);
      const { db } = ctx().server;
      await within(15_000, 'the claim is done', async () => {
        const claims = (await db('svc_flow_claims').where({ flow: id })) as Row[];
        return claims.length === 1 && claims[0]?.['state'] === 'done';
      });
      expect(second.output()).to.include('run 1 started');
      expect(receiver.requests.map((r) => JSON.parse(r.body) as unknown)).to.deep.equal([{ n: 1 }]);
      const logged = (await db('svc_activity')
        .join('svc_revisions', 'svc_revisions.activity', 'svc_activity.id')
        .where({ 'svc_activity.action': 'run', 'svc_activity.item': id })
        .select('svc_revisions.data')) as Row[];
      expect(
        logged.map((row) =>
          (parseJson(row['data']) as { steps: { key: string; status: string }[] }).steps.map(
            (s) => `${s.key}:${s.status}`,
          ),
        ),
      ).to.deep.equal([['hello:resolve', 'nap:resolve', 'deliver:resolve']]);
    });
  },
  {
    timeoutMs: PROCESS_TEST_TIMEOUT_MS,
    env: () => ({
      REDIS: TEST_REDIS_URL,
      // A dead worker's job is found within seconds (bull renews a live one's lock every half of it).
      JOBS_LOCK_DURATION: '5s',
      JOBS_STALLED_INTERVAL: '1s',
      JOBS_ATTEMPTS: '3',
      // The receiver is on loopback, which the default deny list refuses.
      IMPORT_IP_DENY_LIST: '169.254.0.0/16',
    }),
  },
);
