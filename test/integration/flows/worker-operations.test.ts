import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describeEachDatabase } from '../../support/server.js';
import {
  PROCESS_TEST_TIMEOUT_MS,
  startServiceProcess,
  WORKER_ENTRY,
  type ServiceProcess,
} from '../../support/service-process.js';
import { sqliteTarget, TEST_REDIS_URL } from '../../support/services.js';
import { adminApi, dataOf, parseJson } from '../commands/schema.js';

const INSTALLED = fileURLToPath(new URL('../../../node_modules/', import.meta.url));
const extensionsPath = mkdtempSync(join(tmpdir(), 'svc-worker-operations-'));
symlinkSync(join(INSTALLED, '@directus-labs', 'liquidjs-operation'), join(extensionsPath, 'liquidjs-operation'), 'dir');
process.once('exit', () => rmSync(extensionsPath, { recursive: true, force: true }));

interface Step {
  readonly key: string;
  readonly status: string;
  readonly data: unknown;
}

/**
 * A queued run (an async webhook, with Redis) is a worker's: its `exec` script and its operation
 * extension run there, in isolates of the worker process, started with the flag `make worker`
 * gives node for isolated-vm.
 */
describeEachDatabase(
  'flows: exec and operation extensions in a worker process',
  (ctx) => {
    let worker: ServiceProcess | undefined;
    before(async () => {
      worker = await startServiceProcess(
        WORKER_ENTRY,
        { ...ctx().database.env, ...ctx().env, SECRET: 'test-secret' },
        PROCESS_TEST_TIMEOUT_MS - 30_000,
        ['--no-node-snapshot'],
      );
    });
    after(async () => {
      await worker?.stop();
    });

    it('an async webhook runs a script, then the liquid operation, in the worker', async () => {
      expect(worker?.output()).to.include('extensions loaded: @directus-labs/liquidjs-operation');
      const [flow, shout, render] = [randomUUID(), randomUUID(), randomUUID()];
      dataOf(
        await adminApi(ctx(), 'POST', '/flows', {
          id: flow,
          name: 'queued',
          status: 'active',
          trigger: 'webhook',
          operation: shout,
          options: { method: 'POST', async: true },
          operations: [
            {
              id: shout,
              key: 'shout',
              type: 'exec',
              resolve: render,
              options: { code: 'module.exports = async (data) => ({ name: data.$trigger.body.name.toUpperCase() });' },
            },
            {
              id: render,
              key: 'render',
              type: 'liquidjs-operation',
              options: {
                mode: 'custom',
                operationMode: 'single',
                publicUrl: 'http://127.0.0.1/',
                template: 'Hi {# name #}',
                data: '{{ shout }}',
              },
            },
          ],
        }),
      );
      const started = await adminApi(ctx(), 'POST', `/flows/trigger/${flow}`, { name: 'grace' });
      expect(started.status).to.equal(204);
      let steps: Step[] | undefined;
      for (let i = 0; i < 600 && steps === undefined; i += 1) {
        const row = (await ctx()
          .server.db('svc_activity')
          .join('svc_revisions', 'svc_revisions.activity', 'svc_activity.id')
          .where({ 'svc_activity.action': 'run', 'svc_activity.item': flow })
          .first('svc_revisions.data')) as { data: unknown } | undefined;
        if (row === undefined) await delay(100);
        else steps = (parseJson(row.data) as { steps: Step[] }).steps;
      }
      expect(steps?.map(({ key, status, data }) => ({ key, status, data }))).to.deep.equal([
        { key: 'shout', status: 'resolve', data: { name: 'GRACE' } },
        { key: 'render', status: 'resolve', data: { template: 'Hi GRACE' } },
      ]);
    });
  },
  {
    targets: [sqliteTarget],
    timeoutMs: PROCESS_TEST_TIMEOUT_MS,
    extensionsPath,
    env: { REDIS: TEST_REDIS_URL, FLOWS_EXEC_ALLOWED: 'true', EXTENSIONS_SANDBOX_TIMEOUT: '20000' },
  },
);
