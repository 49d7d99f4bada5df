import type { Knex } from 'knex';
import type { CollectionOverview } from '../../catalog/overview/types.js';
import { ForbiddenError } from '../errors.js';
import type { PrimaryKey } from './types.js';

/** The keys, of those given, that name existing items, in the given order (duplicates kept). */
export async function filterExisting(
  trx: Knex.Transaction,
  collection: CollectionOverview,
  keys: readonly PrimaryKey[],
): Promise<PrimaryKey[]> {
  if (keys.length === 0) return [];
  const found = await trx(collection.collection)
    .whereIn(collection.primary, [...new Set(keys)])
    .select(collection.primary);
  const existing = new Set(found.map((row: Record<string, unknown>) => keyId(row[collection.primary])));
  return keys.filter((key) => existing.has(keyId(key)));
}

/** FORBIDDEN unless every key names an existing item (spec, Errors, rule 1). */
export async function requireExisting(
  trx: Knex.Transaction,
  collection: CollectionOverview,
  keys: readonly PrimaryKey[],
): Promise<void> {
  if ((await filterExisting(trx, collection, keys)).length < keys.length) throw new ForbiddenError();
}

export async function itemExists(
  trx: Knex.Transaction,
  collection: CollectionOverview,
  key: PrimaryKey,
): Promise<boolean> {
  return (await trx(collection.collection).where(collection.primary, key).first(collection.primary)) !== undefined;
}

/**
 * Whether the item exists, after a failure; true when the database cannot tell (PostgreSQL
 * refuses every statement after a failed one), so that the failure itself is reported.
 */
export async function existsUnlessAborted(
  trx: Knex.Transaction,
  collection: CollectionOverview,
  key: PrimaryKey,
): Promise<boolean> {
  try {
    return await itemExists(trx, collection, key);
  } catch {
    return true;
  }
}

/** A key as the database compares it: uuid keys case-insensitively (primary-key.ts, sameKey). */
export function keyId(key: unknown): string {
  return String(key).toLowerCase();
}
