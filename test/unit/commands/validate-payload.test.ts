import { expect } from 'chai';
import { ServiceError, ServiceErrorList } from '../../../src/errors.js';
import { validatePayload, type PayloadCheck } from '../../../src/commands/validate-payload.js';
import type { Item } from '../../../src/commands/types.js';
import { FIXTURE_OVERVIEW, requireFixture } from './fixture-overview.js';

const variables = { now: new Date('2024-05-01T10:00:00Z'), user: null, role: null };
const CREATE: PayloadCheck = { action: 'create', variables };
const UPDATE: PayloadCheck = { action: 'update', variables };

interface Reported {
  code: string;
  message: string;
  extensions: Readonly<Record<string, unknown>>;
}

/** The errors validation reports, or [] when the payload passes. */
function errorsOf(collection: string, payload: Item, check: PayloadCheck = UPDATE): Reported[] {
  try {
    validatePayload(FIXTURE_OVERVIEW, requireFixture(collection), payload, check);
    return [];
  } catch (error) {
    const list = error instanceof ServiceErrorList ? error.errors : [error];
    return list.map((e) => {
      if (!(e instanceof ServiceError)) throw e;
      return { code: e.code, message: e.message, extensions: e.extensions };
    });
  }
}

/** A complete valid `things` payload for create, with `overrides`. */
const thing = (overrides: Item = {}): Item => ({
  id: '8f14e45f-ceea-467f-a0e6-2f4b2c4d1e9a',
  required_note: 'n',
  ...overrides,
});

describe('validatePayload', () => {
  it('accepts a valid payload of every column type', () => {
    expect(
      errorsOf(
        'things',
        thing({
          small: 12,
          count: '42',
          big: '9007199254740993',
          unsigned: 4000000000,
          ratio: 1.5,
          price: '999.99',
          flag: false,
          ref: '8F14E45F-CEEA-467F-A0E6-2F4B2C4D1E9A',
          day: '2024-05-01',
          at: '2024-05-01T10:00:00Z',
          local: '2024-05-01T10:00:00',
          clock: '10:20:30',
          doc: { any: ['json', 1] },
          list: ['a', 'b'],
          secret: 'plain text',
          nickname: 'abc',
        }),
        CREATE,
      ),
    ).to.deep.equal([]);
  });

  describe('wrong basic type ([DEVIATION]: FAILED_VALIDATION type "type", not 500)', () => {
    const cases: [string, unknown][] = [
      ['count', 'abc'],
      ['count', 1.5],
      ['count', true],
      ['big', '12x'],
      ['ratio', 'fast'],
      ['price', { n: 1 }],
      ['flag', 'yes'],
      ['ref', 'not-a-uuid'],
      ['day', 'yesterday'],
      ['at', '2024-13-45T99:00:00Z'],
      ['clock', '10h'],
      // Days the calendar lacks (Date.parse rolls 2024-02-30 over to March 1) and times of day that do not exist.
      ['day', '2024-02-30'],
      ['day', '2023-02-29'],
      ['day', '0000-01-01'],
      ['local', '2024-04-31T10:00:00'],
      ['at', '2024-01-01T24:00:00Z'],
      ['local', '2024-01-01 10:61'],
      ['clock', '25:00:00'],
      ['clock', '10:60'],
      ['clock', '10:00:60'],
      ['list', { a: 1 }],
      ['secret', 42],
      ['nickname', ['a']],
      ['required_note', false],
    ];
    for (const [name, value] of cases) {
      it(`${name} = ${JSON.stringify(value)}`, () => {
        expect(errorsOf('things', { [name]: value })).to.deep.equal([
          {
            code: 'FAILED_VALIDATION',
            message: name === 'nickname' ? 'Nickname is wrong.' : `Validation failed for field "${name}".`,
            extensions: { field: name, type: 'type' },
          },
        ]);
      });
    }
  });

  it('reports a missing required field on create as "required", naming the field', () => {
    expect(errorsOf('authors', {}, CREATE)).to.deep.equal([
      {
        code: 'FAILED_VALIDATION',
        message: 'Validation failed for field "name". Value is required.',
        extensions: { field: 'name', type: 'required' },
      },
    ]);
  });

  it('treats a non-nullable column without default as required on create, not one with a default or generated key', () => {
    const fields = errorsOf('articles', {}, CREATE).map((e) => [e.extensions['field'], e.extensions['type']]);
    expect(fields).to.deep.equal([['title', 'required']]);
  });

  it('does not require missing fields on update', () => {
    expect(errorsOf('authors', {}, UPDATE)).to.deep.equal([]);
  });

  it('refuses null in a non-nullable or required field with "nnull"', () => {
    expect(errorsOf('articles', { title: null })).to.deep.equal([
      {
        code: 'FAILED_VALIDATION',
        message: 'Validation failed for field "title". Value can\'t be null.',
        extensions: { field: 'title', type: 'nnull' },
      },
    ]);
    expect(errorsOf('authors', { name: null }).map((e) => e.extensions['type'])).to.deep.equal(['nnull']);
    expect(errorsOf('things', { count: null })).to.deep.equal([]);
  });

  it('refuses an empty string in a required field', () => {
    expect(errorsOf('authors', { name: '' }).map((e) => e.extensions)).to.deep.equal([
      { field: 'name', type: 'nempty' },
    ]);
  });

  it('refuses a string longer than the column with VALUE_TOO_LONG, counting characters not bytes', () => {
    expect(errorsOf('articles', { title: 'x'.repeat(21) })).to.deep.equal([
      {
        code: 'VALUE_TOO_LONG',
        message: 'Value for field "title" in collection "articles" is too long.',
        extensions: { collection: 'articles', field: 'title' },
      },
    ]);
    expect(errorsOf('articles', { title: '€'.repeat(20) })).to.deep.equal([]);
  });

  describe('numeric range (VALUE_OUT_OF_RANGE) by column type', () => {
    const outside: [string, unknown][] = [
      ['small', 32768],
      ['small', -32769],
      ['count', 2147483648],
      ['count', '-2147483649'],
      ['big', '9223372036854775808'],
      ['unsigned', -1],
      ['unsigned', 4294967296],
      ['price', 1000],
      ['price', '999.996'],
      // A float field is a 4-byte float: PostgreSQL and MariaDB refuse what it cannot hold, SQLite agrees.
      ['ratio', 1e308],
      ['ratio', '-1e39'],
      ['ratio', 1e-50],
    ];
    for (const [name, value] of outside) {
      it(`${name} = ${JSON.stringify(value)} is out of range`, () => {
        expect(errorsOf('things', { [name]: value })).to.deep.equal([
          {
            code: 'VALUE_OUT_OF_RANGE',
            message: `Numeric value for field "${name}" in collection "things" is out of range.`,
            extensions: { collection: 'things', field: name },
          },
        ]);
      });
    }
    const inside: [string, unknown][] = [
      ['small', 32767],
      ['count', -2147483648],
      ['big', '-9223372036854775808'],
      ['unsigned', 4294967295],
      ['price', -999.99],
      ['ratio', 3.4e38],
      ['ratio', -1e-40],
      ['ratio', 0],
    ];
    for (const [name, value] of inside) {
      it(`${name} = ${JSON.stringify(value)} is inside`, () => {
        expect(errorsOf('things', { [name]: value })).to.deep.equal([]);
      });
    }
  });

  it('accepts the last day of a month, a leap day and the last second of a day', () => {
    expect(
      errorsOf('things', {
        day: '2024-02-29',
        local: '2024-12-31T23:59:59.999',
        at: '2000-02-29 00:00',
        clock: '23:59:59',
      }),
    ).to.deep.equal([]);
  });

  it("applies the field's validation filter with the reference's extensions", () => {
    expect(errorsOf('articles', { code: 'X1' })).to.deep.equal([
      {
        code: 'FAILED_VALIDATION',
        message: 'Validation failed for field "code".',
        extensions: { field: 'code', type: 'starts_with', substring: 'C' },
      },
    ]);
    expect(errorsOf('articles', { status: 'gone' })).to.deep.equal([
      {
        code: 'FAILED_VALIDATION',
        message: 'Validation failed for field "status". Value has to be one of "draft", "published".',
        extensions: { field: 'status', type: 'in', valid: ['draft', 'published'] },
      },
    ]);
    expect(errorsOf('articles', { code: 'C1', status: 'published' })).to.deep.equal([]);
  });

  it('uses meta.validation_message in place of the message', () => {
    expect(errorsOf('things', { nickname: 'ABC' })).to.deep.equal([
      { code: 'FAILED_VALIDATION', message: 'Nickname is wrong.', extensions: { field: 'nickname', type: 'regex' } },
    ]);
  });

  it('reports every failing field at once', () => {
    const reported = errorsOf('articles', { title: null, views: 'many', code: 'X' });
    expect(reported.map((e) => [e.extensions['field'], e.extensions['type']])).to.deep.equal([
      ['title', 'nnull'],
      ['views', 'type'],
      ['code', 'starts_with'],
    ]);
  });

  it('refuses an unknown field with INVALID_PAYLOAD naming it', () => {
    expect(errorsOf('articles', { nope: 1 })).to.deep.equal([
      {
        code: 'INVALID_PAYLOAD',
        message: 'Invalid payload. Field "nope" doesn\'t exist in collection "articles".',
        extensions: { reason: 'Field "nope" doesn\'t exist in collection "articles"' },
      },
    ]);
  });

  it('leaves nested items of relational fields to the nested write', () => {
    expect(errorsOf('articles', { author: { name: null }, comments: [{ text: 1 }], sections: 'x' })).to.deep.equal([]);
    expect(errorsOf('articles', { author: 'abc' }).map((e) => e.extensions)).to.deep.equal([
      { field: 'author', type: 'type' },
    ]);
  });
});
