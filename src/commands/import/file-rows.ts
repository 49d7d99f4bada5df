import { findField } from '../../../catalog/overview/lookup.js';
import type { CollectionOverview, SchemaOverview } from '../../../catalog/overview/types.js';
import { FailedValidationError, InvalidPayloadError } from '../../errors.js';
import { keyId } from '../existing-items.js';
import { KeyRuns } from '../key-runs.js';
import type { Item, PrimaryKey } from '../types.js';
import { atRow } from './row-error.js';

/**
 * Issue 13, bad input: a key that an earlier row of the same file carried is refused
 * (FAILED_VALIDATION naming both rows) instead of upserting twice. Only rows that carry a
 * key are remembered (its id and row number): a file of rows without keys costs nothing, one
 * of integer keys in increasing order (an export) a few runs (key-runs.ts), other keys some
 * 30 MB per million.
 */
export class FileKeys {
  readonly #rows = new KeyRuns();
  /** Integer keys kept as numbers, half the memory of their text (toPrimaryKey: 5 and "5" are 5). */
  readonly #integers: boolean;

  constructor(readonly collection: CollectionOverview) {
    const type = collection.fields[collection.primary]?.type;
    this.#integers = type === 'integer' || type === 'bigInteger';
  }

  /** Notes the key of `row`; throws if an earlier row of the file carried it. */
  note(key: PrimaryKey | undefined, row: number): void {
    if (key === undefined) return;
    const id = this.#integers && typeof key === 'number' ? key : keyId(key);
    const earlier = this.#rows.get(id);
    if (earlier !== undefined) {
      const field = this.collection.primary;
      const message = `Duplicate key ${String(key)} for field "${field}": row ${earlier} of the file has it too.`;
      throw atRow(new FailedValidationError({ field, type: 'unique' }, message), row);
    }
    this.#rows.set(id, row);
  }
}

/**
 * Issue 13, bad input: a key at the top level of a JSON row that is not a field of the
 * collection (column or alias) is INVALID_PAYLOAD naming it and the row. Imports only:
 * item writes drop such keys (Directus 10, check-payload.ts).
 */
export function requireKnownKeys(overview: SchemaOverview, collection: CollectionOverview, item: Item, row: number) {
  for (const name of Object.keys(item)) {
    if (findField(overview, collection.collection, name) === undefined)
      throw atRow(new InvalidPayloadError(unknownColumn(collection, name)), row);
  }
}

/** The reason an unknown column or key is refused. */
export function unknownColumn(collection: CollectionOverview, name: string): string {
  return `Column "${name}" is not a field of collection "${collection.collection}"`;
}
