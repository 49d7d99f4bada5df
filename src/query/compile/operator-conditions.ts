import {
  operatorSpec,
  type FilterOperator,
  type OperatorShape,
  type OperatorTest,
  type ShapeOf,
} from '../../../catalog/overview/filter-operators.js';
import type { FieldType } from '../../../catalog/overview/types.js';
import { InvalidQueryError } from '../../errors.js';
import type { CompareOp, Condition, MatchMode, Operand, RelationRef, Value } from '../ast/nodes.js';

/**
 * How each filter operator compiles: the condition node it becomes, one entry per operator of
 * catalog/overview/filter-operators.ts (an operator added there without an entry here fails to
 * type-check). compile-condition.ts writes each node's SQL through the dialect.
 */

/** The operand an operator applies to, and the field type its values were checked against. */
interface OperatorTarget {
  readonly operand: Operand;
  /** `hash` for masked fields, `integer` for function keys. */
  readonly type: FieldType;
}

/** Operators of validation filters only (svc_fields.validation, permission `validation`): never SQL. */
export const VALIDATION_ONLY = 'validation only';

/** The match mode of an operator's test (before OPERATOR_CONDITIONS, which reads it at load). */
const MATCH_MODES: Readonly<Partial<Record<OperatorTest, MatchMode>>> = {
  contains: 'contains',
  startsWith: 'starts',
  endsWith: 'ends',
};

/** The compiler of an operator, by the shape of its value (already checked and coerced). */
export type OperatorCompiler<S extends OperatorShape> = S extends 'scalar'
  ? (target: OperatorTarget, value: Value) => Condition
  : S extends 'list'
    ? (target: OperatorTarget, values: readonly Value[]) => Condition
    : S extends 'pair'
      ? (target: OperatorTarget, low: Value, high: Value) => Condition
      : S extends 'flag'
        ? (target: OperatorTarget, flag: boolean) => Condition
        : S extends 'geometry'
          ? (target: OperatorTarget, geojson: string) => Condition
          : S extends 'quantifier'
            ? (relation: RelationRef, related: Condition) => Condition
            : typeof VALIDATION_ONLY;

export const OPERATOR_CONDITIONS: { readonly [Op in FilterOperator]: OperatorCompiler<ShapeOf<Op>> } = {
  _eq: equality('_eq'),
  _neq: equality('_neq'),
  _gt: comparison('_gt', '>'),
  _gte: comparison('_gte', '>='),
  _lt: comparison('_lt', '<'),
  _lte: comparison('_lte', '<='),
  _contains: matching('_contains'),
  _icontains: matching('_icontains'),
  _ncontains: matching('_ncontains'),
  _starts_with: matching('_starts_with'),
  _nstarts_with: matching('_nstarts_with'),
  _istarts_with: matching('_istarts_with'),
  _nistarts_with: matching('_nistarts_with'),
  _ends_with: matching('_ends_with'),
  _nends_with: matching('_nends_with'),
  _iends_with: matching('_iends_with'),
  _niends_with: matching('_niends_with'),
  _intersects: intersecting('intersects', false),
  _nintersects: intersecting('intersects', true),
  _intersects_bbox: intersecting('bbox', false),
  _nintersects_bbox: intersecting('bbox', true),
  _in: ({ operand }, values) => ({ kind: 'in', operand, values, negated: false }),
  _nin: ({ operand }, values) => ({ kind: 'in', operand, values, negated: true }),
  _between: ({ operand }, low, high) => ({ kind: 'between', operand, low, high, negated: false }),
  _nbetween: ({ operand }, low, high) => ({ kind: 'between', operand, low, high, negated: true }),
  // A flag of false asks for the opposite test.
  _null: ({ operand }, flag) => ({ kind: 'null', operand, negated: !flag }),
  _nnull: ({ operand }, flag) => ({ kind: 'null', operand, negated: flag }),
  _empty: ({ operand, type }, flag) => ({ kind: 'empty', operand, isText: isTextType(type), negated: !flag }),
  _nempty: ({ operand, type }, flag) => ({ kind: 'empty', operand, isText: isTextType(type), negated: flag }),
  _regex: VALIDATION_ONLY,
  _submitted: VALIDATION_ONLY,
  _some: (relation, condition) => ({ kind: 'related', relation, condition, negated: false }),
  _none: (relation, condition) => ({ kind: 'related', relation, condition, negated: true }),
};

function scalarRefused(op: FilterOperator): never {
  throw new InvalidQueryError(`The filter value for "${op}" has to be a string, number, or boolean`);
}

function isNullLiteral(value: Value): boolean {
  return value.kind === 'literal' && value.value === null;
}

/** `_eq`/`_neq`; null means `is (not) null`. */
function equality(op: '_eq' | '_neq'): OperatorCompiler<'scalar'> {
  const negated = operatorSpec(op).negated;
  return ({ operand }, value) =>
    isNullLiteral(value)
      ? { kind: 'null', operand, negated }
      : { kind: 'compare', operand, op: negated ? '<>' : '=', value };
}

function comparison(op: FilterOperator, compare: CompareOp): OperatorCompiler<'scalar'> {
  return ({ operand }, value) =>
    isNullLiteral(value) ? scalarRefused(op) : { kind: 'compare', operand, op: compare, value };
}

/** Substring, prefix and suffix tests; on csv, `_contains` means "one element equals". */
function matching(op: FilterOperator): OperatorCompiler<'scalar'> {
  const { test, negated, caseInsensitive } = operatorSpec(op);
  const mode = MATCH_MODES[test];
  if (mode === undefined) throw new Error(`${op} is not a match operator`);
  const csvElement = mode === 'contains' && !caseInsensitive;
  return ({ operand, type }, value) => {
    if (value.kind !== 'literal' || value.value === null) return scalarRefused(op);
    const text = value.value instanceof Date ? value.value.toISOString() : String(value.value);
    if (csvElement && type === 'csv') return { kind: 'csvContains', operand, element: text, negated };
    return { kind: 'match', operand, mode, caseInsensitive, text, negated };
  };
}

function intersecting(mode: 'intersects' | 'bbox', negated: boolean): OperatorCompiler<'geometry'> {
  return ({ operand }, geojson) => ({ kind: 'geo', operand, mode, geojson, negated });
}

/** Types whose empty value is '' as well as null. */
function isTextType(type: FieldType): boolean {
  return type === 'string' || type === 'text' || type === 'csv' || type === 'hash' || type === 'binary';
}
