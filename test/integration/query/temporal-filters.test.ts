import { expect } from 'chai';
import { describeEachDatabase } from '../../support/server.js';
import { expectOk, schemaApi } from '../catalog/schema-api.js';

type Row = Record<string, unknown>;

const FIELDS = ['test_timestamp', 'test_datetime', 'test_date', 'test_time'] as const;

// A value read back from the API, given back in a filter, matches its row on every dialect
// (SQLite keeps temporal values as text in whatever form they were written).
describeEachDatabase('filters on temporal fields with values in the API format', (ctx) => {
  const api = schemaApi(ctx);
  const ids = async (filter: unknown): Promise<unknown[]> => {
    const data: Row[] = expectOk(
      await api('GET', `/items/moments?fields=id&sort=id&filter=${encodeURIComponent(JSON.stringify(filter))}`),
    );
    return data.map((row) => row['id']);
  };
  let first: Row;
  let second: Row;

  before(async () => {
    expectOk(
      await api('POST', '/collections', {
        collection: 'moments',
        schema: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'test_timestamp', type: 'timestamp' },
          { field: 'test_datetime', type: 'dateTime' },
          { field: 'test_date', type: 'date' },
          { field: 'test_time', type: 'time' },
        ],
      }),
    );
    const created: Row[] = expectOk(
      await api('POST', '/items/moments', [
        {
          test_timestamp: '1974-08-06T11:01:51.000Z',
          test_datetime: '1974-08-06T11:01:51',
          test_date: '1974-08-06',
          test_time: '11:01:51',
        },
        {
          test_timestamp: '2001-02-03T04:05:06.000Z',
          test_datetime: '2001-02-03T04:05:06',
          test_date: '2001-02-03',
          test_time: '14:05:06',
        },
      ]),
    );
    [first = {}, second = {}] = created;
    expect(first['test_timestamp']).to.equal('1974-08-06T11:01:51.000Z');
  });

  for (const field of FIELDS) {
    it(`${field}: _eq, _neq, _in, _lt/_lte/_gt/_gte, _between and _nbetween with the values read back`, async () => {
      const [a, b] = [first[field], second[field]];
      const [idA, idB] = [first['id'], second['id']];
      expect(await ids({ [field]: { _eq: a } })).to.deep.equal([idA]);
      expect(await ids({ [field]: { _eq: b } })).to.deep.equal([idB]);
      expect(await ids({ [field]: { _neq: a } })).to.deep.equal([idB]);
      expect(await ids({ [field]: { _in: [a, b] } })).to.deep.equal([idA, idB]);
      expect(await ids({ [field]: { _nin: [a] } })).to.deep.equal([idB]);
      expect(await ids({ [field]: { _lte: a } })).to.deep.equal([idA]);
      expect(await ids({ [field]: { _lt: b } })).to.deep.equal([idA]);
      expect(await ids({ [field]: { _gt: a } })).to.deep.equal([idB]);
      expect(await ids({ [field]: { _gte: b } })).to.deep.equal([idB]);
      expect(await ids({ [field]: { _between: [a, b] } })).to.deep.equal([idA, idB]);
      expect(await ids({ [field]: { _nbetween: [a, b] } })).to.deep.equal([]);
      expect(await ids({ [field]: { _nbetween: [b, b] } })).to.deep.equal([idA]);
    });
  }

  it('the filter forms of a moment: with or without milliseconds, zone or T', async () => {
    const idA = first['id'];
    for (const value of [
      '1974-08-06T11:01:51.000Z',
      '1974-08-06T11:01:51Z',
      '1974-08-06 11:01:51',
      '1974-08-06T13:01:51+02:00',
    ]) {
      expect(await ids({ test_timestamp: { _eq: value } }), value).to.deep.equal([idA]);
    }
    for (const value of ['1974-08-06T11:01:51', '1974-08-06 11:01:51', '1974-08-06T11:01:51.000']) {
      expect(await ids({ test_datetime: { _eq: value } }), value).to.deep.equal([idA]);
    }
    expect(await ids({ test_time: { _eq: '11:01:51.000' } })).to.deep.equal([idA]);
  });

  it('SQLite: rows stored in other text forms, or as epoch milliseconds, compare by their moment', async function () {
    if (ctx().dialect !== 'sqlite') this.skip(); // typed columns elsewhere: one stored form
    const { db } = ctx().server;
    await db('moments').insert([
      {
        id: 10,
        test_timestamp: '1990-01-01 00:00:00',
        test_datetime: '1990-01-01T00:00:00',
        test_date: '1990-01-01',
        test_time: '09:30',
      },
      {
        id: 11,
        test_timestamp: Date.parse('1995-05-05T05:05:05.500Z'),
        test_datetime: '1995-05-05 05:05:05.500',
        test_date: '1995-05-05',
        test_time: '09:30:00.000',
      },
    ]);
    try {
      expect(await ids({ test_timestamp: { _eq: '1990-01-01T00:00:00.000Z' } })).to.deep.equal([10]);
      expect(await ids({ test_timestamp: { _eq: '1995-05-05T05:05:05.500Z' } })).to.deep.equal([11]);
      expect(
        await ids({ test_timestamp: { _between: ['1990-01-01T00:00:00Z', '1995-05-05T05:05:05.500Z'] } }),
      ).to.deep.equal([10, 11]);
      expect(await ids({ test_datetime: { _eq: '1990-01-01T00:00:00' } })).to.deep.equal([10]);
      expect(await ids({ test_datetime: { _eq: '1995-05-05T05:05:05.500' } })).to.deep.equal([11]);
      expect(await ids({ test_time: { _eq: '09:30:00' } })).to.deep.equal([10, 11]);
    } finally {
      await db('moments').whereIn('id', [10, 11]).delete();
    }
  });
});
