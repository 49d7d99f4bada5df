import { findField, requireCollection } from '../../../catalog/overview/lookup.js';
import type { CollectionOverview } from '../../../catalog/overview/types.js';
import { FULL_READ_ACCESS, canReadCollection, canReadField } from '../../access/read-access.js';
import { ForbiddenError } from '../../errors.js';
import { isMasked } from '../ast/resolve.js';
import { readItemsByKeys } from '../read-items.js';
import type { ReadContext, Reader } from '../read-context.js';
import { MASK } from '../shape/shape-value.js';
import { isPlainObject } from '../../is-plain-object.js';

type Values = Readonly<Record<string, unknown>>;

/**
 * History is shown to callers who may read the item now (issue 18, Permissions): the live
 * item within their read permission, or, once deleted, the collection without a row filter
 * (no row is left to test the filter on) when the journal knows it. Anything else is
 * FORBIDDEN, like a missing item.
 */
export async function requireHistoryReadable(
  ctx: ReadContext,
  reader: Reader,
  collection: string,
  key: string,
): Promise<CollectionOverview> {
  const target = requireCollection(ctx.overview, collection);
  if (!canReadCollection(reader.access, collection)) throw new ForbiddenError();
  const fields = { fields: [target.primary] };
  const [readable] = await readItemsByKeys(ctx, collection, [key], fields, reader);
  if (readable !== undefined) return target;
  const [live] = await readItemsByKeys(ctx, collection, [key], fields, { ...reader, access: FULL_READ_ACCESS });
  if (live !== undefined || reader.access.rowFilter(collection) !== null) throw new ForbiddenError();
  // A key that never had an item (no journal row) is as missing as ever. Compared here, as
  // keys are everywhere else: MariaDB's collation would match `key` to the journal of `Key`.
  const stored = storedKey(target, key);
  const journal = await ctx
    .db('svc_activity')
    .where({ collection, item: stored })
    .distinct<{ item: unknown }[]>('item');
  if (!journal.some((row) => row.item === stored)) throw new ForbiddenError();
  return target;
}

/** Whether the caller may see `field` of the collection now: it still exists and is readable. */
export function isVisibleField(ctx: ReadContext, reader: Reader, collection: string, field: string): boolean {
  return findField(ctx.overview, collection, field) !== undefined && canReadField(reader.access, collection, field);
}

/**
 * A revision's values as the caller may see them now: fields the collection no longer has
 * or the caller may not read are left out; masked fields (hash, conceal) read as the mask.
 */
export function visibleValues(
  ctx: ReadContext,
  reader: Reader,
  collection: string,
  values: Values,
): Record<string, unknown> {
  const visible: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const field = findField(ctx.overview, collection, name);
    if (field === undefined || !canReadField(reader.access, collection, name)) continue;
    visible[name] = isMasked(field) && value !== null && value !== undefined ? MASK : value;
  }
  return visible;
}

/** A revision's `data` / `delta` column as an object (JSON text on some dialects). */
export function revisionValues(value: unknown): Values {
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  return isPlainObject(parsed) ? parsed : {};
}

/** The item key as svc_revisions/svc_activity store it (uuids in lower case). */
export function storedKey(collection: CollectionOverview, key: string): string {
  return collection.fields[collection.primary]?.type === 'uuid' ? key.toLowerCase() : key;
}
