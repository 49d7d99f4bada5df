import { expect } from 'chai';
import { validateFilter } from '../../../src/access/validate-filter.js';

const variables = { now: new Date('2024-05-01T10:00:00.000Z'), user: 'u-1', role: 'r-1' };

/** [type, extensions without field/type, message] of each failure. */
function failures(filter: unknown, payload: Record<string, unknown>): [string, Record<string, unknown>, string][] {
  return validateFilter(filter, payload, variables).map((e) => {
    const { field: _field, type, ...rest } = e.extensions;
    return [type, rest, e.message];
  });
}

describe('validateFilter', () => {
  const cases: [string, unknown, unknown, [string, Record<string, unknown>, string]][] = [
    ['_eq', 'a', 'b', ['eq', { valid: 'a' }, 'Validation failed for field "f". Value has to be "a".']],
    ['_neq', 'a', 'a', ['neq', { invalid: 'a' }, 'Validation failed for field "f". Value can\'t be "a".']],
    ['_lt', 5, 5, ['lt', { valid: 5 }, 'Validation failed for field "f". Value has to be less than "5".']],
    [
      '_lte',
      5,
      6,
      ['lte', { valid: 5 }, 'Validation failed for field "f". Value has to be less than or equal to "5".'],
    ],
    ['_gt', 5, '5', ['gt', { valid: 5 }, 'Validation failed for field "f". Value has to be greater than "5".']],
    [
      '_gte',
      5,
      4,
      ['gte', { valid: 5 }, 'Validation failed for field "f". Value has to be greater than or equal to "5".'],
    ],
    [
      '_in',
      ['a', 'b'],
      'c',
      ['in', { valid: ['a', 'b'] }, 'Validation failed for field "f". Value has to be one of "a", "b".'],
    ],
    [
      '_nin',
      ['a', 'b'],
      'a',
      ['nin', { invalid: ['a', 'b'] }, 'Validation failed for field "f". Value can\'t be one of "a", "b".'],
    ],
    ['_null', true, 'x', ['null', {}, 'Validation failed for field "f". Value has to be null.']],
    ['_nnull', true, null, ['nnull', {}, 'Validation failed for field "f". Value can\'t be null.']],
    ['_empty', true, 'x', ['empty', {}, 'Validation failed for field "f". Value has to be empty.']],
    ['_nempty', true, '', ['nempty', {}, 'Validation failed for field "f". Value can\'t be empty.']],
    [
      '_contains',
      'ab',
      'xyz',
      ['contains', { substring: 'ab' }, 'Validation failed for field "f". Value has to contain "ab".'],
    ],
    [
      '_ncontains',
      'ab',
      'xaby',
      ['ncontains', { substring: 'ab' }, 'Validation failed for field "f". Value can\'t contain "ab".'],
    ],
    ['_starts_with', 'C', 'X1', ['starts_with', { substring: 'C' }, 'Validation failed for field "f".']],
    ['_ends_with', 'z', 'abc', ['ends_with', { substring: 'z' }, 'Validation failed for field "f".']],
    [
      '_regex',
      '^[a-z]+$',
      'A1',
      ['regex', {}, 'Validation failed for field "f". Value doesn\'t have the correct format.'],
    ],
  ];
  for (const [op, expected, value, failure] of cases) {
    it(`${op} fails with the reference's type, extensions and message`, () => {
      expect(failures({ f: { [op]: expected } }, { f: value })).to.deep.equal([failure]);
    });
  }

  it('passes values that satisfy the operator', () => {
    const passing: [string, unknown, unknown][] = [
      ['_eq', 5, '5'],
      ['_neq', 'a', 'b'],
      ['_lt', 5, 4],
      ['_gte', '2024-01-01', '2024-05-01T00:00:00Z'],
      ['_in', 'a,b', 'b'],
      ['_nnull', true, 0],
      ['_contains', 'b', ['a', 'b']],
      ['_icontains', 'AB', 'xaby'],
      ['_between', [1, 3], 3],
      ['_regex', '/^a/i', 'Abc'],
    ];
    for (const [op, expected, value] of passing) {
      expect(failures({ f: { [op]: expected } }, { f: value }), `${op} ${JSON.stringify(value)}`).to.deep.equal([]);
    }
  });

  it('checks only fields present in the payload', () => {
    expect(failures({ f: { _eq: 'a' } }, {})).to.deep.equal([]);
  });

  it('collects every failure of _and', () => {
    const filter = { _and: [{ a: { _eq: 1 } }, { b: { _eq: 2 } }] };
    expect(validateFilter(filter, { a: 0, b: 0 }, variables).map((e) => e.extensions.field)).to.deep.equal(['a', 'b']);
  });

  it('passes _or when one branch passes and fails with every branch otherwise', () => {
    const filter = { _or: [{ a: { _eq: 1 } }, { a: { _eq: 2 } }] };
    expect(failures(filter, { a: 2 })).to.deep.equal([]);
    expect(failures(filter, { a: 3 }).map(([type, extra]) => [type, extra])).to.deep.equal([
      ['eq', { valid: 1 }],
      ['eq', { valid: 2 }],
    ]);
  });

  it('resolves $CURRENT_USER, $CURRENT_ROLE and $NOW', () => {
    expect(failures({ owner: { _eq: '$CURRENT_USER' } }, { owner: 'u-1' })).to.deep.equal([]);
    expect(failures({ role: { _eq: '$CURRENT_ROLE' } }, { role: 'r-2' })[0]?.[1]).to.deep.equal({ valid: 'r-1' });
    expect(failures({ at: { _lte: '$NOW' } }, { at: '2024-05-01T09:00:00Z' })).to.deep.equal([]);
    expect(failures({ at: { _lte: '$NOW' } }, { at: '2024-05-02T09:00:00Z' }).map(([type]) => type)).to.deep.equal([
      'lte',
    ]);
  });

  it('_submitted requires the field to be present', () => {
    expect(failures({ f: { _submitted: true } }, {}).map(([type]) => type)).to.deep.equal(['required']);
    expect(failures({ f: { _submitted: true } }, { f: null })).to.deep.equal([]);
  });
});
