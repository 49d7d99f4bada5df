import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { describeEachDatabase } from '../../support/server.js';
import { adminApi, countRows, dataOf, errorsOf, type ApiResult } from '../commands/schema.js';

type Row = Record<string, unknown>;

/**
 * A flow whose operations resolve or reject into a loop, or whose `trigger` operations call it
 * back, is refused when saved (src/commands/flow-rules.ts), whichever way it is saved: nested
 * in its flow, operation by operation, or re-pointed later. Nothing of the request is written.
 */
describeEachDatabase('flows: loops refused when saved', (ctx) => {
  const api = (method: string, path: string, body?: unknown) => adminApi(ctx(), method, path, body);
  const flow = (name: string, extra: Row = {}) => ({
    id: randomUUID(),
    name,
    status: 'active',
    trigger: 'webhook',
    options: { method: 'POST' },
    ...extra,
  });
  const refusal = (res: ApiResult): string => {
    expect(errorsOf(res, 400).map(([code]) => code)).to.deep.equal(['INVALID_PAYLOAD']);
    return String(res.body?.errors?.[0]?.message);
  };
  const counts = () => countRows(ctx().server.db, ['svc_flows', 'svc_operations']);

  it('a flow saved with its operations nested, two of them resolving into each other, is refused and nothing is written', async () => {
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const before = await counts();
    const res = await api('POST', '/flows', {
      ...flow('nested loop'),
      operation: a,
      operations: [
        { id: a, key: 'first', type: 'log', options: { message: '1' }, resolve: b },
        { id: b, key: 'ping', type: 'log', options: { message: '2' }, resolve: c },
        { id: c, key: 'pong', type: 'log', options: { message: '3' }, reject: b },
      ],
    });
    expect(refusal(res)).to.match(
      /flow "nested loop" resolve or reject into a loop: ("ping" → "pong" → "ping"|"pong" → "ping" → "pong")/,
    );
    expect(await counts()).to.deep.equal(before);
  });

  it('a chain that branches and joins again is no loop, and is saved', async () => {
    const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const saved = flow('diamond', { operation: a });
    dataOf(
      await api('POST', '/flows', {
        ...saved,
        operations: [
          { id: a, key: 'check', type: 'condition', options: { filter: {} }, resolve: b, reject: c },
          { id: b, key: 'yes', type: 'log', options: { message: 'y' }, resolve: d },
          { id: c, key: 'no', type: 'log', options: { message: 'n' }, resolve: d },
          { id: d, key: 'end', type: 'log', options: { message: 'end' } },
        ],
      }),
    );
    expect(await ctx().server.db('svc_operations').where({ flow: saved.id }).count({ n: '*' }).first()).to.satisfy(
      (row: { n: number | string }) => Number(row.n) === 4,
    );
  });

  it('re-pointing an operation into its chain, or at itself, is refused and the operation keeps its pointer', async () => {
    const saved = flow('edited');
    dataOf(await api('POST', '/flows', saved));
    const [a, b] = [randomUUID(), randomUUID()];
    dataOf(await api('POST', '/operations', { id: b, flow: saved.id, key: 'second', type: 'log', resolve: null }));
    dataOf(await api('POST', '/operations', { id: a, flow: saved.id, key: 'first', type: 'log', resolve: b }));
    expect(refusal(await api('PATCH', `/operations/${b}`, { reject: a }))).to.match(
      /"second" → "first" → "second"|"first" → "second" → "first"/,
    );
    expect(refusal(await api('PATCH', `/operations/${a}`, { reject: a }))).to.match(/"first" → "first"/);
    const rows = (await ctx().server.db('svc_operations').where({ flow: saved.id }).orderBy('key')) as Row[];
    expect(rows.map((row) => [row['key'], row['resolve'], row['reject']])).to.deep.equal([
      ['first', b, null],
      ['second', null, null],
    ]);
    // An update of the flow whose nested operations close the loop is refused too.
    expect(
      refusal(await api('PATCH', `/flows/${saved.id}`, { operations: { update: [{ id: b, resolve: a }] } })),
    ).to.match(/flow "edited"/);
    expect((await ctx().server.db('svc_operations').where({ id: b }).first())?.['resolve']).to.equal(null);
  });

  it('a trigger operation calling its own flow, or a flow that calls it back, is refused; a templated one is left to run time', async () => {
    const first = flow('first');
    const second = flow('second');
    dataOf(await api('POST', '/flows', first));
    dataOf(await api('POST', '/flows', second));
    const self = await api('POST', '/operations', {
      id: randomUUID(),
      flow: first.id,
      key: 'again',
      type: 'trigger',
      options: { flow: first.id },
    });
    expect(refusal(self)).to.match(/flow "first" triggers itself: "first" \(operation "again"\) → "first"/);

    dataOf(
      await api('POST', '/operations', {
        id: randomUUID(),
        flow: first.id,
        key: 'call_second',
        type: 'trigger',
        options: { flow: second.id },
      }),
    );
    const back = await api('POST', '/operations', {
      id: randomUUID(),
      flow: second.id,
      key: 'call_first',
      type: 'trigger',
      options: { flow: first.id },
    });
    expect(refusal(back)).to.match(
      /flow "second" triggers itself: "second" \(operation "call_first"\) → "first" \(operation "call_second"\) → "second"/,
    );
    expect(await ctx().server.db('svc_operations').where({ flow: second.id })).to.deep.equal([]);

    dataOf(
      await api('POST', '/operations', {
        id: randomUUID(),
        flow: second.id,
        key: 'call_given',
        type: 'trigger',
        options: { flow: '{{ $trigger.body.flow }}' },
      }),
    );
  });
});
