import { expect } from 'chai';
import { parseSqlDefault } from '../../../catalog/introspection/defaults.js';
import type { RawColumn } from '../../../catalog/introspection/index.js';
import { castDefault, fieldTypeOf } from '../../../catalog/overview/field-type.js';

function column(dataType: string, extra: Partial<RawColumn> = {}): RawColumn {
  return {
    name: 'c',
    dataType,
    columnType: dataType,
    defaultRaw: null,
    isNullable: true,
    maxLength: null,
    numericPrecision: null,
    numericScale: null,
    isUnique: false,
    isIndexed: false,
    indexNames: [],
    uniqueKeys: [],
    hasAutoIncrement: false,
    isGenerated: false,
    generationExpression: null,
    hasJsonCheck: false,
    comment: null,
    ...extra,
  };
}

describe('catalog field types', () => {
  const cases: [string, RawColumn, string][] = [
    ['pg boolean', column('boolean'), 'boolean'],
    ['MySQL tinyint(1) boolean', column('tinyint', { columnType: 'tinyint(1)' }), 'boolean'],
    ['MySQL plain tinyint', column('tinyint'), 'integer'],
    ['MariaDB json (longtext + json_valid)', column('longtext', { hasJsonCheck: true }), 'json'],
    ['longtext without check', column('longtext'), 'text'],
    ['pg jsonb', column('jsonb'), 'json'],
    ['char(36) is a uuid', column('char', { maxLength: 36 }), 'uuid'],
    ['char(10) is a string', column('char', { maxLength: 10 }), 'string'],
    ['pg timestamptz', column('timestamp with time zone'), 'timestamp'],
    ['pg timestamp without tz', column('timestamp without time zone'), 'dateTime'],
    ['SQLite datetime', column('datetime'), 'dateTime'],
    ['numeric', column('numeric', { numericPrecision: 10, numericScale: 2 }), 'decimal'],
    ['double precision', column('double precision'), 'float'],
    ['bigint', column('bigint'), 'bigInteger'],
    ['bytea', column('bytea'), 'binary'],
    ['SQLite free-form INT type', column('unsigned big int'), 'integer'],
    ['unknown array type', column('text[]'), 'unknown'],
  ];
  for (const [name, raw, type] of cases) {
    it(`${name} → ${type}`, () => {
      expect(fieldTypeOf(raw, [])).to.equal(type);
    });
  }

  it('specials fix the type whatever the column', () => {
    expect(fieldTypeOf(column('text'), ['cast-csv'])).to.equal('csv');
    expect(fieldTypeOf(column('varchar'), ['hash', 'conceal'])).to.equal('hash');
    expect(fieldTypeOf(column('text'), ['cast-json'])).to.equal('json');
  });
});

describe('catalog column defaults', () => {
  it('parses SQL literals and now-expressions', () => {
    expect(parseSqlDefault("'it''s'")).to.equal("it's");
    expect(parseSqlDefault('NULL')).to.equal(null);
    expect(parseSqlDefault('(-1)')).to.equal(-1);
    expect(parseSqlDefault('1.5')).to.equal(1.5);
    expect(parseSqlDefault('true')).to.equal(true);
    expect(parseSqlDefault('CURRENT_TIMESTAMP')).to.deep.equal({ fn: 'now' });
    expect(parseSqlDefault('current_timestamp()')).to.deep.equal({ fn: 'now' });
    expect(parseSqlDefault('now()')).to.deep.equal({ fn: 'now' });
    expect(parseSqlDefault('gen_random_uuid()')).to.deep.equal({ fn: 'expression', sql: 'gen_random_uuid()' });
  });

  it('casts literals to the field type', () => {
    expect(castDefault('0', 'boolean')).to.equal(false);
    expect(castDefault(1, 'boolean')).to.equal(true);
    expect(castDefault('42', 'integer')).to.equal(42);
    expect(castDefault(12, 'bigInteger')).to.equal('12');
    expect(castDefault(1.5, 'decimal')).to.equal('1.5');
    expect(castDefault('{"a":1}', 'json')).to.deep.equal({ a: 1 });
    expect(castDefault(123, 'string')).to.equal('123');
    expect(castDefault({ fn: 'now' }, 'timestamp')).to.deep.equal({ fn: 'now' });
  });
});
