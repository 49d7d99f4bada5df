import { expect } from 'chai';
import { toDatabaseRow } from '../../../src/commands/to-database-value.js';
import { requireFixture } from './fixture-overview.js';

const things = requireFixture('things');

describe('toDatabaseRow', () => {
  const payload = {
    count: '42',
    big: '9007199254740993',
    ratio: '1.5',
    price: 12.5,
    flag: 'true',
    ref: '8F14E45F-CEEA-467F-A0E6-2F4B2C4D1E9A',
    day: '2024-05-01T23:00:00Z',
    local: '2024-05-01T10:20:30+02:00',
    clock: '10:20',
    doc: { a: [1, 'b'] },
    list: ['a', 'b'],
    label: 7,
    small: null,
  };

  it('converts validated values to what every dialect stores the same way', () => {
    const row = toDatabaseRow(things, payload, 'pg');
    expect(row).to.deep.equal({
      count: 42,
      big: '9007199254740993',
      ratio: 1.5,
      price: 12.5,
      flag: true,
      ref: '8f14e45f-ceea-467f-a0e6-2f4b2c4d1e9a',
      day: '2024-05-01',
      local: '2024-05-01 10:20:30',
      clock: '10:20',
      doc: '{"a":[1,"b"]}',
      list: 'a,b',
      label: '7',
      small: null,
    });
  });

  it('stores timestamps as Date on PostgreSQL and MySQL and as UTC text on SQLite', () => {
    const at = '2024-05-01T12:00:00+02:00';
    expect(toDatabaseRow(things, { at }, 'pg')['at']).to.deep.equal(new Date('2024-05-01T10:00:00.000Z'));
    expect(toDatabaseRow(things, { at }, 'mysql')['at']).to.deep.equal(new Date('2024-05-01T10:00:00.000Z'));
    expect(toDatabaseRow(things, { at }, 'sqlite3')['at']).to.equal('2024-05-01 10:00:00.000');
  });

  it('stores JSON scalars as JSON text and leaves out alias and unknown fields', () => {
    const articles = requireFixture('articles');
    expect(toDatabaseRow(things, { doc: 'text' }, 'sqlite3')).to.deep.equal({ doc: '"text"' });
    expect(toDatabaseRow(articles, { title: 't', comments: [1], nope: 1 }, 'mysql')).to.deep.equal({ title: 't' });
  });
});
