import { expect } from 'chai';
import { KeyList, KeyRuns } from '../../../src/commands/key-runs.js';
import type { PrimaryKey } from '../../../src/commands/types.js';

/** The keys of `runs` in the order noted. */
const keysOf = (runs: KeyRuns) => new KeyList(runs.segments()).slice();

/** Notes `keys` (row i + 1 each, repeats skipped) in KeyRuns and in a Map; both must agree. */
function noteBoth(keys: readonly PrimaryKey[]): { runs: KeyRuns; model: Map<PrimaryKey, number> } {
  const runs = new KeyRuns();
  const model = new Map<PrimaryKey, number>();
  for (const [index, key] of keys.entries()) {
    expect(runs.get(key), `get(${String(key)}) before row ${index + 1}`).to.equal(model.get(key));
    if (model.has(key)) continue;
    runs.set(key, index + 1);
    model.set(key, index + 1);
  }
  return { runs, model };
}

function expectSame({ runs, model }: ReturnType<typeof noteBoth>, probes: readonly PrimaryKey[]): void {
  expect(keysOf(runs)).to.deep.equal([...model.keys()]);
  for (const key of probes) expect(runs.get(key), `get(${String(key)})`).to.equal(model.get(key));
}

describe('KeyRuns: keys noted once, with their row, in the order noted', () => {
  it('answers like a Map for increasing integer keys, runs broken by gaps and by rows that skip', () => {
    const keys = [1, 2, 3, 10, 11, 12, 13, 20, 21, 40];
    const both = noteBoth(keys);
    expectSame(both, [0, 1, 3, 4, 9, 10, 13, 14, 21, 22, 40, 41, -1]);
    // Row numbers follow the key inside a run: key 12 was noted on row 6.
    expect(both.runs.get(12)).to.equal(6);
    // A key noted on a row that does not follow starts a run of its own.
    const runs = new KeyRuns();
    runs.set(5, 1);
    runs.set(6, 3);
    expect([runs.get(5), runs.get(6), runs.get(7)]).to.deep.equal([1, 3, undefined]);
  });

  it('finds a repeat once the order breaks, and keeps the order noted', () => {
    const both = noteBoth([1, 2, 3, 4, 2, 7, 5, 3, 8]);
    expectSame(both, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(keysOf(both.runs)).to.deep.equal([1, 2, 3, 4, 7, 5, 8]);
    expect(both.runs.get(2), 'the first row of a repeated key').to.equal(2);
  });

  it('takes text keys, keys beyond safe integers and fractions apart from integers', () => {
    const both = noteBoth([1, 2, '3', 'a', 4, 'a', 2 ** 53, 2.5, 5, '1']);
    expectSame(both, [1, '1', 2, '2', 3, '3', 'a', 4, 5, 2 ** 53, 2.5]);
  });

  it('numbers the keys added in order, each once', () => {
    const runs = new KeyRuns();
    for (const key of [10, 11, 11, 12, 3, 10, 'x', 'x', 13]) runs.add(key);
    expect(keysOf(runs)).to.deep.equal([10, 11, 12, 3, 'x', 13]);
    expect([10, 11, 12, 3, 'x', 13].map((key) => runs.get(key))).to.deep.equal([0, 1, 2, 3, 4, 5]);
  });

  it('agrees with a Map over random sequences, increasing stretches included', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 50; round += 1) {
      const keys: PrimaryKey[] = [];
      let next = random(5);
      for (let i = 0; i < 200; i += 1) {
        const pick = random(10);
        if (pick < 7) keys.push((next += 1 + (pick === 0 ? random(3) : 0)));
        else if (pick < 9) keys.push(random(next + 1));
        else keys.push(`k${random(20)}`);
      }
      expectSame(noteBoth(keys), [...keys, -1, next + 1, 'k99']);
    }
  });

  it('keeps increasing integer keys as ranges, and keys after the order broke as one array', () => {
    const runs = new KeyRuns();
    for (const [row, key] of [1, 2, 3, 7, 8].entries()) runs.set(key, row + 1);
    expect(runs.segments()).to.deep.equal([
      { first: 1, count: 3 },
      { first: 7, count: 2 },
    ]);
    runs.set(4, 6);
    expect(runs.segments()).to.deep.equal([[1, 2, 3, 7, 8, 4]]);
  });
});

describe('KeyList: keys of arrays and ranges, read a slice at a time', () => {
  const list = new KeyList([
    { first: 10, count: 3 },
    ['a', 'b'],
    { first: 100, count: 0 },
    [5],
    { first: 1, count: 2 },
  ]);
  const all = [10, 11, 12, 'a', 'b', 5, 1, 2];

  it('has the length and the slices of the array of its keys, across segments', () => {
    expect(list.length).to.equal(all.length);
    expect(list.slice()).to.deep.equal(all);
    for (let start = 0; start <= all.length; start += 1)
      for (let end = start; end <= all.length + 1; end += 1)
        expect(list.slice(start, end), `slice(${start}, ${end})`).to.deep.equal(all.slice(start, end));
  });

  it('is its keys as JSON', () => {
    expect(JSON.parse(JSON.stringify({ keys: list }))).to.deep.equal({ keys: all });
    expect(new KeyList([]).slice()).to.deep.equal([]);
  });
});
