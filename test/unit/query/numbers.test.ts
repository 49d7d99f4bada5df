import { expect } from 'chai';
import {
  integerRange,
  integerRangeOfType,
  isIntegerInRange,
  MAX_QUERY_INTEGER,
  toBigInteger,
} from '../../../src/query/validate/numbers.js';
import { parseQuery } from '../../../src/query/index.js';
import { coerceLiteral } from '../../../src/query/validate/filter-values.js';
import { InvalidQueryError } from '../../../src/errors.js';

describe('numbers from requests', () => {
  it('reads integers exactly from JSON numbers and text, nothing else', () => {
    expect(toBigInteger(' -7 ')).to.equal(-7n);
    expect(toBigInteger('+3')).to.equal(3n);
    expect(toBigInteger(1e40)).to.equal(BigInt(1e40)); // the double's exact value
    expect(toBigInteger('9'.repeat(40))).to.equal(10n ** 40n - 1n);
    for (const bad of ['1e3', '1.5', '', '0x10', 1.5, NaN, Infinity, null, {}])
      expect(toBigInteger(bad), String(bad)).to.equal(undefined);
  });

  it('bounds integer fields by their column type, 32 and 64 bits otherwise', () => {
    expect(integerRange({ type: 'integer', dbType: 'integer' })).to.deep.equal([-(2n ** 31n), 2n ** 31n - 1n]);
    expect(integerRange({ type: 'integer', dbType: 'smallint' })).to.deep.equal([-32768n, 32767n]);
    expect(integerRange({ type: 'integer', dbType: 'int unsigned' })).to.deep.equal([0n, 2n ** 32n - 1n]);
    expect(integerRange({ type: 'bigInteger', dbType: 'bigint' })).to.deep.equal([-(2n ** 63n), 2n ** 63n - 1n]);
    expect(isIntegerInRange('2147483648', integerRange({ type: 'integer', dbType: null }))).to.equal(false);
    expect(isIntegerInRange('-9223372036854775808', integerRange({ type: 'bigInteger', dbType: null }))).to.equal(true);
  });

  it('bounds a key or filter value by its type alone, worked out once per type', () => {
    expect(integerRangeOfType('integer')).to.deep.equal([-(2n ** 31n), 2n ** 31n - 1n]);
    expect(integerRangeOfType('bigInteger')).to.deep.equal([-(2n ** 63n), 2n ** 63n - 1n]);
    expect(integerRangeOfType('integer')).to.equal(integerRangeOfType('integer'));
    expect(coerceLiteral('integer', ' 2147483647', 'key')).to.equal(2147483647);
    expect(coerceLiteral('bigInteger', '9223372036854775807', 'key')).to.equal('9223372036854775807');
    expect(() => coerceLiteral('integer', '2147483648', 'key')).to.throw(
      InvalidQueryError,
      'for key has to be an integer from -2147483648 to 2147483647',
    );
  });

  it('limit, offset and page above 2^53 - 1 are INVALID_QUERY', () => {
    for (const name of ['limit', 'offset', 'page']) {
      expect(parseQuery({ [name]: String(MAX_QUERY_INTEGER) })).to.deep.equal({ [name]: MAX_QUERY_INTEGER });
      for (const value of ['9007199254740992', '9'.repeat(40), 1e300]) {
        expect(() => parseQuery({ [name]: value }), `${name}=${value}`).to.throw(
          InvalidQueryError,
          `"${name}" must be less than or equal to ${MAX_QUERY_INTEGER}`,
        );
      }
    }
  });
});
