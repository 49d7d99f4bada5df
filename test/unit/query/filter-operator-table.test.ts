import { expect } from 'chai';
import { isInputObjectType, type GraphQLInputObjectType } from 'graphql';
import {
  FILTER_OPERATORS,
  OPERATOR_FAMILY_OF_TYPE,
  OPERATORS_BY_TYPE,
  operatorSpec,
  operatorsOfFamily,
  type FilterOperator,
} from '../../../catalog/overview/filter-operators.js';
import type { FieldType, SchemaOverview } from '../../../catalog/overview/types.js';
import { FULL_READ_ACCESS } from '../../../src/access/read-access.js';
import { validateFilter } from '../../../src/access/validate-filter.js';
import { databaseDialect } from '../../../src/db/dialects/index.js';
import { InvalidQueryError } from '../../../src/errors.js';
import { buildSchemas, fullSchemaAccess } from '../../../src/graphql/index.js';
import { operatorsOf } from '../../../src/graphql/shared-types.js';
import { buildReadAst } from '../../../src/query/ast/build-read-ast.js';
import { compileRead } from '../../../src/query/compile/compile-read.js';
import { OPERATOR_CONDITIONS, VALIDATION_ONLY } from '../../../src/query/compile/operator-conditions.js';
import { parseQuery } from '../../../src/query/parse/parse-query.js';
import { testBuildContext } from './build-context.js';
import { collection, field, FIXTURE_OVERVIEW } from './fixture-overview.js';

/**
 * The operator table (catalog/overview/filter-operators.ts) against its readers: every operator
 * a field type offers compiles on every dialect and is offered by that type's GraphQL input.
 */

const COLUMN_TYPES = Object.keys(OPERATOR_FAMILY_OF_TYPE).filter((t) => t !== 'alias') as FieldType[];
const column = (type: FieldType) => `c_${type}`;

/** One column of every type but alias (alias keys without a relation are not filterable). */
const OVERVIEW: SchemaOverview = {
  ...FIXTURE_OVERVIEW,
  collections: {
    ...FIXTURE_OVERVIEW.collections,
    every_type: collection('every_type', [
      field('id', 'integer', { isPrimaryKey: true, isGenerated: true, nullable: false }),
      ...COLUMN_TYPES.map((type) => field(column(type), type)),
    ]),
  },
};

const DIALECTS = ['pg', 'mysql', 'sqlite3'] as const;
type DialectName = (typeof DIALECTS)[number];

function sample(type: FieldType): unknown {
  switch (type) {
    case 'uuid':
      return '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
    case 'integer':
    case 'bigInteger':
      return 1;
    case 'float':
    case 'decimal':
      return '1.5';
    case 'date':
      return '2024-01-15';
    case 'dateTime':
    case 'timestamp':
      return '2024-01-15T10:00:00';
    case 'time':
      return '08:00';
    case 'boolean':
      return true;
    default:
      return 'a';
  }
}

const GEOJSON = { type: 'Point', coordinates: [1, 2] };

function valueFor(op: FilterOperator, type: FieldType): unknown {
  switch (operatorSpec(op).shape) {
    case 'list':
    case 'pair':
      return [sample(type), sample(type)];
    case 'flag':
      return true;
    case 'geometry':
      return GEOJSON;
    default:
      return sample(type);
  }
}

function compile(dialect: DialectName, collectionName: string, filter: Record<string, unknown>) {
  const ast = buildReadAst(
    testBuildContext({ overview: OVERVIEW }),
    collectionName,
    parseQuery({ fields: 'id', filter }),
  );
  return compileRead(databaseDialect(dialect), ast);
}

describe('filter operator table', () => {
  it('every operator has a compiler, and only validation operators have none', () => {
    expect(Object.keys(OPERATOR_CONDITIONS)).to.have.members([...FILTER_OPERATORS]);
    const validationOnly = FILTER_OPERATORS.filter((op) => OPERATOR_CONDITIONS[op] === VALIDATION_ONLY);
    expect(validationOnly).to.have.members(['_regex', '_submitted']);
  });

  it('each negated operator tests what its positive one tests, with the same value shape', () => {
    for (const op of FILTER_OPERATORS) {
      const spec = operatorSpec(op);
      if (!spec.negated) continue;
      const positive = FILTER_OPERATORS.find((other) => {
        const o = operatorSpec(other);
        return !o.negated && o.test === spec.test && o.caseInsensitive === spec.caseInsensitive;
      });
      expect(positive, `${op} has a positive operator`).to.not.equal(undefined);
      if (positive !== undefined) expect(operatorSpec(positive).shape, op).to.equal(spec.shape);
    }
  });

  for (const dialect of DIALECTS) {
    it(`every operator a column type offers compiles on ${dialect}, negations differently`, () => {
      for (const type of COLUMN_TYPES) {
        const base = compile(dialect, 'every_type', {}).sql;
        for (const op of OPERATORS_BY_TYPE[type]) {
          const filter = { [column(type)]: { [op]: valueFor(op, type) } };
          const where = `${op} on ${type}`;
          if (dialect === 'sqlite3' && operatorSpec(op).shape === 'geometry') {
            // A documented 400 (the query compiler's README): SQLite has no geometry functions.
            expect(() => compile(dialect, 'every_type', filter), where).to.throw(InvalidQueryError);
            continue;
          }
          const compiled = compile(dialect, 'every_type', filter);
          expect(compiled.sql, where).to.not.equal(base);
          expect(compiled.sql.split('?').length - 1, where).to.equal(compiled.values.length);
          const spec = operatorSpec(op);
          const positive = [...OPERATORS_BY_TYPE[type]].find((other) => {
            const o = operatorSpec(other);
            return spec.negated && !o.negated && o.test === spec.test && o.caseInsensitive === spec.caseInsensitive;
          });
          if (positive !== undefined) {
            const plain = compile(dialect, 'every_type', { [column(type)]: { [positive]: valueFor(positive, type) } });
            expect(compiled.sql, where).to.not.equal(plain.sql);
          }
        }
      }
    });

    it(`the quantifiers compile on ${dialect} (o2m: some / no related row matches)`, () => {
      const some = compile(dialect, 'articles', { comments: { _some: { text: { _eq: 'a' } } } }).sql;
      const none = compile(dialect, 'articles', { comments: { _none: { text: { _eq: 'a' } } } }).sql;
      expect(some).to.match(/exists \(select 1 from/);
      expect(none).to.match(/not exists \(select 1 from/);
      expect(some).to.not.match(/not exists/);
    });
  }

  it('operators no type offers are refused by every column type with 400 (never 500)', () => {
    for (const op of FILTER_OPERATORS) {
      if (operatorSpec(op).families.length > 0) continue;
      for (const type of COLUMN_TYPES) {
        expect(() => compile('pg', 'every_type', { [column(type)]: { [op]: 'x' } }), `${op} on ${type}`).to.throw(
          InvalidQueryError,
          'filter operator',
        );
      }
    }
  });

  it('validation filters read the table: _regex and _submitted are checked there', () => {
    const variables = { now: new Date(0), user: null, role: null };
    expect(validateFilter({ code: { _regex: '^[a-z]+$' } }, { code: 'ab1' }, variables)).to.have.length(1);
    expect(validateFilter({ code: { _regex: '^[a-z]+$' } }, { code: 'ab' }, variables)).to.have.length(0);
    expect(validateFilter({ code: { _submitted: true } }, {}, variables)).to.have.length(1);
    expect(validateFilter({ code: { _nistarts_with: 'AB' } }, { code: 'abc' }, variables)).to.have.length(1);
    expect(validateFilter({ code: { _nistarts_with: 'AB' } }, { code: 'cab' }, variables)).to.have.length(0);
  });

  it('the GraphQL input of each column type offers every operator the type offers, typed by its shape', () => {
    const schema = buildSchemas(OVERVIEW, fullSchemaAccess(FULL_READ_ACCESS)).items;
    const filterType = schema.getType('every_type_filter');
    if (!isInputObjectType(filterType)) throw new Error('every_type_filter is an input type');
    for (const type of COLUMN_TYPES) {
      const input = filterType.getFields()[column(type)]?.type as GraphQLInputObjectType;
      expect(input, type).to.equal(operatorsOf(type));
      const offered = Object.keys(input.getFields());
      const allowed = [...OPERATORS_BY_TYPE[type]];
      if (type === 'unknown') {
        // Unknown columns share the string input (as Directus 10): their ordering operators are REST only.
        expect(allowed.filter((op) => !offered.includes(op))).to.have.members([
          '_gt',
          '_gte',
          '_lt',
          '_lte',
          '_between',
          '_nbetween',
        ]);
        continue;
      }
      expect(offered, type).to.include.members(allowed);
      for (const op of offered) {
        const shape = operatorSpec(op as FilterOperator).shape;
        const typeName = String(input.getFields()[op]?.type);
        if (shape === 'flag') expect(typeName, `${type}.${op}`).to.equal('Boolean');
        if (shape === 'list' || shape === 'pair') expect(typeName, `${type}.${op}`).to.match(/^\[.+\]$/);
      }
    }
  });

  it('each GraphQL operator input offers exactly its family, in table order', () => {
    for (const type of COLUMN_TYPES) {
      const family = OPERATOR_FAMILY_OF_TYPE[type];
      if (family === 'uuid' || family === 'json' || family === 'untyped') continue; // the string input
      expect(Object.keys(operatorsOf(type).getFields()), type).to.deep.equal(operatorsOfFamily(family));
    }
  });
});
