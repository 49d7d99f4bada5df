/**
 * A field's `meta.conditions` evaluated on the form's values, in the browser, as Directus's Data
 * Studio does: each condition is `{ rule, hidden?, readonly?, required?, options? }`, its `rule` a
 * filter on the form's values; every condition whose rule matches applies, later ones last.
 * Pure (no DOM, no import): test/unit/console/conditions.test.ts runs it in Node.
 */

type Values = Readonly<Record<string, unknown>>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isEmpty = (value: unknown): boolean =>
  value === null ||
  value === undefined ||
  value === '' ||
  (Array.isArray(value) && value.length === 0) ||
  (isRecord(value) && Object.keys(value).length === 0);

/** Numbers and dates compare as numbers, the rest as strings. */
function compare(a: unknown, b: unknown): number | undefined {
  if (a === null || a === undefined || b === null || b === undefined) return undefined;
  const x = Number(a);
  const y = Number(b);
  if (!Number.isNaN(x) && !Number.isNaN(y) && a !== '' && b !== '') return x - y;
  const dx = Date.parse(String(a));
  const dy = Date.parse(String(b));
  if (!Number.isNaN(dx) && !Number.isNaN(dy)) return dx - dy;
  return String(a).localeCompare(String(b));
}

// Form values come from inputs (strings) while rules hold JSON values: 1 and '1' are equal.
const same = (a: unknown, b: unknown): boolean =>
  a === b || (a !== null && b !== null && a !== undefined && b !== undefined && String(a) === String(b));

const listOf = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];

/** One operator on one value (the API's filter operators, the common ones). */
function matchesOperator(operator: string, expected: unknown, value: unknown): boolean {
  const order = compare(value, expected);
  switch (operator) {
    case '_eq':
      return same(value, expected);
    case '_neq':
      return !same(value, expected);
    case '_in':
      return listOf(expected).some((e) => same(value, e));
    case '_nin':
      return !listOf(expected).some((e) => same(value, e));
    case '_null':
      return (value === null || value === undefined) === (expected !== false && expected !== 'false');
    case '_nnull':
      return (value !== null && value !== undefined) === (expected !== false && expected !== 'false');
    case '_empty':
      return isEmpty(value) === (expected !== false && expected !== 'false');
    case '_nempty':
      return !isEmpty(value) === (expected !== false && expected !== 'false');
    case '_gt':
      return order !== undefined && order > 0;
    case '_gte':
      return order !== undefined && order >= 0;
    case '_lt':
      return order !== undefined && order < 0;
    case '_lte':
      return order !== undefined && order <= 0;
    case '_contains':
      return Array.isArray(value)
        ? value.some((v) => same(v, expected))
        : typeof value === 'string' && value.includes(String(expected));
    case '_ncontains':
      return !matchesOperator('_contains', expected, value);
    case '_icontains':
      return typeof value === 'string' && value.toLowerCase().includes(String(expected).toLowerCase());
    case '_starts_with':
      return typeof value === 'string' && value.startsWith(String(expected));
    case '_ends_with':
      return typeof value === 'string' && value.endsWith(String(expected));
    default:
      // An operator the browser does not know does not match: the field keeps its own meta.
      return false;
  }
}

/** Whether `values` match the filter `rule` (field → operators, `_and`, `_or`). */
export function matchesFilter(rule: unknown, values: Values): boolean {
  if (!isRecord(rule)) return false;
  return Object.entries(rule).every(([key, clause]) => {
    if (key === '_and') return Array.isArray(clause) && clause.every((r) => matchesFilter(r, values));
    if (key === '_or') return Array.isArray(clause) && clause.some((r) => matchesFilter(r, values));
    if (!isRecord(clause)) return same(values[key], clause);
    return Object.entries(clause).every(([operator, expected]) =>
      operator.startsWith('_')
        ? matchesOperator(operator, expected, values[key])
        : // A nested field (`author: { name: { _eq } }`): the form holds the related key only.
          matchesFilter({ [operator]: expected }, isRecord(values[key]) ? values[key] : {}),
    );
  });
}

/** What a field's conditions make of it for these form values. */
export interface FieldState {
  readonly hidden: boolean;
  readonly readonly: boolean;
  readonly required: boolean;
  readonly options: Readonly<Record<string, unknown>>;
}

/** What of a field (catalogue.ts's FieldInfo) its conditions may change. */
export interface ConditionalField {
  readonly readonly: boolean;
  readonly required: boolean;
  readonly options: Readonly<Record<string, unknown>>;
  readonly conditions: readonly unknown[];
}

export function applyConditions(field: ConditionalField, values: Values): FieldState {
  let state: FieldState = {
    hidden: false,
    readonly: field.readonly,
    required: field.required,
    options: field.options,
  };
  for (const condition of field.conditions) {
    if (!isRecord(condition) || !matchesFilter(condition['rule'], values)) continue;
    state = {
      hidden: typeof condition['hidden'] === 'boolean' ? condition['hidden'] : state.hidden,
      readonly: typeof condition['readonly'] === 'boolean' ? condition['readonly'] : state.readonly,
      required: typeof condition['required'] === 'boolean' ? condition['required'] : state.required,
      options: isRecord(condition['options']) ? { ...state.options, ...condition['options'] } : state.options,
    };
  }
  return state;
}
