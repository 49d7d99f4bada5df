import {
  isFilterOperator,
  isLogicalOperator,
  LOGICAL_OPERATORS,
  operatorSpec,
} from '../../catalog/overview/filter-operators.js';
import { assertNever, FailedValidationError, type ValidationExtensions } from '../errors.js';
import { isPlainObject } from '../is-plain-object.js';

type Payload = Readonly<Record<string, unknown>>;

/** Values of the dynamic variables a validation filter may use. */
export interface FilterVariables {
  readonly now: Date;
  readonly user: string | null;
  readonly role: string | null;
}

/**
 * Checks a payload against a validation filter (svc_fields.validation or a permission's
 * `validation`) and returns one FAILED_VALIDATION per failing rule, shaped as
 * Directus 10 details it. Only fields present in the payload
 * are checked (`required` is a separate rule); `_and` collects every failure, `_or` fails
 * with the failures of its branches when none passes.
 */
export function validateFilter(filter: unknown, payload: Payload, variables: FilterVariables): FailedValidationError[] {
  if (!isPlainObject(filter)) return [];
  const errors: FailedValidationError[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (isLogicalOperator(key)) {
      if (!Array.isArray(value)) continue;
      const branches = value.map((part) => validateFilter(part, payload, variables));
      const fails = LOGICAL_OPERATORS[key] === 'and' || (branches.length > 0 && branches.every((b) => b.length > 0));
      if (fails) errors.push(...branches.flat());
    } else if (!key.startsWith('_') && isPlainObject(value)) {
      errors.push(...validateField(key, value, payload, variables));
    }
  }
  return errors;
}

function validateField(
  field: string,
  rules: Payload,
  payload: Payload,
  variables: FilterVariables,
): FailedValidationError[] {
  if (!(field in payload)) {
    return '_submitted' in rules ? [failure(field, 'required', {}, ' Value is required.')] : [];
  }
  const value = payload[field];
  const operators = Object.entries(rules).filter(([op]) => op.startsWith('_'));
  if (operators.length === 0) {
    // A filter on a related item: only checkable when the payload nests that item.
    return isPlainObject(value) ? validateFilter(rules, value, variables) : [];
  }
  const errors: FailedValidationError[] = [];
  for (const [op, raw] of operators) {
    const expected = resolveVariable(raw, variables);
    const error = checkOperator(field, op, value, expected);
    if (error !== undefined) errors.push(error);
  }
  return errors;
}

/**
 * One operator of the table (catalog/overview/filter-operators.ts) against a payload value, by
 * the test it makes; negated operators fail where their positive one passes. Operators without
 * meaning for a payload value (geometry, `_some`/`_none`, `_submitted`) and unknown keys pass.
 */
function checkOperator(
  field: string,
  op: string,
  value: unknown,
  expected: unknown,
): FailedValidationError | undefined {
  if (!isFilterOperator(op)) return undefined;
  const { test, negated, caseInsensitive } = operatorSpec(op);
  const fail = (extra: Omit<ValidationExtensions, 'field' | 'type'>, suffix = '') =>
    failure(field, op.slice(1), extra, suffix);
  /** Passes when `found` is what the operator asks for (found for positive, not for negated ones). */
  const expect = (found: boolean, onFailure: () => FailedValidationError) =>
    found !== negated ? undefined : onFailure();
  const text = value === null || value === undefined ? '' : looseText(value);
  const needle = String(expected);
  const fold = (s: string) => (caseInsensitive ? s.toLowerCase() : s);
  switch (test) {
    case 'equal':
      return expect(looseEquals(value, expected), () =>
        negated
          ? fail({ invalid: expected }, ` Value can't be "${needle}".`)
          : fail({ valid: expected }, ` Value has to be "${needle}".`),
      );
    case 'less':
    case 'lessOrEqual':
    case 'greater':
    case 'greaterOrEqual':
      return expect(compareOk(test, value, expected), () => fail({ valid: expected }, comparisonSuffix(test, needle)));
    case 'in': {
      const list = asList(expected);
      return expect(
        list.some((v) => looseEquals(value, v)),
        () =>
          negated
            ? fail({ invalid: list }, ` Value can't be one of ${quoteList(list)}.`)
            : fail({ valid: list }, ` Value has to be one of ${quoteList(list)}.`),
      );
    }
    case 'null': {
      const wantsNull = isTrue(expected) !== negated;
      return wantsNull === (value === null)
        ? undefined
        : fail({}, wantsNull ? ' Value has to be null.' : " Value can't be null.");
    }
    case 'empty':
      return (isTrue(expected) !== negated) === isEmpty(value)
        ? undefined
        : fail({}, negated ? " Value can't be empty." : ' Value has to be empty.');
    case 'contains':
      if (caseInsensitive) return expect(fold(text).includes(fold(needle)), () => fail({ substring: needle }));
      return expect(containsValue(value, expected), () =>
        fail(
          { substring: needle },
          negated ? ` Value can't contain "${needle}".` : ` Value has to contain "${needle}".`,
        ),
      );
    case 'startsWith':
      return expect(fold(text).startsWith(fold(needle)), () => fail({ substring: needle }));
    case 'endsWith':
      return expect(fold(text).endsWith(fold(needle)), () => fail({ substring: needle }));
    case 'between': {
      const [low, high] = asList(expected);
      const inside = compareOk('greaterOrEqual', value, low) && compareOk('lessOrEqual', value, high);
      return expect(inside, () => fail({ valid: [low, high] }));
    }
    case 'regex':
      return expect(toRegExp(needle).test(text), () => fail({}, " Value doesn't have the correct format."));
    case 'submitted':
    case 'intersects':
    case 'intersectsBbox':
    case 'some':
      return undefined;
    default:
      return assertNever(test);
  }
}

function failure(
  field: string,
  type: string,
  extra: Omit<ValidationExtensions, 'field' | 'type'>,
  suffix = '',
): FailedValidationError {
  return new FailedValidationError({ field, type, ...extra }, `Validation failed for field "${field}".${suffix}`);
}

type Comparison = 'less' | 'lessOrEqual' | 'greater' | 'greaterOrEqual';

const COMPARISON_WORDS: Readonly<Record<Comparison, string>> = {
  less: 'less than',
  lessOrEqual: 'less than or equal to',
  greater: 'greater than',
  greaterOrEqual: 'greater than or equal to',
};

function comparisonSuffix(test: Comparison, expected: string): string {
  return ` Value has to be ${COMPARISON_WORDS[test]} "${expected}".`;
}

/** `$NOW`, `$CURRENT_USER`, `$CURRENT_ROLE`. */
function resolveVariable(value: unknown, variables: FilterVariables): unknown {
  if (value === '$NOW') return variables.now.toISOString();
  if (value === '$CURRENT_USER') return variables.user;
  if (value === '$CURRENT_ROLE') return variables.role;
  if (Array.isArray(value)) return value.map((v) => resolveVariable(v, variables));
  return value;
}

function looseEquals(value: unknown, expected: unknown): boolean {
  if (value === expected) return true;
  if (value === null || expected === null || value === undefined) return false;
  if (typeof value === 'boolean' || typeof expected === 'boolean') return looseText(value) === looseText(expected);
  const a = toNumber(value);
  const b = toNumber(expected);
  if (a !== undefined && b !== undefined) return a === b;
  return looseText(value) === looseText(expected);
}

/**
 * The text a payload value is compared as: String() of it, so a JSON object reads
 * "[object Object]" (the rules have always compared objects so; JSON text would change results).
 */
function looseText(value: unknown): string {
  return String(value);
}

function compareOk(test: Comparison, value: unknown, expected: unknown): boolean {
  if (value === null || value === undefined || expected === null || expected === undefined) return false;
  const a = toNumber(value);
  const b = toNumber(expected);
  const [left, right]: [number | string, number | string] =
    a !== undefined && b !== undefined ? [a, b] : [toComparableText(value), toComparableText(expected)];
  switch (test) {
    case 'less':
      return left < right;
    case 'lessOrEqual':
      return left <= right;
    case 'greater':
      return left > right;
    case 'greaterOrEqual':
      return left >= right;
  }
}

/** Dates compare as instants; other strings as text. */
function toComparableText(value: unknown): string {
  const text = String(value);
  const time = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(time) ? text : new Date(time).toISOString();
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value.trim())) {
    return Number(value);
  }
  return undefined;
}

function asList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return value.split(',');
  return [value];
}

function quoteList(values: readonly unknown[]): string {
  return values.map((v) => `"${String(v)}"`).join(', ');
}

function isTrue(value: unknown): boolean {
  return value === true || value === 'true' || value === 1 || value === '1';
}

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}

/** Substring for strings; element for arrays (csv and json lists). */
function containsValue(value: unknown, expected: unknown): boolean {
  if (Array.isArray(value)) return value.some((v) => looseEquals(v, expected));
  if (typeof value !== 'string') return false;
  return value.includes(String(expected));
}

/** `/pattern/flags` or a bare pattern. */
function toRegExp(pattern: string): RegExp {
  const literal = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  try {
    return literal ? new RegExp(literal[1] ?? '', literal[2]) : new RegExp(pattern);
  } catch {
    return /(?!)/;
  }
}
