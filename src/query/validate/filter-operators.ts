import type { FieldType } from '../../../catalog/overview/types.js';

/** Every filter operator of reference/query.md. */
export const FILTER_OPERATORS = [
  '_eq',
  '_neq',
  '_lt',
  '_lte',
  '_gt',
  '_gte',
  '_in',
  '_nin',
  '_null',
  '_nnull',
  '_empty',
  '_nempty',
  '_contains',
  '_ncontains',
  '_icontains',
  '_starts_with',
  '_nstarts_with',
  '_istarts_with',
  '_nistarts_with',
  '_ends_with',
  '_nends_with',
  '_iends_with',
  '_niends_with',
  '_between',
  '_nbetween',
  '_intersects',
  '_nintersects',
  '_intersects_bbox',
  '_nintersects_bbox',
  '_regex',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export function isFilterOperator(key: string): key is FilterOperator {
  return (FILTER_OPERATORS as readonly string[]).includes(key);
}

/** Operators taking a non-empty list (array or comma string). */
export const LIST_OPERATORS: ReadonlySet<FilterOperator> = new Set(['_in', '_nin', '_between', '_nbetween']);
/** Operators taking a boolean. */
export const BOOLEAN_OPERATORS: ReadonlySet<FilterOperator> = new Set(['_null', '_nnull', '_empty', '_nempty']);

const STRING_OPERATORS: readonly FilterOperator[] = [
  '_contains',
  '_ncontains',
  '_icontains',
  '_starts_with',
  '_nstarts_with',
  '_istarts_with',
  '_nistarts_with',
  '_ends_with',
  '_nends_with',
  '_iends_with',
  '_niends_with',
  '_eq',
  '_neq',
  '_empty',
  '_nempty',
  '_null',
  '_nnull',
  '_in',
  '_nin',
];
const NUMERIC_OPERATORS: readonly FilterOperator[] = [
  '_eq',
  '_neq',
  '_lt',
  '_lte',
  '_gt',
  '_gte',
  '_between',
  '_nbetween',
  '_null',
  '_nnull',
  '_in',
  '_nin',
];

/**
 * reference/query.md, "Operators allowed per field type". `_regex` is for validation filters
 * only, so no type offers it to queries.
 */
/** Aliases and columns of an unknown type: the operators that make sense on any value. */
const UNTYPED_OPERATORS: ReadonlySet<FilterOperator> = new Set([
  '_contains',
  '_ncontains',
  '_eq',
  '_neq',
  '_lt',
  '_lte',
  '_gt',
  '_gte',
  '_between',
  '_nbetween',
  '_empty',
  '_nempty',
  '_null',
  '_nnull',
  '_in',
  '_nin',
]);

export const OPERATORS_BY_TYPE: Readonly<Record<FieldType, ReadonlySet<FilterOperator>>> = {
  string: new Set(STRING_OPERATORS),
  text: new Set(STRING_OPERATORS),
  csv: new Set(STRING_OPERATORS),
  binary: new Set(STRING_OPERATORS),
  uuid: new Set(['_eq', '_neq', '_null', '_nnull', '_in', '_nin']),
  integer: new Set(NUMERIC_OPERATORS),
  bigInteger: new Set(NUMERIC_OPERATORS),
  float: new Set(NUMERIC_OPERATORS),
  decimal: new Set(NUMERIC_OPERATORS),
  date: new Set(NUMERIC_OPERATORS),
  dateTime: new Set(NUMERIC_OPERATORS),
  timestamp: new Set(NUMERIC_OPERATORS),
  time: new Set(NUMERIC_OPERATORS),
  boolean: new Set(['_eq', '_neq', '_null', '_nnull']),
  json: new Set(['_null', '_nnull']),
  hash: new Set(['_empty', '_nempty', '_null', '_nnull']),
  geometry: new Set([
    '_eq',
    '_neq',
    '_null',
    '_nnull',
    '_intersects',
    '_nintersects',
    '_intersects_bbox',
    '_nintersects_bbox',
  ]),
  alias: UNTYPED_OPERATORS,
  unknown: UNTYPED_OPERATORS,
};
