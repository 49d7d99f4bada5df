import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
} from 'graphql';
import type { GraphQLInputType, GraphQLOutputType, GraphQLScalarType } from 'graphql';
import type { CollectionOverview, FieldOverview, FieldType } from '../../catalog/overview/types.js';
import { GraphQLBigInt, GraphQLDate, GraphQLHash, GraphQLJSON } from './scalars.js';

/** A column's output type; the primary key is `ID!` (a singleton's may be null: no row yet). */
export function outputType(field: FieldOverview, collection: CollectionOverview): GraphQLOutputType {
  if (field.isPrimaryKey) return collection.singleton ? GraphQLID : new GraphQLNonNull(GraphQLID);
  return scalarOutput(field.type);
}

/** The scalar of a field type; usable as input and output. */
function fieldScalar(type: FieldType): GraphQLScalarType | GraphQLList<GraphQLScalarType> {
  switch (type) {
    case 'integer':
      return GraphQLInt;
    case 'bigInteger':
      return GraphQLBigInt;
    case 'float':
    case 'decimal':
      return GraphQLFloat;
    case 'boolean':
      return GraphQLBoolean;
    case 'date':
    case 'dateTime':
    case 'timestamp':
    case 'time':
      return GraphQLDate;
    case 'json':
    case 'unknown':
      return GraphQLJSON;
    case 'csv':
      return new GraphQLList(GraphQLString);
    case 'string':
    case 'text':
    case 'uuid':
    case 'hash':
    case 'binary':
    case 'geometry':
    case 'alias':
      return GraphQLString;
  }
}

/** The output scalar of a field type: hash fields read as their masked string. */
export function scalarOutput(type: FieldType): GraphQLOutputType {
  return fieldScalar(type);
}

/** The input scalar of a field type: hash fields take the Hash scalar. */
export function inputScalar(type: FieldType): GraphQLInputType {
  return type === 'hash' ? GraphQLHash : fieldScalar(type);
}

/** Specials whose value the write side fills (commands/special-fields.ts): never required. */
const FILLED_SPECIALS: readonly string[] = [
  'uuid',
  'date-created',
  'date-updated',
  'user-created',
  'user-updated',
  'role-created',
];

/** A column a created item must name: not nullable, no default, not filled by the database or the service. */
export function isRequiredColumn(field: FieldOverview): boolean {
  if (field.nullable || field.defaultValue !== null || field.isGenerated) return false;
  return !field.special.some((s) => FILLED_SPECIALS.includes(s));
}
