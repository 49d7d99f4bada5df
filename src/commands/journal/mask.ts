import type { CollectionOverview, FieldOverview } from '../../../catalog/overview/types.js';
import { MASK } from '../../query/shape/shape-value.js';
import type { Item } from '../types.js';

/** What a masked value reads as: the read side's definition, so revisions read like items. */
export { MASK };

/** Hash and `conceal` fields (svc_users.password, token, tfa_secret) never appear in clear. */
export function isMaskedField(field: FieldOverview): boolean {
  return field.type === 'hash' || field.special.includes('hash') || field.special.includes('conceal');
}

/** The item with masked fields replaced by {@link MASK} when set (null stays null). */
export function maskItem(collection: CollectionOverview, item: Item): Record<string, unknown> {
  const masked: Record<string, unknown> = { ...item };
  for (const [name, value] of Object.entries(item)) {
    const field = collection.fields[name];
    if (field !== undefined && value !== null && value !== undefined && isMaskedField(field)) masked[name] = MASK;
  }
  return masked;
}
