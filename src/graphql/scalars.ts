import { GraphQLError, GraphQLScalarType, Kind, valueFromASTUntyped, type ValueNode } from 'graphql';

/**
 * The custom scalars of the field types, as in Directus 10. Values
 * arrive already shaped by the read side (ISO strings, bigints as strings), so output
 * serialisation passes them through; inputs are checked only as far as the type promises,
 * the write and read sides validate the rest.
 */

export const GraphQLJSON = new GraphQLScalarType({
  name: 'JSON',
  description:
    'The `JSON` scalar type represents JSON values as specified by [ECMA-404](http://www.ecma-international.org/publications/files/ECMA-ST/ECMA-404.pdf).',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
});

export const GraphQLDate = new GraphQLScalarType({
  name: 'Date',
  description: 'ISO8601 Date values',
  serialize: (value) => (value instanceof Date ? value.toISOString() : value),
  parseValue: (value) => requireString(value, 'Date'),
  parseLiteral: (ast) => requireString(literalString(ast), 'Date'),
});

const INTEGER_TEXT = /^-?\d+$/;

/** Integers beyond 2^53 as strings (`"9007199254740993"`), smaller ones as given. */
export const GraphQLBigInt = new GraphQLScalarType({
  name: 'GraphQLBigInt',
  description: 'BigInt value',
  serialize: (value) => (typeof value === 'bigint' ? value.toString() : value),
  parseValue: (value) => requireBigInt(value),
  parseLiteral: (ast) => {
    if (ast.kind === Kind.INT || ast.kind === Kind.STRING)
      return requireBigInt(ast.kind === Kind.INT ? Number(ast.value) : ast.value);
    throw new GraphQLError('GraphQLBigInt cannot represent a non-integer value', { nodes: ast });
  },
});

/** Number filters: a number, or a string (`$NOW`, dynamic variables, big numbers). */
export const GraphQLStringOrFloat = new GraphQLScalarType({
  name: 'GraphQLStringOrFloat',
  description: 'A Float or a String',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return value;
    throw new GraphQLError('GraphQLStringOrFloat cannot represent this value');
  },
  parseLiteral: (ast) => {
    switch (ast.kind) {
      case Kind.STRING:
        return ast.value;
      case Kind.INT:
      case Kind.FLOAT:
        return Number(ast.value);
      default:
        throw new GraphQLError('GraphQLStringOrFloat cannot represent this value', { nodes: ast });
    }
  },
});

export const GraphQLHash = new GraphQLScalarType({
  name: 'Hash',
  description: 'Hashed string values',
  serialize: (value) => value,
  parseValue: (value) => requireString(value, 'Hash'),
  parseLiteral: (ast) => requireString(literalString(ast), 'Hash'),
});

/** Results without a value (`utils_cache_clear`, the empty Query type's `_empty`). */
export const GraphQLVoid = new GraphQLScalarType({
  name: 'Void',
  description: 'Represents NULL values',
  serialize: () => null,
  parseValue: () => null,
  parseLiteral: () => null,
});

function literalString(ast: ValueNode): unknown {
  return ast.kind === Kind.STRING ? ast.value : undefined;
}

function requireString(value: unknown, scalar: string): string {
  if (typeof value !== 'string') throw new GraphQLError(`${scalar} cannot represent a non-string value`);
  return value;
}

function requireBigInt(value: unknown): string | number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && INTEGER_TEXT.test(value.trim())) return value.trim();
  throw new GraphQLError('GraphQLBigInt cannot represent a non-integer value');
}
