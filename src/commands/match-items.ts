import type { Knex } from 'knex';
import { requireCollection } from '../../catalog/overview/lookup.js';
import type { FilterObject, SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import type { ReadAccess } from '../access/read-access.js';
import type { ItemMatcher } from '../access/write-permissions.js';
import { readItemsByKeys, type ReadContext } from '../query/index.js';

/**
 * The write side's {@link ItemMatcher}: a permission's item filter evaluated by the read side
 * (one statement) inside the write's transaction, so it sees the rows the write changed.
 */
export function itemMatcher(
  overview: SchemaOverview,
  limits: ReadContext['limits'],
  accountability: Accountability,
): ItemMatcher {
  return (trx, collection, filter, keys) =>
    itemsMatch({ db: trx, overview, limits, accountability }, collection, filter, keys);
}

/** Whether every one of `keys` names a row of `collection` that `filter` (null: any row) lets through. */
export async function itemsMatch(
  ctx: {
    readonly db: Knex;
    readonly overview: SchemaOverview;
    readonly limits: ReadContext['limits'];
    readonly accountability: Accountability;
  },
  collection: string,
  filter: FilterObject | null,
  keys: readonly (string | number)[],
): Promise<boolean> {
  const primary = requireCollection(ctx.overview, collection).primary;
  // The filter is the permission as the administrator wrote it: every field may be used.
  const access: ReadAccess = { rowFilter: (c) => (c === collection ? filter : null), readableFields: () => '*' };
  const reader = { accountability: { ...ctx.accountability, admin: true }, access };
  const context: ReadContext = {
    db: ctx.db,
    overview: ctx.overview,
    limits: { ...ctx.limits, queryLimitMax: Infinity },
  };
  const found = await readItemsByKeys(context, collection, keys, { fields: [primary] }, reader);
  return found.length === keys.length;
}
