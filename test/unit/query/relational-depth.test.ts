import { expect } from 'chai';
import {
  checkRelationalDepth,
  deepDepth,
  filterDepth,
  pathDepth,
} from '../../../src/query/validate/relational-depth.js';
import type { Query } from '../../../src/query/query.js';

describe('relational depth (Directus 10 counting)', () => {
  it('a path counts its names', () => {
    expect([pathDepth('title'), pathDepth('author.name'), pathDepth('sections.item:headings.title')]).to.deep.equal([
      1, 2, 3,
    ]);
  });

  it('a filter counts field keys, never operators or groups', () => {
    const cases: [unknown, number][] = [
      [{}, 0],
      [{ title: { _eq: 'x' } }, 1],
      [{ title: 'shorthand' }, 0],
      [{ author: { name: { _eq: 'x' } } }, 2],
      [{ _and: [{ a: { _eq: 1 } }, { _or: [{ b: { c: { d: { _null: true } } } }] }] }, 3],
      [{ comments: { _some: { author: { name: { _in: ['a', 'b'] } } } } }, 3],
      [{ id: { _in: [] } }, 1],
    ];
    for (const [filter, depth] of cases) expect(filterDepth(filter), JSON.stringify(filter)).to.equal(depth);
  });

  it('deep counts each relation plus its _filter and _sort', () => {
    expect(deepDepth(undefined)).to.equal(0);
    expect(deepDepth({ comments: { limit: 1 } })).to.equal(1);
    expect(deepDepth({ comments: { filter: { author: { name: { _eq: 'x' } } } } })).to.equal(3);
    expect(deepDepth({ comments: { sort: ['-author.name'] } })).to.equal(3);
    expect(deepDepth({ comments: { deep: { author: { deep: { country: {} } } } } })).to.equal(3);
  });

  it('refuses a query whose fields, filter, sort or deep goes past the limit', () => {
    const refused: Query[] = [
      { fields: ['a.b.c'] },
      { filter: { a: { b: { c: { _eq: 1 } } } } },
      { sort: ['-a.b.c'] },
      { deep: { a: { filter: { b: { c: { _eq: 1 } } } } } },
      { groupBy: ['a.b.c'], aggregate: { count: ['*'] } },
    ];
    for (const query of refused) {
      expect(() => checkRelationalDepth(query, 2), JSON.stringify(query)).to.throw('Max relational depth exceeded');
    }
    const allowed: Query[] = [
      { fields: ['a.b'], filter: { a: { b: { _eq: 1 } } }, sort: ['a.b'], deep: { a: { filter: { b: { _eq: 1 } } } } },
      // Aggregates read no fields (Directus: fields = [] when aggregating).
      { fields: ['a.b.c'], aggregate: { count: ['*'] } },
    ];
    for (const query of allowed) expect(() => checkRelationalDepth(query, 2), JSON.stringify(query)).to.not.throw();
  });
});
