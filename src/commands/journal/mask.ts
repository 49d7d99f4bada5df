import type { CollectionOverview, FieldOverview } from '../../../catalog/overview/types.js';
import type { Item } from '../types.js';

/** What a masked value reads as (reference/system-collections.md, "Masked and hidden values"). */
export const MASK = '**********';

/** svc_users columns masked even though their type is a plain string. */
const MASKED_SYSTEM_FIELDS: Readonly<Record<string, readonly string[]>> = {
  svc_users: ['password', 'token', 'tfa_secret'],
};

/** Hash fields, `conceal` fields and the secrets of svc_users never appear in clear. */
export function isMaskedField(collection: CollectionOverview, field: FieldOverview): boolean {
  return (
    field.type === 'hash' ||
    field.special.includes('hash') ||
    field.special.includes('conceal') ||
    (MASKED_SYSTEM_FIELDS[collection.collection]?.includes(field.field) ?? false)
  );
}

/** The item with masked fields replaced by {@link MASK} when set (null stays null). */
export function maskItem(collection: CollectionOverview, item: Item): Record<string, unknown> {
  const masked: Record<string, unknown> = { ...item };
  for (const [name, value] of Object.entries(item)) {
    const field = collection.fields[name];
    if (field !== undefined && value !== null && value !== undefined && isMaskedField(collection, field)) masked[name] = MASK;
  }
  return masked;
}
