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
import type { FieldType } from '../../catalog/overview/types.js';
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
const NULL_CHECKS = ['_null', '_nnull'];
const EMPTY_CHECKS = ['_empty', '_nempty'];
const COMPARISONS = ['_eq', '_neq', '_gt', '_gte', '_lt', '_lte'];

export const STRING_FILTER_OPERATORS = new GraphQLInputObjectType({
  name: 'string_filter_operators',
  fields: {
    ...keys(
      [
        '_eq',
        '_neq',
        '_contains',
        '_icontains',
        '_ncontains',
        '_starts_with',
        '_nstarts_with',
        '_istarts_with',
        '_nistarts_with',
        '_ends_with',
        '_nends_with',
        '_iends_with',
        '_niends_with',
      ],
      GraphQLString,
    ),
    ...keys(['_in', '_nin'], list(GraphQLString)),
    ...keys([...NULL_CHECKS, ...EMPTY_CHECKS], GraphQLBoolean),
  },
});

function numericOperators(name: string, scalar: GraphQLInputType): GraphQLInputObjectType {
  return new GraphQLInputObjectType({
    name,
    fields: {
      ...keys(COMPARISONS, scalar),
      ...keys(['_in', '_nin', '_between', '_nbetween'], list(scalar)),
      ...keys(NULL_CHECKS, GraphQLBoolean),
    },
  });
}

export const NUMBER_FILTER_OPERATORS = numericOperators('number_filter_operators', GraphQLStringOrFloat);
export const BIG_INT_FILTER_OPERATORS = numericOperators('big_int_filter_operators', GraphQLBigInt);

export const DATE_FILTER_OPERATORS = new GraphQLInputObjectType({
  name: 'date_filter_operators',
  fields: {
    ...keys(COMPARISONS, GraphQLString),
    ...keys(['_in', '_nin'], list(GraphQLString)),
    ...keys(['_between', '_nbetween'], list(GraphQLStringOrFloat)),
    ...keys(NULL_CHECKS, GraphQLBoolean),
  },
});

export const BOOLEAN_FILTER_OPERATORS = new GraphQLInputObjectType({
  name: 'boolean_filter_operators',
  fields: { ...keys(['_eq', '_neq'], GraphQLBoolean), ...keys(NULL_CHECKS, GraphQLBoolean) },
});

export const HASH_FILTER_OPERATORS = new GraphQLInputObjectType({
  name: 'hash_filter_operators',
  fields: keys([...NULL_CHECKS, ...EMPTY_CHECKS], GraphQLBoolean),
});

export const GEOMETRY_FILTER_OPERATORS = new GraphQLInputObjectType({
  name: 'geometry_filter_operators',
  fields: {
    ...keys(['_eq', '_neq', '_intersects', '_nintersects', '_intersects_bbox', '_nintersects_bbox'], GraphQLJSON),
    ...keys(NULL_CHECKS, GraphQLBoolean),
  },
});

/** The operator input of a field type (uuid, string, text and json share the string one). */
export function operatorsOf(type: FieldType): GraphQLInputObjectType {
  switch (type) {
    case 'integer':
    case 'float':
    case 'decimal':
      return NUMBER_FILTER_OPERATORS;
    case 'bigInteger':
      return BIG_INT_FILTER_OPERATORS;
    case 'date':
    case 'dateTime':
    case 'timestamp':
    case 'time':
      return DATE_FILTER_OPERATORS;
    case 'boolean':
      return BOOLEAN_FILTER_OPERATORS;
    case 'hash':
      return HASH_FILTER_OPERATORS;
    case 'geometry':
      return GEOMETRY_FILTER_OPERATORS;
    case 'string':
    case 'text':
    case 'uuid':
    case 'json':
    case 'csv':
    case 'binary':
    case 'alias':
    case 'unknown':
      return STRING_FILTER_OPERATORS;
  }
}

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
