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
import { dateFunctionsOf } from '../query/index.js';
import { GraphQLBigInt, GraphQLJSON, GraphQLStringOrFloat } from './scalars.js';

/**
 * The types every schema shares: filter operator inputs ("Filter
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
const NUMBER_FILTER_OPERATORS = operatorInput('number_filter_operators', 'number', GraphQLStringOrFloat);
const BIG_INT_FILTER_OPERATORS = operatorInput('big_int_filter_operators', 'number', GraphQLBigInt);
const DATE_FILTER_OPERATORS = operatorInput('date_filter_operators', 'temporal', GraphQLString, GraphQLStringOrFloat);
const BOOLEAN_FILTER_OPERATORS = operatorInput('boolean_filter_operators', 'boolean', GraphQLBoolean);
const HASH_FILTER_OPERATORS = operatorInput('hash_filter_operators', 'hash', GraphQLString);
const GEOMETRY_FILTER_OPERATORS = operatorInput('geometry_filter_operators', 'geometry', GraphQLJSON);

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

const COUNT_FUNCTIONS = ['count'] as const;

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

/** What a field's `F_func` offers: the values of its functions, and their filter operators. */
export interface FunctionTypes {
  readonly output: GraphQLObjectType;
  readonly filter: GraphQLInputObjectType;
}

function functionTypes(kind: string, functions: readonly string[]): FunctionTypes {
  return {
    output: functionObject(`${kind}_functions`, functions),
    filter: new GraphQLInputObjectType({
      name: `${kind}_function_filter_operators`,
      fields: keys(functions, NUMBER_FILTER_OPERATORS),
    }),
  };
}

/**
 * Directus 10's function types: a date has year … weekday, a time hour … second, a date-time
 * all eight (the query compiler's rule, dateFunctionsOf), json, csv and lists `count`.
 */
const FUNCTION_TYPES = {
  date: functionTypes('date', dateFunctionsOf('date')),
  time: functionTypes('time', dateFunctionsOf('time')),
  datetime: functionTypes('datetime', dateFunctionsOf('dateTime')),
  count: functionTypes('count', COUNT_FUNCTIONS),
};

/** `count(list)`: what a one-to-many or many-to-many field's `F_func` offers. */
export const COUNT_FUNCTION_TYPES: FunctionTypes = FUNCTION_TYPES.count;

/** The `F_func` of a column of `type`, if its type has functions. */
export function functionTypesOf(type: FieldType): FunctionTypes | undefined {
  switch (type) {
    case 'date':
    case 'time':
      return FUNCTION_TYPES[type];
    case 'dateTime':
    case 'timestamp':
      return FUNCTION_TYPES.datetime;
    case 'json':
    case 'csv':
      return FUNCTION_TYPES.count;
    default:
      return undefined;
  }
}

export const DELETE_ONE = new GraphQLObjectType({
  name: 'delete_one',
  fields: { id: { type: new GraphQLNonNull(GraphQLID) } },
});
export const DELETE_MANY = new GraphQLObjectType({
  name: 'delete_many',
  fields: { ids: { type: new GraphQLNonNull(new GraphQLList(GraphQLID)) } },
});
