import { expect } from 'chai';
import { encodeQuery } from '../../src/client/index.js';

describe('client encodeQuery', () => {
  const decoded = (params: Record<string, unknown>) => [...new URLSearchParams(encodeQuery(params)).entries()];

  it('repeats arrays as key[]=v in order', () => {
    expect(decoded({ fields: ['id', 'author.name'], sort: ['-id'] })).to.deep.equal([
      ['fields[]', 'id'],
      ['fields[]', 'author.name'],
      ['sort[]', '-id'],
    ]);
  });

  it('sends filter, deep, alias and aggregate objects as JSON strings', () => {
    const filter = { _and: [{ title: { _contains: 'a&b=c' } }, { id: { _in: [1, 2] } }] };
    const deep = { users: { _filter: { email: { _eq: 'x@y.z' } }, _limit: 1 } };
    expect(decoded({ filter, deep, alias: { t: 'title' }, aggregate: { count: '*' } })).to.deep.equal([
      ['filter', JSON.stringify(filter)],
      ['deep', JSON.stringify(deep)],
      ['alias', JSON.stringify({ t: 'title' })],
      ['aggregate', JSON.stringify({ count: '*' })],
    ]);
  });

  it('writes scalars as text and leaves out null and undefined', () => {
    expect(decoded({ limit: -1, offset: 0, search: 'x y', meta: undefined, page: null, flag: false })).to.deep.equal([
      ['limit', '-1'],
      ['offset', '0'],
      ['search', 'x y'],
      ['flag', 'false'],
    ]);
  });

  it('is empty for no parameters', () => {
    expect(encodeQuery({})).to.equal('');
  });
});
