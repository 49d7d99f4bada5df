import { expect } from 'chai';
import { requirePrimaryKey, sameKey, toPrimaryKey } from '../../../src/commands/primary-key.js';
import { ForbiddenError } from '../../../src/errors.js';
import { collection, field, requireFixture } from './fixture-overview.js';

describe('primary keys from URLs and payloads', () => {
  const integers = requireFixture('articles');
  const uuids = requireFixture('things');
  const strings = collection('codes', [field('code', 'string', { isPrimaryKey: true })]);

  it('integer keys: numbers and digit strings, nothing else', () => {
    expect(toPrimaryKey(integers, '7')).to.equal(7);
    expect(toPrimaryKey(integers, 7)).to.equal(7);
    for (const bad of ['abc', '1.5', '', ' ', null, {}, true])
      expect(toPrimaryKey(integers, bad), String(bad)).to.equal(undefined);
  });

  it('integer keys out of the column range name no row (a PostgreSQL error otherwise)', () => {
    expect(toPrimaryKey(integers, '2147483647')).to.equal(2147483647);
    expect(toPrimaryKey(integers, '-2147483648')).to.equal(-2147483648);
    for (const bad of ['2147483648', '-2147483649', '9'.repeat(40)])
      expect(toPrimaryKey(integers, bad), bad).to.equal(undefined);
    const big = collection('ledger', [field('id', 'bigInteger', { isPrimaryKey: true })]);
    expect(toPrimaryKey(big, '9007199254740993')).to.equal('9007199254740993');
    expect(toPrimaryKey(big, '9223372036854775807')).to.equal('9223372036854775807');
    for (const bad of ['9223372036854775808', '-9223372036854775809'])
      expect(toPrimaryKey(big, bad), bad).to.equal(undefined);
  });

  it('uuid keys: well-formed, lower-cased', () => {
    expect(toPrimaryKey(uuids, '8F14E45F-CEEA-467F-A0E6-2F4B2C4D1E9A')).to.equal(
      '8f14e45f-ceea-467f-a0e6-2f4b2c4d1e9a',
    );
    expect(toPrimaryKey(uuids, 'not-a-uuid')).to.equal(undefined);
  });

  it('string keys are kept as given', () => {
    expect(toPrimaryKey(strings, ' a b ')).to.equal(' a b ');
  });

  it('a key no row can have is FORBIDDEN (spec, Errors, rule 1)', () => {
    expect(() => requirePrimaryKey(integers, 'abc')).to.throw(ForbiddenError);
  });

  it('compares keys across their types, uuids case-insensitively', () => {
    expect(sameKey(7, '7')).to.equal(true);
    expect(sameKey('ABC', 'abc')).to.equal(true);
    expect(sameKey(null, null)).to.equal(false);
    expect(sameKey(7, 8)).to.equal(false);
  });
});
