import { expect } from 'chai';
import { findUnstorableText, unstorableText } from '../../../src/db/storable-text.js';

describe('text a database cannot store', () => {
  it('PostgreSQL refuses NUL; MariaDB and SQLite store it', () => {
    expect(unstorableText('pg', 'a\u0000b')).to.be.a('string');
    expect(unstorableText('mysql', 'a\u0000b')).to.equal(undefined);
    expect(unstorableText('sqlite3', 'a\u0000b')).to.equal(undefined);
  });

  it('every dialect refuses a lone surrogate, none a pair', () => {
    for (const dialect of ['pg', 'mysql', 'sqlite3'] as const) {
      for (const text of ['\ud800', 'x\udfffy', '\udbff\udbff', 'a\ud83d'])
        expect(unstorableText(dialect, text), `${dialect} ${JSON.stringify(text)}`).to.be.a('string');
      for (const text of ['😀', 'plain', '', '\uffff']) expect(unstorableText(dialect, text), text).to.equal(undefined);
    }
  });

  it('finds the first such string in keys and values at any depth', () => {
    expect(findUnstorableText('pg', { a: [1, { b: 'x\u0000' }] })).to.be.a('string');
    expect(findUnstorableText('mysql', { ['k\ud800']: 1 })).to.be.a('string');
    expect(findUnstorableText('pg', { a: ['fine', 2, null, true] })).to.equal(undefined);
  });
});
