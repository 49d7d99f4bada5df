import { FailedValidationError, type ValidationExtensions } from '../errors.js';

type Payload = Readonly<Record<string, unknown>>;

/** Values of the dynamic variables a validation filter may use (reference/query.md). */
export interface FilterVariables {
  readonly now: Date;
  readonly user: string | null;
  readonly role: string | null;
}

/**
 * Checks a payload against a validation filter (svc_fields.validation or a permission's
 * `validation`) and returns one FAILED_VALIDATION per failing rule, shaped as
 * reference/errors.md "FAILED_VALIDATION details" says. Only fields present in the payload
 * are checked (`required` is a separate rule); `_and` collects every failure, `_or` fails
 * with the failures of its branches when none passes.
 */
export function validateFilter(filter: unknown, payload: Payload, variables: FilterVariables): FailedValidationError[] {
  if (!isRecord(filter)) return [];
  const errors: FailedValidationError[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '_and' && Array.isArray(value)) {
      for (const part of value) errors.push(...validateFilter(part, payload, variables));
    } else if (key === '_or' && Array.isArray(value)) {
      const branches = value.map((part) => validateFilter(part, payload, variables));
      if (branches.length > 0 && branches.every((b) => b.length > 0)) errors.push(...branches.flat());
    } else if (!key.startsWith('_') && isRecord(value)) {
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
    return isRecord(value) ? validateFilter(rules, value, variables) : [];
  }
  const errors: FailedValidationError[] = [];
  for (const [op, raw] of operators) {
    const expected = resolveVariable(raw, variables);
    const error = checkOperator(field, op, value, expected);
    if (error !== undefined) errors.push(error);
  }
  return errors;
}

function checkOperator(
  field: string,
  op: string,
  value: unknown,
  expected: unknown,
): FailedValidationError | undefined {
  const fail = (extra: Omit<ValidationExtensions, 'field' | 'type'>, suffix = '') =>
    failure(field, op.slice(1), extra, suffix);
  const text = typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value);
  const needle = String(expected);
  switch (op) {
    case '_eq':
      return looseEquals(value, expected) ? undefined : fail({ valid: expected }, ` Value has to be "${needle}".`);
    case '_neq':
      return looseEquals(value, expected) ? fail({ invalid: expected }, ` Value can't be "${needle}".`) : undefined;
    case '_lt':
    case '_lte':
    case '_gt':
    case '_gte':
      return compareOk(op, value, expected) ? undefined : fail({ valid: expected }, comparisonSuffix(op, needle));
    case '_in': {
      const list = asList(expected);
      return list.some((v) => looseEquals(value, v))
        ? undefined
        : fail({ valid: list }, ` Value has to be one of ${quoteList(list)}.`);
    }
    case '_nin': {
      const list = asList(expected);
      return list.some((v) => looseEquals(value, v))
        ? fail({ invalid: list }, ` Value can't be one of ${quoteList(list)}.`)
        : undefined;
    }
    case '_null':
      return isTrue(expected) === (value === null)
        ? undefined
        : fail({}, isTrue(expected) ? ' Value has to be null.' : " Value can't be null.");
    case '_nnull':
      return isTrue(expected) === (value !== null)
        ? undefined
        : fail({}, isTrue(expected) ? " Value can't be null." : ' Value has to be null.');
    case '_empty':
      return isTrue(expected) === isEmpty(value) ? undefined : fail({}, ' Value has to be empty.');
    case '_nempty':
      return isTrue(expected) === !isEmpty(value) ? undefined : fail({}, " Value can't be empty.");
    case '_contains':
      return containsValue(value, expected)
        ? undefined
        : fail({ substring: needle }, ` Value has to contain "${needle}".`);
    case '_ncontains':
      return containsValue(value, expected)
        ? fail({ substring: needle }, ` Value can't contain "${needle}".`)
        : undefined;
    case '_icontains':
      return text.toLowerCase().includes(needle.toLowerCase()) ? undefined : fail({ substring: needle });
    case '_starts_with':
      return text.startsWith(needle) ? undefined : fail({ substring: needle });
    case '_nstarts_with':
      return text.startsWith(needle) ? fail({ substring: needle }) : undefined;
    case '_istarts_with':
      return text.toLowerCase().startsWith(needle.toLowerCase()) ? undefined : fail({ substring: needle });
    case '_nistarts_with':
      return text.toLowerCase().startsWith(needle.toLowerCase()) ? fail({ substring: needle }) : undefined;
    case '_ends_with':
      return text.endsWith(needle) ? undefined : fail({ substring: needle });
    case '_nends_with':
      return text.endsWith(needle) ? fail({ substring: needle }) : undefined;
    case '_iends_with':
      return text.toLowerCase().endsWith(needle.toLowerCase()) ? undefined : fail({ substring: needle });
    case '_niends_with':
      return text.toLowerCase().endsWith(needle.toLowerCase()) ? fail({ substring: needle }) : undefined;
    case '_between':
    case '_nbetween': {
      const [low, high] = asList(expected);
      const inside = compareOk('_gte', value, low) && compareOk('_lte', value, high);
      return inside === (op === '_between') ? undefined : fail({ valid: [low, high] });
    }
    case '_regex':
      return toRegExp(needle).test(text) ? undefined : fail({}, " Value doesn't have the correct format.");
    case '_submitted':
      return undefined;
    default:
      // Operators without meaning for a payload value (geometry, _some/_none) pass.
      return undefined;
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

function comparisonSuffix(op: string, expected: string): string {
  const words: Record<string, string> = {
    _lt: 'less than',
    _lte: 'less than or equal to',
    _gt: 'greater than',
    _gte: 'greater than or equal to',
  };
  return ` Value has to be ${words[op] ?? op} "${expected}".`;
}

/** `$NOW`, `$CURRENT_USER`, `$CURRENT_ROLE` (reference/query.md, dynamic variables). */
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
  if (typeof value === 'boolean' || typeof expected === 'boolean') return String(value) === String(expected);
  const a = toNumber(value);
  const b = toNumber(expected);
  if (a !== undefined && b !== undefined) return a === b;
  return String(value) === String(expected);
}

function compareOk(op: string, value: unknown, expected: unknown): boolean {
  if (value === null || value === undefined || expected === null || expected === undefined) return false;
  const a = toNumber(value);
  const b = toNumber(expected);
  const [left, right]: [number | string, number | string] =
    a !== undefined && b !== undefined ? [a, b] : [toComparableText(value), toComparableText(expected)];
  switch (op) {
    case '_lt':
      return left < right;
    case '_lte':
      return left <= right;
    case '_gt':
      return left > right;
    default:
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

function isRecord(value: unknown): value is Payload {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
