import { expect } from 'chai';
import { parseDuration, parseRetention } from '../../../src/config/durations.js';

/** The one syntax of durations and retentions: the environment's and svc_settings.export_retention's. */
describe('durations and retentions', () => {
  it('a duration is plain digits (milliseconds) or the ms syntax', () => {
    expect(parseDuration('2500')).to.equal(2500);
    expect(parseDuration('0')).to.equal(0);
    expect(parseDuration('500ms')).to.equal(500);
    expect(parseDuration('90m')).to.equal(90 * 60_000);
    expect(parseDuration('12h')).to.equal(12 * 3_600_000);
    expect(parseDuration('30d')).to.equal(30 * 86_400_000);
    expect(parseDuration('1.5h')).to.equal(5_400_000);
  });

  it('words, negatives, empty and numbers no duration holds are refused', () => {
    for (const refused of ['a week', 'forever', '-1d', '-5', '', '7 days ago', '1e3', 'Infinity', '12h30m']) {
      expect(parseDuration(refused), refused).to.equal(undefined);
    }
  });

  it('a retention: a duration, or 0 / false in any case to keep forever', () => {
    expect(parseRetention('30d')).to.deep.equal({ ms: 30 * 86_400_000 });
    expect(parseRetention('3600000')).to.deep.equal({ ms: 3_600_000 });
    expect(parseRetention(' 12h ')).to.deep.equal({ ms: 12 * 3_600_000 });
    for (const keep of ['0', 'false', 'FALSE', 'False', ' 0 ']) {
      expect(parseRetention(keep), keep).to.deep.equal({ ms: null });
    }
    for (const refused of ['a week', 'never', '-1h', '-0.5d', 'true', '', '  ']) {
      expect(parseRetention(refused), refused).to.equal(undefined);
    }
  });
});
