import {
  GraphQLBoolean,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
} from 'graphql';
import {
  OPERATOR_FAMILY_OF_TYPE,
  operatorSpec,
  operatorsOfFamily,
  operatorsOfShape,
  type FilterOperator,
  type OperatorFamily,
  type OperatorShape,
} from '../../catalog/overview/filter-operators.js';
import type { FieldType } from '../../catalog/overview/types.js';
import { assertNever } from '../errors.js';
import { GraphQLBigInt, GraphQLJSON, GraphQLStringOrFloat } from './scalars.js';

/**
 * The types every schema shares (reference/graphql.md): filter operator inputs ("Filter
 * inputs"), function types ("Function fields") and the delete results. Type objects carry no
 * schema, so one instance serves every role's schema.
 */

function keys(names: readonly string[], type: GraphQLInputType): GraphQLInputFieldConfigMap {
  return Object.fromEntries(names.map((name) => [name, { type }]));
}

const list = (type: GraphQLInputType) => new GraphQLList(type);

/**
 * An operator input: the operators of `family` in the table (catalog/overview/filter-operators.ts),
 * each typed by its value shape: `scalar` values as `scalar`, lists and pairs as lists (pairs of
 * `pairScalar`), flags as Boolean, GeoJSON as JSON.
 */
function operatorInput(
  name: string,
  family: OperatorFamily,
  scalar: GraphQLInputType,
  pairScalar: GraphQLInputType = scalar,
): GraphQLInputObjectType {
  const typeOf = (shape: OperatorShape): GraphQLInputType => {
    switch (shape) {
      case 'scalar':
        return scalar;
      case 'list':
        return list(scalar);
      case 'pair':
        return list(pairScalar);
      case 'flag':
        return GraphQLBoolean;
      case 'geometry':
        return GraphQLJSON;
      case 'pattern':
      case 'presence':
      case 'quantifier':
        // No field type offers these; a family that did would need a GraphQL type for them here.
        throw new Error(`no GraphQL operator input for "${shape}" values`);
      default:
        return assertNever(shape);
    }
  };
  return new GraphQLInputObjectType({
    name,
    fields: Object.fromEntries(operatorsOfFamily(family).map((op) => [op, { type: typeOf(operatorSpec(op).shape) }])),
  });
}

export const STRING_FILTER_OPERATORS = operatorInput('string_filter_operators', 'text', GraphQLString);
export const NUMBER_FILTER_OPERATORS = operatorInput('number_filter_operators', 'number', GraphQLStringOrFloat);
export const BIG_INT_FILTER_OPERATORS = operatorInput('big_int_filter_operators', 'number', GraphQLBigInt);
export const DATE_FILTER_OPERATORS = operatorInput(
  'date_filter_operators',
  'temporal',
  GraphQLString,
  GraphQLStringOrFloat,
);
export const BOOLEAN_FILTER_OPERATORS = operatorInput('boolean_filter_operators', 'boolean', GraphQLBoolean);
export const HASH_FILTER_OPERATORS = operatorInput('hash_filter_operators', 'hash', GraphQLString);
export const GEOMETRY_FILTER_OPERATORS = operatorInput('geometry_filter_operators', 'geometry', GraphQLJSON);

/**
 * The operator input of each family (Directus 10's input names). uuid, json and untyped columns
 * share the string input: it offers every operator their families have, but untyped columns'
 * `_lt`... `_between` (REST only, as in Directus 10).
 */
const INPUT_OF_FAMILY: Readonly<Record<OperatorFamily, GraphQLInputObjectType>> = {
  text: STRING_FILTER_OPERATORS,
  uuid: STRING_FILTER_OPERATORS,
  json: STRING_FILTER_OPERATORS,
  untyped: STRING_FILTER_OPERATORS,
  number: NUMBER_FILTER_OPERATORS,
  temporal: DATE_FILTER_OPERATORS,
  boolean: BOOLEAN_FILTER_OPERATORS,
  hash: HASH_FILTER_OPERATORS,
  geometry: GEOMETRY_FILTER_OPERATORS,
};

/** The operator input of a field type: its family's, big integers apart (BigInt values). */
export function operatorsOf(type: FieldType): GraphQLInputObjectType {
  return type === 'bigInteger' ? BIG_INT_FILTER_OPERATORS : INPUT_OF_FAMILY[OPERATOR_FAMILY_OF_TYPE[type]];
}

/** `_some` / `_none`: the quantifiers a collection filter offers on collections with a one-to-many side. */
export const FILTER_QUANTIFIERS: readonly FilterOperator[] = operatorsOfShape('quantifier');

/** `year(F)` … `second(F)`: the date parts a `F_func` field offers. */
export const DATETIME_FUNCTIONS = ['year', 'month', 'week', 'day', 'weekday', 'hour', 'minute', 'second'] as const;
export const COUNT_FUNCTIONS = ['count'] as const;

/** Function values are read by function name, whatever the response key. */
function functionObject(name: string, functions: readonly string[]): GraphQLObjectType {
  return new GraphQLObjectType({
    name,
    fields: Object.fromEntries(
      functions.map((fn) => [
        fn,
        { type: GraphQLInt, resolve: (values: Readonly<Record<string, unknown>>) => values[fn] },
      ]),
    ),
  });
}

export const DATETIME_FUNCTIONS_TYPE = functionObject('datetime_functions', DATETIME_FUNCTIONS);
export const COUNT_FUNCTIONS_TYPE = functionObject('count_functions', COUNT_FUNCTIONS);

export const DATETIME_FUNCTION_FILTER_OPERATORS = new GraphQLInputObjectType({
  name: 'datetime_function_filter_operators',
  fields: keys(DATETIME_FUNCTIONS, NUMBER_FILTER_OPERATORS),
});

export const COUNT_FUNCTION_FILTER_OPERATORS = new GraphQLInputObjectType({
  name: 'count_function_filter_operators',
  fields: keys(COUNT_FUNCTIONS, NUMBER_FILTER_OPERATORS),
});

const TEMPORAL_TYPES: ReadonlySet<FieldType> = new Set(['date', 'dateTime', 'timestamp']);

/**
 * Which `F_func` a field has: date parts for date/dateTime/timestamp, `count` for json, csv
 * and one-to-many aliases (o2m, m2m, m2a); none otherwise.
 */
export function functionsOf(type: FieldType, isList: boolean): 'datetime' | 'count' | undefined {
  if (TEMPORAL_TYPES.has(type)) return 'datetime';
  if (type === 'json' || type === 'csv' || isList) return 'count';
  return undefined;
}

export const DELETE_ONE = new GraphQLObjectType({
  name: 'delete_one',
  fields: { id: { type: new GraphQLNonNull(GraphQLID) } },
});
export const DELETE_MANY = new GraphQLObjectType({
  name: 'delete_many',
  fields: { ids: { type: new GraphQLNonNull(new GraphQLList(GraphQLID)) } },
});
