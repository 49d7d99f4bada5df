import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { sqliteTarget } from '../../support/services.js';
import { describeEachDatabase, TEST_ADMIN, type ServerContext } from '../../support/server.js';
import { adminApi, dataOf, errorsOf, parseJson } from '../commands/schema.js';

type Row = Record<string, unknown>;
interface Step {
  readonly key: string;
  readonly status: string;
  readonly data: unknown;
}

/** A webhook flow of one `exec` operation, saved in one request; its id. */
async function scriptFlow(ctx: ServerContext, code: string): Promise<string> {
  const [id, op] = [randomUUID(), randomUUID()];
  dataOf(
    await adminApi(ctx, 'POST', '/flows', {
      id,
      name: 'script',
      trigger: 'webhook',
      status: 'active',
      operation: op,
      options: { method: 'POST' },
      operations: [{ id: op, key: 'script', type: 'exec', options: { code } }],
    }),
  );
  return id;
}

async function trigger(ctx: ServerContext, id: string, body: unknown): Promise<unknown> {
  const res = await ctx.api(`/flows/trigger/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN.token}` },
    body: JSON.stringify(body),
  });
  expect(res.status).to.equal(200);
  return res.json();
}

/** The steps of the flow's last run (svc_activity `run` + its revision). */
async function lastRun(ctx: ServerContext, flowId: string): Promise<Step[]> {
  const row = await ctx.server
    .db('svc_activity')
    .join('svc_revisions', 'svc_revisions.activity', 'svc_activity.id')
    .where({ 'svc_activity.action': 'run', 'svc_activity.collection': 'svc_flows', 'svc_activity.item': flowId })
    .orderBy('svc_activity.id', 'desc')
    .first<Row>('svc_revisions.data');
  return (parseJson(row?.['data']) as { steps: Step[] }).steps;
}

// The sandbox does not depend on the database: SQLite only.
describeEachDatabase(
  'flows: the exec (Run Script) operation, allowed',
  (ctx) => {
    it('transforms the run data: the script gets a JSON copy and its result is the step data', async () => {
      const id = await scriptFlow(
        ctx(),
        `module.exports = async function (data) {
          const { items } = data.$trigger.body;
          return { total: items.reduce((sum, i) => sum + i.price, 0), names: items.map((i) => i.name.toUpperCase()) };
        };`,
      );
      const answer = await trigger(ctx(), id, {
        items: [
          { name: 'a', price: 2 },
          { name: 'b', price: 5 },
        ],
      });
      expect(answer).to.deep.equal({ total: 7, names: ['A', 'B'] });
      const [step] = await lastRun(ctx(), id);
      expect(step).to.deep.include({ key: 'script', status: 'resolve', data: { total: 7, names: ['A', 'B'] } });
    });

    it('a memory bomb is cut at FLOWS_RUN_SCRIPT_MAX_MEMORY, and the service goes on', async () => {
      const id = await scriptFlow(
        ctx(),
        `module.exports = async function () {
          const hoard = [];
          for (let i = 0; ; i += 1) hoard.push('x'.repeat(1024) + i);
        };`,
      );
      const message = 'used more memory than FLOWS_RUN_SCRIPT_MAX_MEMORY (16 MB)';
      expect(await trigger(ctx(), id, {})).to.deep.equal({ message });
      expect((await lastRun(ctx(), id))[0]).to.deep.include({ status: 'reject', data: { message } });
      expect((await ctx().api('/server/ping')).status).to.equal(200);
    });

    it('has no require, process, fetch or timers: only the language and the data', async () => {
      const id = await scriptFlow(
        ctx(),
        `module.exports = async function () {
          return [typeof require, typeof process, typeof fetch, typeof setTimeout, typeof module, typeof console.log];
        };`,
      );
      expect(await trigger(ctx(), id, {})).to.deep.equal([
        'undefined',
        'undefined',
        'undefined',
        'undefined',
        'object',
        'function',
      ]);
      const reads = await scriptFlow(
        ctx(),
        "module.exports = async () => require('fs').readFileSync('/etc/passwd', 'utf8');",
      );
      expect(await trigger(ctx(), reads, {})).to.deep.equal({ message: 'require is not defined' });
      const escapes = await scriptFlow(
        ctx(),
        "module.exports = async () => this.constructor.constructor('return process')().env;",
      );
      expect(await trigger(ctx(), escapes, {})).to.deep.equal({ message: 'process is not defined' });
    });

    it('a script that throws, or sets no function, rejects with its message', async () => {
      const throws = await scriptFlow(ctx(), "module.exports = async () => { throw new Error('no stock'); };");
      expect(await trigger(ctx(), throws, {})).to.deep.equal({ message: 'no stock' });
      const noFunction = await scriptFlow(ctx(), 'const x = 1;');
      expect(await trigger(ctx(), noFunction, {})).to.deep.equal({
        message: 'the script must set module.exports to a function',
      });
    });
  },
  {
    targets: [sqliteTarget],
    // An isolate takes seconds to fill its memory on a busy machine: time enough for that here.
    env: { FLOWS_EXEC_ALLOWED: 'true', FLOWS_RUN_SCRIPT_TIMEOUT: '60000', FLOWS_RUN_SCRIPT_MAX_MEMORY: '16' },
  },
);

describeEachDatabase(
  'flows: the exec (Run Script) operation, its time limit',
  (ctx) => {
    it('an endless loop is cut at FLOWS_RUN_SCRIPT_TIMEOUT, the step rejected with the reason in the log', async () => {
      const id = await scriptFlow(ctx(), 'module.exports = async function () { for (;;) {} };');
      const message = 'ran longer than FLOWS_RUN_SCRIPT_TIMEOUT (1000 ms)';
      expect(await trigger(ctx(), id, {})).to.deep.equal({ message });
      const [step] = await lastRun(ctx(), id);
      expect(step).to.deep.include({ key: 'script', status: 'reject', data: { message } });
      // A promise that never settles is cut the same way.
      const waits = await scriptFlow(ctx(), 'module.exports = () => new Promise(() => {});');
      expect(await trigger(ctx(), waits, {})).to.deep.equal({ message });
    });
  },
  { targets: [sqliteTarget], env: { FLOWS_EXEC_ALLOWED: 'true', FLOWS_RUN_SCRIPT_TIMEOUT: '1000' } },
);

describeEachDatabase(
  'flows: the exec (Run Script) operation, off by default',
  (ctx) => {
    const off = 'the "exec" operation (Run Script) is off here: FLOWS_EXEC_ALLOWED=true turns it on';

    it('is refused when saved, through /operations or nested in /flows, and nothing is written', async () => {
      const flow = dataOf<Row>(
        await adminApi(ctx(), 'POST', '/flows', {
          name: 'no scripts',
          trigger: 'webhook',
          options: { method: 'POST' },
        }),
      );
      const code = 'module.exports = async () => 1;';
      const alone = await adminApi(ctx(), 'POST', '/operations', {
        flow: flow['id'],
        key: 'script',
        type: 'exec',
        options: { code },
      });
      expect(errorsOf(alone, 400).map(([c]) => c)).to.deep.equal(['INVALID_PAYLOAD']);
      expect(alone.body?.errors?.[0]?.message).to.include(off);
      const nested = await adminApi(ctx(), 'PATCH', `/flows/${String(flow['id'])}`, {
        operations: { create: [{ key: 'script', type: 'exec', options: { code } }], update: [], delete: [] },
      });
      expect(nested.body?.errors?.[0]?.message, JSON.stringify(nested.body)).to.include(off);
      expect(nested.status).to.equal(400);
      const saved = await ctx().server.db('svc_operations').where({ type: 'exec' }).count({ n: '*' }).first();
      expect(Number(saved?.['n'])).to.equal(0);
    });

    it('one saved before it was turned off rejects at its step, the reason in the log', async () => {
      const { db } = ctx().server;
      const [id, op] = [randomUUID(), randomUUID()];
      await db('svc_flows').insert({
        id,
        name: 'old script',
        status: 'active',
        trigger: 'webhook',
        options: JSON.stringify({ method: 'POST' }),
      });
      await db('svc_operations').insert({
        id: op,
        flow: id,
        key: 'script',
        type: 'exec',
        options: JSON.stringify({ code: 'module.exports = async () => 1;' }),
      });
      await db('svc_flows').where({ id }).update({ operation: op });
      expect(await trigger(ctx(), id, {})).to.deep.equal({ message: off });
      expect((await lastRun(ctx(), id))[0]).to.deep.include({
        key: 'script',
        status: 'reject',
        data: { message: off },
      });
    });
  },
  { targets: [sqliteTarget] },
);
