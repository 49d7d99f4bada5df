import { valueAt } from './templates.js';

/**
 * The filter syntax (`{"$trigger": {"payload": {"status": {"_eq": "published"}}}}`, `_and`,
 * `_or`) evaluated against data in memory, for the `condition` operation and the event
 * trigger's filter. The query layer compiles filters to SQL and has no in-memory evaluator, so
 * this one covers the comparison operators a payload can be tested with. Returns the paths that
 * failed (empty: the data passes); an unknown operator fails its path.
 */
export function unmatchedPaths(filter: unknown, data: unknown, at = ''): string[] {
  if (typeof filter !== 'object' || filter === null) return [];
  const failed: string[] = [];
  for (const [key, rule] of Object.entries(filter)) {
    if (key === '_and' && Array.isArray(rule)) {
      for (const part of rule) failed.push(...unmatchedPaths(part, data, at));
    } else if (key === '_or' && Array.isArray(rule)) {
      const results = rule.map((part) => unmatchedPaths(part, data, at));
      if (results.length > 0 && results.every((r) => r.length > 0)) failed.push(...results.flat());
    } else if (key.startsWith('_')) {
      if (!compare(key, data, rule)) failed.push(at === '' ? key : at);
    } else {
      failed.push(...unmatchedPaths(rule, valueAt(data, key), at === '' ? key : `${at}.${key}`));
    }
  }
  return failed;
}

function compare(operator: string, value: unknown, rule: unknown): boolean {
  switch (operator) {
    case '_eq':
      return looseEqual(value, rule);
    case '_neq':
      return !looseEqual(value, rule);
    case '_in':
      return listOf(rule).some((entry) => looseEqual(value, entry));
    case '_nin':
      return !listOf(rule).some((entry) => looseEqual(value, entry));
    case '_gt':
      return orderable(value, rule, (a, b) => a > b);
    case '_gte':
      return orderable(value, rule, (a, b) => a >= b);
    case '_lt':
      return orderable(value, rule, (a, b) => a < b);
    case '_lte':
      return orderable(value, rule, (a, b) => a <= b);
    case '_null':
      return isTrue(rule) === (value === null || value === undefined);
    case '_nnull':
      return isTrue(rule) === (value !== null && value !== undefined);
    case '_empty':
      return isTrue(rule) === isEmpty(value);
    case '_nempty':
      return isTrue(rule) === !isEmpty(value);
    case '_contains':
      return contains(value, rule);
    case '_ncontains':
      return !contains(value, rule);
    case '_icontains':
      return typeof value === 'string' && value.toLowerCase().includes(String(rule).toLowerCase());
    case '_starts_with':
      return typeof value === 'string' && value.startsWith(String(rule));
    case '_nstarts_with':
      return !(typeof value === 'string' && value.startsWith(String(rule)));
    case '_ends_with':
      return typeof value === 'string' && value.endsWith(String(rule));
    case '_nends_with':
      return !(typeof value === 'string' && value.endsWith(String(rule)));
    case '_between':
      return (
        listOf(rule).length === 2 && compare('_gte', value, listOf(rule)[0]) && compare('_lte', value, listOf(rule)[1])
      );
    default:
      return false;
  }
}

/** A filter written in a query string compares `"7"` with 7: numbers and their text are equal. */
function looseEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((typeof a === 'number' && typeof b === 'string') || (typeof a === 'string' && typeof b === 'number')) {
    return String(a) === String(b);
  }
  if (typeof a === 'boolean' && typeof b === 'string') return String(a) === b;
  return false;
}

function orderable(a: unknown, b: unknown, test: (x: number | string, y: number | string) => boolean): boolean {
  if (typeof a === 'number' && (typeof b === 'number' || (typeof b === 'string' && b.trim() !== ''))) {
    const other = Number(b);
    return !Number.isNaN(other) && test(a, other);
  }
  if (typeof a === 'string' && typeof b === 'string') return test(a, b);
  return false;
}

function contains(value: unknown, rule: unknown): boolean {
  if (typeof value === 'string') return value.includes(String(rule));
  if (Array.isArray(value)) return value.some((entry) => looseEqual(entry, rule));
  return false;
}

function listOf(rule: unknown): unknown[] {
  if (Array.isArray(rule)) return rule;
  if (typeof rule === 'string') return rule.split(',');
  return [rule];
}

function isTrue(rule: unknown): boolean {
  return rule === true || rule === 'true' || rule === 1 || rule === '1';
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return false;
}
