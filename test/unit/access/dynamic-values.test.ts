import { expect } from 'chai';
import {
  adjustNow,
  claimsDynamicValue,
  collectDynamicPaths,
  isDynamicValue,
  resolveDynamicValues,
  type DynamicContext,
} from '../../../src/access/dynamic-values.js';

const NOW = new Date('2024-03-31T12:00:00.000Z');
const USER = '3f0c6c1e-0000-4000-8000-000000000001';
const ROLE = '3f0c6c1e-0000-4000-8000-000000000002';

const context = (overrides: Partial<DynamicContext> = {}): DynamicContext => ({
  user: USER,
  role: ROLE,
  now: NOW,
  userValues: new Map<string, unknown>([
    ['email', 'ann@example.com'],
    ['role.name', 'Editors'],
  ]),
  roleValues: new Map<string, unknown>([['name', 'Editors']]),
  ...overrides,
});

describe('dynamic values', () => {
  describe('adjustNow', () => {
    const cases: [string, string][] = [
      ['-1 year', '2023-03-31T12:00:00.000Z'],
      ['+2 hours', '2024-03-31T14:00:00.000Z'],
      ['-7 days', '2024-03-24T12:00:00.000Z'],
      ['3 weeks', '2024-04-21T12:00:00.000Z'],
      ['-30 minutes', '2024-03-31T11:30:00.000Z'],
      ['+10 seconds', '2024-03-31T12:00:10.000Z'],
      ['-1 month', '2024-02-29T12:00:00.000Z'],
      ['+13 months', '2025-04-30T12:00:00.000Z'],
      ['-2 years', '2022-03-31T12:00:00.000Z'],
      ['1 y', '2025-03-31T12:00:00.000Z'],
      ['-5 m', '2024-03-31T11:55:00.000Z'],
      ['-1 d', '2024-03-30T12:00:00.000Z'],
      ['+500 ms', '2024-03-31T12:00:00.500Z'],
      [' - 2 h ', '2024-03-31T10:00:00.000Z'],
    ];
    for (const [adjustment, expected] of cases) {
      it(`$NOW(${adjustment}) is ${expected}`, () => {
        expect(adjustNow(NOW, adjustment)?.toISOString()).to.equal(expected);
      });
    }

    it('clamps the day when a year lands on a shorter February', () => {
      expect(adjustNow(new Date('2024-02-29T08:00:00.000Z'), '-1 year')?.toISOString()).to.equal(
        '2023-02-28T08:00:00.000Z',
      );
    });

    it('cannot read unknown units or shapes', () => {
      for (const bad of ['-1 fortnight', 'yesterday', '', '1', '- year']) {
        expect(adjustNow(NOW, bad), bad).to.equal(undefined);
      }
    });
  });

  it('recognises exactly the dynamic variables of Directus 10', () => {
    for (const value of [
      '$NOW',
      '$NOW(-1 year)',
      '$CURRENT_USER',
      '$CURRENT_USER.role.name',
      '$CURRENT_ROLE',
      '$CURRENT_ROLE.name',
    ]) {
      expect(isDynamicValue(value), value).to.equal(true);
    }
    for (const value of ['$NOWHERE', '$CURRENT_USERS', 'x$NOW', '$CURRENT_USER.', '$CURRENT_USER..a', 42, null]) {
      expect(isDynamicValue(value), String(value)).to.equal(false);
    }
  });

  it('tells a malformed variable (refused by queries) from plain text (compared as text)', () => {
    for (const value of ['$NOW(soon)', '$CURRENT_USER.no field', '$CURRENT_USER.', '$CURRENT_ROLE..a', '$NOW']) {
      expect(claimsDynamicValue(value), value).to.equal(true);
    }
    for (const value of ['$NOWHERE', '$CURRENT_USERS', 'x$NOW', 'NOW', 42, null]) {
      expect(claimsDynamicValue(value), String(value)).to.equal(false);
    }
  });

  it('replaces variables anywhere in a filter, leaving keys and other values alone', () => {
    const filter = {
      _and: [
        { owner: { _eq: '$CURRENT_USER' } },
        { team: { _in: ['$CURRENT_ROLE', 'fixed'] } },
        { published: { _lte: '$NOW' } },
        { created: { _gte: '$NOW(-1 year)' } },
        { author: { email: { _eq: '$CURRENT_USER.email' } } },
        { label: { _eq: '$CURRENT_ROLE.name' } },
        { group: { _eq: '$CURRENT_USER.role.name' } },
        { note: { _contains: 'costs $NOW' }, count: { _gt: 3 }, flag: { _eq: true }, gone: { _null: true } },
      ],
    };
    expect(resolveDynamicValues(filter, context())).to.deep.equal({
      _and: [
        { owner: { _eq: USER } },
        { team: { _in: [ROLE, 'fixed'] } },
        { published: { _lte: '2024-03-31T12:00:00.000Z' } },
        { created: { _gte: '2023-03-31T12:00:00.000Z' } },
        { author: { email: { _eq: 'ann@example.com' } } },
        { label: { _eq: 'Editors' } },
        { group: { _eq: 'Editors' } },
        { note: { _contains: 'costs $NOW' }, count: { _gt: 3 }, flag: { _eq: true }, gone: { _null: true } },
      ],
    });
    expect(filter._and[0]).to.deep.equal({ owner: { _eq: '$CURRENT_USER' } }, 'the input is not changed');
  });

  it('resolves presets too, and null for the public caller', () => {
    const presets = { owner: '$CURRENT_USER', role: '$CURRENT_ROLE', stamp: '$NOW' };
    expect(resolveDynamicValues(presets, context({ user: null, role: null }))).to.deep.equal({
      owner: null,
      role: null,
      stamp: '2024-03-31T12:00:00.000Z',
    });
  });

  it('throws for a path that was not loaded and for an unreadable $NOW adjustment', () => {
    expect(() => resolveDynamicValues({ a: { _eq: '$CURRENT_USER.phone' } }, context())).to.throw(/not loaded/);
    expect(() => resolveDynamicValues({ a: { _eq: '$NOW(soon)' } }, context())).to.throw(/invalid dynamic variable/);
  });

  it('collects the paths a value needs, per variable', () => {
    const paths = collectDynamicPaths([
      { a: { _eq: '$CURRENT_USER.role.name' }, b: { _in: ['$CURRENT_USER.email', '$CURRENT_USER'] } },
      { c: '$CURRENT_ROLE.name', d: '$NOW' },
      null,
    ]);
    expect([...paths.user].sort()).to.deep.equal(['email', 'role.name']);
    expect([...paths.role]).to.deep.equal(['name']);
  });
});
