import { UUID_TEXT } from '../../catalog/overview/value-forms.js';
import type { CollectionOverview } from '../../catalog/overview/types.js';
import { ForbiddenError } from '../errors.js';
import { integerRange, isIntegerInRange } from '../query/validate/numbers.js';

/** A primary key as it travels in payloads and URLs. */
export type PrimaryKey = string | number;

/**
 * A key from a URL or payload in the type of the collection's primary key, or undefined when
 * no row can have it (`abc` for an integer key): such a key is never sent to the database,
 * where PostgreSQL would fail the whole statement on it.
 */
export function toPrimaryKey(collection: CollectionOverview, value: unknown): PrimaryKey | undefined {
  const field = collection.fields[collection.primary];
  const type = field?.type;
  const text = typeof value === 'number' || typeof value === 'string' ? String(value).trim() : undefined;
  if (text === undefined || text === '') return undefined;
  switch (type) {
    case 'integer':
    case 'bigInteger': {
      // A key out of the column's range names no row (numbers.ts); PostgreSQL would fail on it.
      if (field === undefined || !/^-?\d+$/.test(text) || !isIntegerInRange(text, integerRange(field)))
        return undefined;
      const number = Number(text);
      return Number.isSafeInteger(number) ? number : text;
    }
    case 'uuid':
      return UUID_TEXT.test(text) ? text.toLowerCase() : undefined;
    default:
      return typeof value === 'number' ? value : String(value);
  }
}

/** {@link toPrimaryKey}, or FORBIDDEN: a key no row can have names a missing item (spec, Errors, rule 1). */
export function requirePrimaryKey(collection: CollectionOverview, value: unknown): PrimaryKey {
  const key = toPrimaryKey(collection, value);
  if (key === undefined) throw new ForbiddenError();
  return key;
}

export function sameKey(a: unknown, b: unknown): boolean {
  const text = (key: unknown) =>
    typeof key === 'string' || typeof key === 'number' || typeof key === 'bigint'
      ? String(key).toLowerCase()
      : undefined;
  const left = text(a);
  return left !== undefined && left === text(b);
}
