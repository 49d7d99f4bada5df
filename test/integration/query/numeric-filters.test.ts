import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { adminApi, dataOf } from '../commands/schema.js';
import { graphql } from '../graphql/graphql-client.js';
import { adminIds } from './read-client.js';

/** `filter` as a query string value. */
const q = (value: unknown): string => encodeURIComponent(JSON.stringify(value));

/**
 * One row per id; each numeric field holds values a binary float cannot hold exactly (57.399,
 * 0.1), and big integers past 2^53. The middle row (3) is the boundary every operator is tried on.
 */
const ROWS = [
  { id: 1, whole: -10, big: '-9007199254740993', real: -10.5, exact: '-10.25000' },
  { id: 2, whole: 0, big: '9007199254740992', real: 0.1, exact: '0.10000' },
  { id: 3, whole: 57, big: '9007199254740993', real: 57.399, exact: '57.39900' },
  { id: 4, whole: 1234, big: '9007199254740995', real: 1234.567, exact: '1234.56700' },
];

/** Each field, the value of row 3 and another row's, as a client writes them in a filter. */
const FIELDS = [
  { field: 'whole', boundary: 57, other: 0 },
  { field: 'big', boundary: '9007199254740993', other: '9007199254740992' },
  { field: 'real', boundary: 57.399, other: 0.1 },
  { field: 'exact', boundary: '57.399', other: '0.1' },
] as const;

// Every numeric type created through the API compares as written: MariaDB's 4-byte `float`
// column held 57.399 as 57.39899826..., which `_eq`/`_in` 57.399 missed and `_lt` 57.399 found.
describeEachDatabase('numeric filters: every numeric type finds its boundary row exactly', (ctx) => {
  before(async () => {
    const created = await adminApi(ctx(), 'POST', '/collections', {
      collection: 'measures',
      schema: {},
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true } },
        { field: 'whole', type: 'integer', schema: {} },
        { field: 'big', type: 'bigInteger', schema: {} },
        { field: 'real', type: 'float', schema: {} },
        { field: 'exact', type: 'decimal', schema: {} },
      ],
    });
    dataOf(created);
    dataOf(await adminApi(ctx(), 'POST', '/items/measures', ROWS));
  });

  const ids = (filter: unknown): Promise<unknown[]> =>
    adminIds(ctx(), `/items/measures?fields=id&sort=id&filter=${q(filter)}`);

  for (const { field, boundary, other } of FIELDS) {
    it(`${field}: _eq, _neq, _in, _nin, _lt, _lte, _gt, _gte and _between on the boundary`, async () => {
      expect(await ids({ [field]: { _eq: boundary } }), '_eq').to.deep.equal([3]);
      expect(await ids({ [field]: { _neq: boundary } }), '_neq').to.deep.equal([1, 2, 4]);
      expect(await ids({ [field]: { _in: [boundary, other] } }), '_in').to.deep.equal([2, 3]);
      expect(await ids({ [field]: { _in: [boundary] } }), '_in one').to.deep.equal([3]);
      expect(await ids({ [field]: { _nin: [boundary, other] } }), '_nin').to.deep.equal([1, 4]);
      expect(await ids({ [field]: { _lt: boundary } }), '_lt').to.deep.equal([1, 2]);
      expect(await ids({ [field]: { _lte: boundary } }), '_lte').to.deep.equal([1, 2, 3]);
      expect(await ids({ [field]: { _gt: boundary } }), '_gt').to.deep.equal([4]);
      expect(await ids({ [field]: { _gte: boundary } }), '_gte').to.deep.equal([3, 4]);
      expect(await ids({ [field]: { _between: [other, boundary] } }), '_between').to.deep.equal([2, 3]);
      expect(await ids({ [field]: { _nbetween: [other, boundary] } }), '_nbetween').to.deep.equal([1, 4]);
    });
  }

  it('the same on the query string form and in GraphQL', async () => {
    expect(await adminIds(ctx(), '/items/measures?fields=id&filter[real][_eq]=57.399')).to.deep.equal([3]);
    expect(await adminIds(ctx(), '/items/measures?fields=id&sort=id&filter[real][_in]=57.399,0.1')).to.deep.equal([
      2, 3,
    ]);
    const res = await graphql(ctx(), '{ measures(filter: { real: { _lt: 57.399 } }, sort: ["id"]) { id } }');
    expect(res.body).to.deep.equal({ data: { measures: [{ id: '1' }, { id: '2' }] } });
  });
});
