import { expect } from 'chai';
import { CronExpression } from '../../../src/flows/cron.js';
import { unmatchedPaths } from '../../../src/flows/filter-match.js';
import { laneOf, nextSeq } from '../../../src/flows/run-lanes.js';
import { renderOptions, valueAt } from '../../../src/flows/templates.js';

describe('flows: templates', () => {
  const data = { $trigger: { body: { title: 'Hi', tags: ['a', 'b'], n: 3 } }, $last: null, save: 7 };

  it('a string that is one template takes the value itself; inside text it is written out', () => {
    expect(renderOptions('{{ $trigger.body.tags }}', data)).to.deep.equal(['a', 'b']);
    expect(renderOptions('{{save}}', data)).to.equal(7);
    expect(renderOptions('id {{ save }}: {{ $trigger.body.title }} {{ $trigger.body.tags }}', data)).to.equal(
      'id 7: Hi ["a","b"]',
    );
    expect(renderOptions({ a: ['{{ $trigger.body.n }}', 'x'], b: 1 }, data)).to.deep.equal({ a: [3, 'x'], b: 1 });
  });

  it('a path that leads nowhere is empty, and never reaches the prototype', () => {
    expect(renderOptions('{{ nothing.here }}', data)).to.equal(undefined);
    expect(renderOptions('[{{ nothing }}]', data)).to.equal('[]');
    expect(valueAt(data, '__proto__')).to.equal(undefined);
    expect(valueAt(data, '$trigger.constructor')).to.equal(undefined);
  });
});

describe('flows: condition filters in memory', () => {
  const data = { $trigger: { payload: { status: 'published', views: 12, tags: ['news'], note: null } } };
  const cases: [string, unknown, string[]][] = [
    ['_eq passes', { $trigger: { payload: { status: { _eq: 'published' } } } }, []],
    ['_eq fails with its path', { $trigger: { payload: { status: { _eq: 'draft' } } } }, ['$trigger.payload.status']],
    ['numbers compare with their text', { $trigger: { payload: { views: { _gt: '10', _lte: 12 } } } }, []],
    ['_in and _nin', { $trigger: { payload: { status: { _in: ['draft', 'published'], _nin: 'archived' } } } }, []],
    ['_null and _nnull', { $trigger: { payload: { note: { _null: true }, status: { _nnull: true } } } }, []],
    ['_contains on arrays', { $trigger: { payload: { tags: { _contains: 'news' } } } }, []],
    [
      '_or passes when one side does',
      { _or: [{ $trigger: { payload: { status: { _eq: 'x' } } } }, { $trigger: { payload: { views: { _eq: 12 } } } }] },
      [],
    ],
    [
      '_and fails when one side does',
      {
        _and: [
          { $trigger: { payload: { status: { _eq: 'published' } } } },
          { $trigger: { payload: { views: { _lt: 5 } } } },
        ],
      },
      ['$trigger.payload.views'],
    ],
    ['an unknown operator fails', { $trigger: { payload: { status: { _weird: 1 } } } }, ['$trigger.payload.status']],
    ['a missing field fails _eq', { $trigger: { payload: { missing: { _eq: 1 } } } }, ['$trigger.payload.missing']],
  ];
  for (const [name, filter, failed] of cases) {
    it(name, () => {
      expect(unmatchedPaths(filter, data)).to.deep.equal(failed);
    });
  }
});

describe('flows: cron', () => {
  const at = (iso: string) => new Date(iso);

  it('five fields run at second 0; six fields name the seconds', () => {
    const everyMinute = CronExpression.parse('* * * * *');
    expect(everyMinute?.matches(at('2026-01-05T10:11:00Z'))).to.equal(true);
    expect(everyMinute?.matches(at('2026-01-05T10:11:01Z'))).to.equal(false);
    const everyTwoSeconds = CronExpression.parse('*/2 * * * * *');
    expect(everyTwoSeconds?.matches(at('2026-01-05T10:11:04Z'))).to.equal(true);
    expect(everyTwoSeconds?.matches(at('2026-01-05T10:11:05Z'))).to.equal(false);
  });

  it('ranges, lists, steps and days: either day field matches when both are restricted', () => {
    const cron = CronExpression.parse('30 9-17/4 1,15 * 1');
    // 2026-01-05 is a Monday, not the 1st or 15th.
    expect(cron?.matches(at('2026-01-05T13:30:00Z'))).to.equal(true);
    expect(cron?.matches(at('2026-01-15T09:30:00Z'))).to.equal(true);
    expect(cron?.matches(at('2026-01-06T09:30:00Z'))).to.equal(false);
    expect(cron?.matches(at('2026-01-05T11:30:00Z'))).to.equal(false);
    expect(CronExpression.parse('0 0 * * 7')?.matches(at('2026-01-04T00:00:00Z'))).to.equal(true);
  });

  it('refuses what is not a cron expression', () => {
    for (const text of ['', '* * *', '60 * * * *', '* * * 13 *', 'a b c d e', '5-1 * * * *', '*/0 * * * *']) {
      expect(CronExpression.parse(text), text).to.equal(undefined);
    }
  });
});

describe('flows: the lanes of item events', () => {
  it("an item's create, update and delete share its flow's lane, whatever the key's type", () => {
    const lane = laneOf('flow-a', { event: 'items.create', collection: 'articles', key: 5 });
    expect(laneOf('flow-a', { event: 'items.update', collection: 'articles', keys: ['5'] })).to.equal(lane);
    expect(laneOf('flow-a', { event: 'items.delete', collection: 'articles', keys: [5] })).to.equal(lane);
    expect(laneOf('flow-b', { collection: 'articles', keys: [5] })).not.to.equal(lane);
    expect(laneOf('flow-a', { collection: 'authors', keys: [5] })).not.to.equal(lane);
    expect(laneOf('flow-a', { collection: 'articles', keys: [6] })).not.to.equal(lane);
  });

  it('an event of several items has the lane of its set of keys, in any order', () => {
    const lane = laneOf('flow-a', { collection: 'articles', keys: [1, 2, 2] });
    expect(laneOf('flow-a', { collection: 'articles', keys: [2, 1] })).to.equal(lane);
    expect(laneOf('flow-a', { collection: 'articles', keys: [1] })).not.to.equal(lane);
  });

  it('events are numbered in the order they fire, however many fire within one ms', () => {
    const seqs = Array.from({ length: 5000 }, () => nextSeq());
    expect(seqs.every((seq, i) => i === 0 || seq > (seqs[i - 1] ?? Infinity))).to.equal(true);
    expect(Number.isSafeInteger(seqs.at(-1))).to.equal(true);
  });
});
