import { expect } from 'chai';
import { translateSchemaError } from '../../../catalog/ddl/schema-errors.js';
import { ContainsNullValuesError, ServiceError } from '../../../src/errors.js';

const changed = { collection: 'lamps', field: 'body', type: 'text' } as const;

/** The code and extensions a driver error of a schema change comes out as. */
function translated(error: unknown, dialect: 'pg' | 'mysql' | 'sqlite3'): unknown {
  const result = translateSchemaError(error, dialect, changed);
  return result instanceof ServiceError ? [result.code, result.extensions] : result;
}

describe('translateSchemaError', () => {
  it('MySQL 8: a key over TEXT without a prefix length is a clear INVALID_PAYLOAD', () => {
    const error = {
      errno: 1170,
      code: 'ER_BLOB_KEY_WITHOUT_LENGTH',
      message: "BLOB/TEXT column 'body' used in key specification without a key length",
    };
    expect(translated(error, 'mysql')).to.deep.equal([
      'INVALID_PAYLOAD',
      { reason: 'Field "body" of collection "lamps" of type "text" can\'t be unique or indexed' },
    ]);
  });

  it('names the changed field in constraint errors that do not, and in conversion errors', () => {
    expect(translated({ code: '23505', detail: 'Key (body)=(a) is duplicated.' }, 'pg')).to.deep.equal([
      'RECORD_NOT_UNIQUE',
      { collection: 'lamps', field: 'body' },
    ]);
    expect(translated({ errno: 1062, sqlMessage: "Duplicate entry 'a' for key 'x'" }, 'mysql')).to.deep.equal([
      'RECORD_NOT_UNIQUE',
      { collection: 'lamps', field: 'body' },
    ]);
    // PostgreSQL has no cast between some types at all (cannot_coerce: json to integer).
    expect(translated({ code: '42846', message: 'cannot cast type json to integer' }, 'pg')).to.deep.equal([
      'INVALID_PAYLOAD',
      { reason: 'Field "body" of collection "lamps" can\'t be altered to "text": a stored value can\'t be converted' },
    ]);
    expect(translated({ code: '22P02' }, 'pg')).to.deep.equal([
      'INVALID_PAYLOAD',
      { reason: 'Field "body" of collection "lamps" can\'t be altered to "text": a stored value can\'t be converted' },
    ]);
  });

  it("MariaDB's refusal of a default (ER_INVALID_DEFAULT) is INVALID_PAYLOAD naming the field, never a 500", () => {
    const error = { errno: 1067, code: 'ER_INVALID_DEFAULT', sqlMessage: "Invalid default value for 'body'" };
    expect(translated(error, 'mysql')).to.deep.equal([
      'INVALID_PAYLOAD',
      { reason: 'The default value of field "body" of collection "lamps" is not a value of type "text"' },
    ]);
  });

  it("MariaDB's size refusals (precision, scale, length, row size) are INVALID_PAYLOAD naming the field, never a 500", () => {
    const reason =
      'Field "body" of collection "lamps" of type "text" is larger than the database takes (its length, precision or scale, or the table\'s row size with it)';
    for (const [errno, code] of [
      [1426, 'ER_TOO_BIG_PRECISION'],
      [1425, 'ER_TOO_BIG_SCALE'],
      [1074, 'ER_TOO_BIG_FIELDLENGTH'],
      [1118, 'ER_TOO_BIG_ROWSIZE'],
      [1427, 'ER_M_BIGGER_THAN_D'],
    ] as const) {
      expect(translated({ errno, code, sqlMessage: 'too big' }, 'mysql'), code).to.deep.equal([
        'INVALID_PAYLOAD',
        { reason },
      ]);
    }
  });

  it('leaves service errors and unknown database errors as they are', () => {
    const own = new ContainsNullValuesError({ collection: 'lamps', field: 'body' });
    expect(translateSchemaError(own, 'pg', changed)).to.equal(own);
    const unknown = { code: '42P01' };
    expect(translateSchemaError(unknown, 'pg', changed)).to.equal(unknown);
    expect(translateSchemaError(unknown, 'mysql', changed)).to.equal(unknown);
  });
});
