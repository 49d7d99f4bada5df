import { expect } from 'chai';
import { columnRuns } from '../../../src/commands/import/column-runs.js';

describe('commands/import: runs of rows that set the same columns (column-runs.ts)', () => {
  const runsOf = (rows: Record<string, unknown>[], except?: string) =>
    [...columnRuns(rows, except)].map(({ start, end, columns }) => [start, end, columns.join(',')]);

  it('a run ends where a row sets a column more, one less, another, or the same ones in another order', () => {
    const rows = [
      { a: 1, b: 2 },
      { a: 3, b: 4 },
      { a: 5, b: 6, c: 7 },
      { a: 8 },
      { a: 9, c: 10 },
      { c: 11, a: 12 },
      { c: 13, a: 14 },
    ];
    expect(runsOf(rows)).to.deep.equal([
      [0, 2, 'a,b'],
      [2, 3, 'a,b,c'],
      [3, 4, 'a'],
      [4, 5, 'a,c'],
      [5, 7, 'c,a'],
    ]);
    expect(runsOf([])).to.deep.equal([]);
  });

  it('the column left out (a COPY key) is neither compared nor listed', () => {
    const rows = [{ id: 1, a: 1 }, { a: 2 }, { a: 3, id: 3 }, { id: 4 }];
    expect(runsOf(rows, 'id')).to.deep.equal([
      [0, 3, 'a'],
      [3, 4, ''],
    ]);
  });
});
