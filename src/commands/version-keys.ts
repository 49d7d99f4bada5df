import type { Knex } from 'knex';
import { InvalidPayloadError, UnprocessableEntityError } from '../errors.js';
import { MAIN_VERSION_KEY } from '../query/index.js';
import type { Item, PrimaryKey } from './types.js';

export const VERSIONS_COLLECTION = 'svc_versions';

const KEY_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A version key as a create or a rename gives it: 1 to 64 letters, digits, `-` or `_`, and
 * not `main` in any case (the live item's name in `?version=`, which finds keys ignoring case).
 */
export function checkVersionKey(key: unknown): string {
  if (typeof key !== 'string' || !KEY_PATTERN.test(key))
    throw new InvalidPayloadError('"key" must be 1 to 64 letters, digits, "-" or "_"');
  if (key.toLowerCase() === MAIN_VERSION_KEY)
    throw new InvalidPayloadError(`"${MAIN_VERSION_KEY}" is a reserved version key`);
  return key;
}

/**
 * The svc_versions rule (collection-rules.ts): an item's version keys are unique ignoring case
 * on every database, as MariaDB's collation compares them (`Draft` beside `draft` was refused
 * there and taken by PostgreSQL and SQLite), for a new version and a renamed one alike
 * (Directus 10: UNPROCESSABLE_ENTITY naming the key). `id` is the version renamed, undefined
 * for a new one.
 */
export async function checkVersionKeyFree(
  trx: Knex.Transaction,
  data: Item,
  id: PrimaryKey | undefined,
): Promise<void> {
  const key = data['key'];
  if (typeof key !== 'string') return;
  const current =
    id === undefined
      ? undefined
      : await trx(VERSIONS_COLLECTION).where('id', id).first<Item | undefined>('collection', 'item');
  const collection = data['collection'] ?? current?.['collection'];
  const item = data['item'] ?? current?.['item'];
  if (typeof collection !== 'string' || typeof item !== 'string') return;
  // Keys are ASCII (KEY_PATTERN), which lower() folds alike on every database.
  const taken = await trx(VERSIONS_COLLECTION)
    .where({ collection, item })
    .whereRaw('lower(??) = ?', ['key', key.toLowerCase()])
    .modify((builder: Knex.QueryBuilder) => void (id === undefined ? builder : builder.whereNot('id', id)))
    .first<{ id: string } | undefined>('id');
  if (taken !== undefined) {
    throw new UnprocessableEntityError(
      `Version "${key}" already exists for item "${item}" in collection "${collection}"`,
    );
  }
}
