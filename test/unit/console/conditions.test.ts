import { expect } from 'chai';
import { applyConditions, matchesFilter } from '../../../src/console/studio/inputs/conditions.js';

const VALUES = {
  status: 'published',
  rating: '4',
  featured: true,
  note: '',
  tags: ['alpha', 'beta'],
  title: 'Hello world',
  published_at: '2024-05-06T07:08',
  author: null,
};

/** [rule, whether VALUES match it]: the operators Directus's conditions use most. */
const CASES: [unknown, boolean][] = [
  [{ status: { _eq: 'published' } }, true],
  [{ status: { _eq: 'draft' } }, false],
  [{ status: { _neq: 'draft' } }, true],
  [{ rating: { _eq: 4 } }, true],
  [{ status: { _in: ['draft', 'published'] } }, true],
  [{ status: { _in: 'draft,review' } }, false],
  [{ status: { _nin: ['draft'] } }, true],
  [{ author: { _null: true } }, true],
  [{ author: { _nnull: true } }, false],
  [{ status: { _null: false } }, true],
  [{ note: { _empty: true } }, true],
  [{ tags: { _nempty: true } }, true],
  [{ tags: { _empty: true } }, false],
  [{ rating: { _gt: 3 } }, true],
  [{ rating: { _gte: 4 } }, true],
  [{ rating: { _lt: 4 } }, false],
  [{ rating: { _lte: 4 } }, true],
  [{ published_at: { _gt: '2024-01-01' } }, true],
  [{ title: { _contains: 'world' } }, true],
  [{ tags: { _contains: 'beta' } }, true],
  [{ tags: { _contains: 'gamma' } }, false],
  [{ _and: [{ featured: { _eq: true } }, { status: { _eq: 'published' } }] }, true],
  [{ _and: [{ featured: { _eq: true } }, { status: { _eq: 'draft' } }] }, false],
  [{ _or: [{ featured: { _eq: false } }, { status: { _eq: 'published' } }] }, true],
  [{ _or: [] }, false],
  [{ status: { _unknown_operator: 1 } }, false],
  [null, false],
];

describe('console: meta.conditions in the browser', () => {
  for (const [rule, expected] of CASES) {
    it(`${JSON.stringify(rule)} → ${String(expected)}`, () => {
      expect(matchesFilter(rule, VALUES)).to.equal(expected);
    });
  }

  it('applies every matching condition in order, the later ones last, options merged', () => {
    const field = {
      readonly: false,
      required: false,
      options: { placeholder: 'x', min: 1 },
      conditions: [
        { rule: { featured: { _eq: true } }, required: true, options: { min: 2 } },
        { rule: { status: { _eq: 'draft' } }, hidden: true },
        { rule: { rating: { _gte: 4 } }, readonly: true, required: false },
      ],
    };
    expect(applyConditions(field, VALUES)).to.deep.equal({
      hidden: false,
      readonly: true,
      required: false,
      options: { placeholder: 'x', min: 2 },
    });
    expect(applyConditions(field, { ...VALUES, status: 'draft', rating: '1' })).to.deep.include({
      hidden: true,
      required: true,
    });
    expect(applyConditions({ ...field, conditions: ['not a condition'] }, VALUES).required).to.equal(false);
  });
});
