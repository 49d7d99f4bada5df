import type { FieldType } from './types.js';

/**
 * The one table of filter operators: per operator, the value it takes, the
 * field types it applies to and what it tests. Every reader derives from it: query validation
 * and the read AST (src/query), validation filters (src/access/validate-filter.ts), the GraphQL
 * filter inputs (src/graphql/shared-types.ts); how each compiles is the `Record<FilterOperator,
 * ...>` of src/query/compile/operator-conditions.ts. It lives here, beside `FieldType`, because
 * access/ sits below query/ and graphql/, and all three may import catalog/overview.
 */

/** What an operator takes as its value. */
export type OperatorShape =
  /** One value of the field's type (`"null"` allowed for `_eq`/`_neq`). */
  | 'scalar'
  /** A non-empty array or comma string. */
  | 'list'
  /** Exactly two values: low and high. */
  | 'pair'
  /** A boolean: true makes the test, false its opposite. */
  | 'flag'
  /** A GeoJSON object (or its text). */
  | 'geometry'
  /** A regular expression, `/pattern/flags` or bare (validation filters only). */
  | 'pattern'
  /** Whatever value: the field is in the payload (validation filters only). */
  | 'presence'
  /** A filter object on the related rows of a one-to-many field. */
  | 'quantifier';

/** Field types that accept the same operators (`OPERATOR_FAMILY_OF_TYPE`). */
export type OperatorFamily =
  | 'text'
  | 'uuid'
  | 'number'
  | 'temporal'
  | 'boolean'
  | 'json'
  | 'hash'
  | 'geometry'
  /** Aliases and columns of an unknown type: the operators that make sense on any value. */
  | 'untyped';

/** What an operator tests; a negated one (`_n…`, `_none`) makes the same test and inverts it. */
export type OperatorTest =
  | 'equal'
  | 'less'
  | 'lessOrEqual'
  | 'greater'
  | 'greaterOrEqual'
  | 'in'
  | 'between'
  | 'null'
  | 'empty'
  | 'contains'
  | 'startsWith'
  | 'endsWith'
  | 'intersects'
  | 'intersectsBbox'
  | 'regex'
  | 'submitted'
  | 'some';

export interface OperatorSpec {
  readonly shape: OperatorShape;
  readonly test: OperatorTest;
  readonly negated: boolean;
  readonly caseInsensitive: boolean;
  /** Empty: no field type offers it to queries (validation only, or relational). */
  readonly families: readonly OperatorFamily[];
}

const ALL: readonly OperatorFamily[] = [
  'text',
  'uuid',
  'number',
  'temporal',
  'boolean',
  'json',
  'hash',
  'geometry',
  'untyped',
];
const EQUALITY = ['text', 'uuid', 'number', 'temporal', 'boolean', 'geometry', 'untyped'] as const;
const ORDERED = ['number', 'temporal', 'untyped'] as const;
const LISTED = ['text', 'uuid', 'number', 'temporal', 'untyped'] as const;
const TEXT = ['text'] as const;
const GEOMETRY = ['geometry'] as const;
const NONE = [] as const;

const plain = { negated: false, caseInsensitive: false } as const;
const not = { negated: true, caseInsensitive: false } as const;
const i = { negated: false, caseInsensitive: true } as const;
const notI = { negated: true, caseInsensitive: true } as const;

/**
 * The order is the order of the GraphQL operator inputs' fields (Directus 10), so the derived
 * inputs list their fields as before.
 */
const FILTER_OPERATOR_TABLE = {
  _eq: { shape: 'scalar', test: 'equal', ...plain, families: EQUALITY },
  _neq: { shape: 'scalar', test: 'equal', ...not, families: EQUALITY },
  _gt: { shape: 'scalar', test: 'greater', ...plain, families: ORDERED },
  _gte: { shape: 'scalar', test: 'greaterOrEqual', ...plain, families: ORDERED },
  _lt: { shape: 'scalar', test: 'less', ...plain, families: ORDERED },
  _lte: { shape: 'scalar', test: 'lessOrEqual', ...plain, families: ORDERED },
  _contains: { shape: 'scalar', test: 'contains', ...plain, families: ['text', 'untyped'] },
  _icontains: { shape: 'scalar', test: 'contains', ...i, families: TEXT },
  _ncontains: { shape: 'scalar', test: 'contains', ...not, families: ['text', 'untyped'] },
  _starts_with: { shape: 'scalar', test: 'startsWith', ...plain, families: TEXT },
  _nstarts_with: { shape: 'scalar', test: 'startsWith', ...not, families: TEXT },
  _istarts_with: { shape: 'scalar', test: 'startsWith', ...i, families: TEXT },
  _nistarts_with: { shape: 'scalar', test: 'startsWith', ...notI, families: TEXT },
  _ends_with: { shape: 'scalar', test: 'endsWith', ...plain, families: TEXT },
  _nends_with: { shape: 'scalar', test: 'endsWith', ...not, families: TEXT },
  _iends_with: { shape: 'scalar', test: 'endsWith', ...i, families: TEXT },
  _niends_with: { shape: 'scalar', test: 'endsWith', ...notI, families: TEXT },
  _intersects: { shape: 'geometry', test: 'intersects', ...plain, families: GEOMETRY },
  _nintersects: { shape: 'geometry', test: 'intersects', ...not, families: GEOMETRY },
  _intersects_bbox: { shape: 'geometry', test: 'intersectsBbox', ...plain, families: GEOMETRY },
  _nintersects_bbox: { shape: 'geometry', test: 'intersectsBbox', ...not, families: GEOMETRY },
  _in: { shape: 'list', test: 'in', ...plain, families: LISTED },
  _nin: { shape: 'list', test: 'in', ...not, families: LISTED },
  _between: { shape: 'pair', test: 'between', ...plain, families: ORDERED },
  _nbetween: { shape: 'pair', test: 'between', ...not, families: ORDERED },
  _null: { shape: 'flag', test: 'null', ...plain, families: ALL },
  _nnull: { shape: 'flag', test: 'null', ...not, families: ALL },
  _empty: { shape: 'flag', test: 'empty', ...plain, families: ['text', 'hash', 'untyped'] },
  _nempty: { shape: 'flag', test: 'empty', ...not, families: ['text', 'hash', 'untyped'] },
  _regex: { shape: 'pattern', test: 'regex', ...plain, families: NONE },
  _submitted: { shape: 'presence', test: 'submitted', ...plain, families: NONE },
  _some: { shape: 'quantifier', test: 'some', ...plain, families: NONE },
  _none: { shape: 'quantifier', test: 'some', ...not, families: NONE },
} as const satisfies Readonly<Record<string, OperatorSpec>>;

export type FilterOperator = keyof typeof FILTER_OPERATOR_TABLE;
export type ShapeOf<Op extends FilterOperator> = (typeof FILTER_OPERATOR_TABLE)[Op]['shape'];
/** The operators that take values of shape `S`. */
export type OperatorOfShape<S extends OperatorShape> = {
  [Op in FilterOperator]: ShapeOf<Op> extends S ? Op : never;
}[FilterOperator];

const SPECS: Readonly<Record<FilterOperator, OperatorSpec>> = FILTER_OPERATOR_TABLE;

/** Every operator, in table order. */
export const FILTER_OPERATORS = Object.keys(FILTER_OPERATOR_TABLE) as readonly FilterOperator[];

export function isFilterOperator(key: string): key is FilterOperator {
  return Object.hasOwn(FILTER_OPERATOR_TABLE, key);
}

export function operatorSpec(op: FilterOperator): OperatorSpec {
  return SPECS[op];
}

export function hasShape<S extends OperatorShape>(op: FilterOperator, shape: S): op is OperatorOfShape<S> {
  return SPECS[op].shape === shape;
}

/** The family whose operators a field type offers. */
export const OPERATOR_FAMILY_OF_TYPE: Readonly<Record<FieldType, OperatorFamily>> = {
  string: 'text',
  text: 'text',
  csv: 'text',
  binary: 'text',
  uuid: 'uuid',
  integer: 'number',
  bigInteger: 'number',
  float: 'number',
  decimal: 'number',
  date: 'temporal',
  dateTime: 'temporal',
  timestamp: 'temporal',
  time: 'temporal',
  boolean: 'boolean',
  json: 'json',
  hash: 'hash',
  geometry: 'geometry',
  alias: 'untyped',
  unknown: 'untyped',
};

/** The operators of a family, in table order. */
export function operatorsOfFamily(family: OperatorFamily): readonly FilterOperator[] {
  return BY_FAMILY[family];
}

/** The operators that take values of `shape`, in table order. */
export function operatorsOfShape<S extends OperatorShape>(shape: S): readonly OperatorOfShape<S>[] {
  return FILTER_OPERATORS.filter((op): op is OperatorOfShape<S> => hasShape(op, shape));
}

const BY_FAMILY = mapKeys(ALL, (family) => FILTER_OPERATORS.filter((op) => SPECS[op].families.includes(family)));

/** The operators each field type allows; built once at load. */
export const OPERATORS_BY_TYPE: Readonly<Record<FieldType, ReadonlySet<FilterOperator>>> = mapKeys(
  Object.keys(OPERATOR_FAMILY_OF_TYPE) as FieldType[],
  (type) => new Set(BY_FAMILY[OPERATOR_FAMILY_OF_TYPE[type]]),
);

function mapKeys<K extends string, V>(keys: readonly K[], value: (key: K) => V): Record<K, V> {
  const out: Partial<Record<K, V>> = {};
  for (const key of keys) out[key] = value(key);
  return out as Record<K, V>;
}

/** The logical groups of a filter (an array of filters): all of them hold (`_and`), some does (`_or`). */
export const LOGICAL_OPERATORS = { _and: 'and', _or: 'or' } as const;
export type LogicalOperator = keyof typeof LOGICAL_OPERATORS;

export function isLogicalOperator(key: string): key is LogicalOperator {
  return Object.hasOwn(LOGICAL_OPERATORS, key);
}
