import { requireCollection } from '../../catalog/overview/lookup.js';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import type { ReadAccess } from '../access/read-access.js';
import type { ItemMatcher } from '../access/write-permissions.js';
import { readItemsByKeys, type ReadContext } from '../query/index.js';

/**
 * The write side's {@link ItemMatcher}: a permission's item filter evaluated by the read side
 * (one statement) inside the write's transaction, so it sees the rows the write changed.
 */
export function itemMatcher(overview: SchemaOverview, limits: ReadContext['limits'], accountability: Accountability): ItemMatcher {
  return async (trx, collection, filter, keys) => {
    const primary = requireCollection(overview, collection).primary;
    // The filter is the permission as the administrator wrote it: every field may be used.
    const access: ReadAccess = { rowFilter: (c) => (c === collection ? filter : null), readableFields: () => '*' };
    const reader = { accountability: { ...accountability, admin: true }, access };
    const context: ReadContext = { db: trx, overview, limits: { ...limits, queryLimitMax: Infinity } };
    const found = await readItemsByKeys(context, collection, keys, { fields: [primary] }, reader);
    return found.length === keys.length;
  };
}
