import { InvalidQueryError } from '../../errors.js';
import { MAX_QUERY_INTEGER } from '../validate/numbers.js';
import { MAX_DOCUMENT_DEPTH, nestsDeeperThan, tooDeepMessage } from './nesting-depth.js';
import { isPlainObject } from '../../is-plain-object.js';

/**
 * The entries of an array parameter. qs turns `a[25]=x` (past its array limit) into an object
 * with numeric keys; those count as arrays too. Anything else is undefined.
 */
export function asArray(value: unknown): readonly unknown[] | undefined {
  if (Array.isArray(value)) return value as readonly unknown[];
  if (!isPlainObject(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length === 0 || !keys.every((k) => /^\d+$/.test(k))) return undefined;
  return keys.sort((a, b) => Number(a) - Number(b)).map((k) => value[k]);
}

/**
 * Comma lists: `fields=id,title`, `fields[]=id,title`, arrays from a body.
 * Entries are trimmed; empty entries are dropped.
 */
export function parseList(value: unknown, name: string): string[] {
  const entries = typeof value === 'string' ? [value] : asArray(value);
  if (entries === undefined) throw new InvalidQueryError(`"${name}" must be a string or an array of strings`);
  const out: string[] = [];
  for (const entry of entries) {
    if (typeof entry !== 'string') throw new InvalidQueryError(`"${name}" must be a string or an array of strings`);
    for (const part of splitTopLevelCommas(entry)) {
      const trimmed = part.trim();
      if (trimmed !== '') out.push(trimmed);
    }
  }
  return out;
}

/** Splits on commas outside parentheses, so `count(a,b)`-like entries stay whole. */
function splitTopLevelCommas(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** An integer parameter with the INVALID_QUERY reasons Directus 10 gives, bounded (numbers.ts). */
export function parseInteger(value: unknown, name: string, min: number): number {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) n = Number(value);
  else throw new InvalidQueryError(`"${name}" must be a number`);
  if (!Number.isFinite(n)) throw new InvalidQueryError(`"${name}" must be a number`);
  if (!Number.isInteger(n)) throw new InvalidQueryError(`"${name}" must be an integer`);
  if (n < min) throw new InvalidQueryError(`"${name}" must be greater than or equal to ${min}`);
  if (n > MAX_QUERY_INTEGER)
    throw new InvalidQueryError(`"${name}" must be less than or equal to ${MAX_QUERY_INTEGER}`);
  return n;
}

/**
 * An object parameter given as an object (bracket form, SEARCH body) or as a JSON string.
 * `what` names it in the reasons: `Invalid JSON for filter object`, `Invalid filter object`.
 */
export function parseJsonObject(value: unknown, what: string): Readonly<Record<string, unknown>> {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    if (nestsDeeperThan(value, MAX_DOCUMENT_DEPTH, 'json')) {
      throw new InvalidQueryError(tooDeepMessage(`The JSON of "${what}"`));
    }
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new InvalidQueryError(`Invalid JSON for ${what} object`);
    }
  }
  if (!isPlainObject(parsed)) throw new InvalidQueryError(`Invalid ${what} object`);
  return parsed;
}

/** A scalar string parameter; qs gives arrays when a key repeats, the last one wins. */
export function parseString(value: unknown, name: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const entries = asArray(value);
  const last = entries?.[entries.length - 1];
  if (typeof last === 'string') return last;
  throw new InvalidQueryError(`"${name}" must be a string`);
}

/** `record[key]` for own keys only: keys from requests may be `constructor` or `__proto__`. */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * `record[key] = value` that keeps `__proto__` an ordinary key instead of the prototype (keys
 * from requests, field names and aliases may be anything). Other keys by plain assignment,
 * the fast way on the hot paths (rows shaped, payloads filtered).
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__')
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}
