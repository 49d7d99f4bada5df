import { expect } from 'chai';
import { parseRange } from '../../../src/files/assets.js';
import { RangeNotSatisfiableError } from '../../../src/errors.js';

describe('asset ranges', () => {
  it('parses the three forms of a byte range, clipping the end to the file', () => {
    expect(parseRange('bytes=0-0', 10)).to.deep.equal({ start: 0, end: 0 });
    expect(parseRange('bytes=2-5', 10)).to.deep.equal({ start: 2, end: 5 });
    expect(parseRange('bytes=2-50', 10)).to.deep.equal({ start: 2, end: 9 });
    expect(parseRange('bytes=7-', 10)).to.deep.equal({ start: 7, end: 9 });
    expect(parseRange('bytes=-3', 10)).to.deep.equal({ start: 7, end: 9 });
    expect(parseRange('bytes=-30', 10)).to.deep.equal({ start: 0, end: 9 });
  });

  it('serves the whole file without a header, for another unit, or for several ranges', () => {
    expect(parseRange(undefined, 10)).to.equal(undefined);
    expect(parseRange('items=0-1', 10)).to.equal(undefined);
    expect(parseRange('bytes=0-1,4-5', 10)).to.equal(undefined);
  });

  it('refuses ranges that start beyond the end, run backwards, or are malformed', () => {
    for (const header of ['bytes=10-', 'bytes=5-2', 'bytes=-0', 'bytes=a-b', 'bytes=-', 'bytes=1-2-3']) {
      expect(() => parseRange(header, 10), header).to.throw(RangeNotSatisfiableError);
    }
    expect(() => parseRange('bytes=0-', 0)).to.throw(RangeNotSatisfiableError);
  });
});
