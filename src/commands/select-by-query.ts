import type { Knex } from 'knex';
import type { CollectionOverview } from '../../catalog/overview/types.js';
import { parseQuery, readItems } from '../query/index.js';
import { toPrimaryKey } from './primary-key.js';
import type { CommandContext, PrimaryKey, QueryObject } from './types.js';

/**
 * The keys of the items a write's `query` selects (filter, search,
 * sort, limit, offset, page; the default limit applies), read inside the write's
 * transaction with the caller's read access: what the caller cannot read, they cannot select.
 */
export async function selectByQuery(
  ctx: CommandContext,
  trx: Knex.Transaction,
  collection: CollectionOverview,
  raw: QueryObject,
): Promise<PrimaryKey[]> {
  const { aggregate: _aggregate, groupBy: _groupBy, meta: _meta, ...query } = parseQuery(raw);
  const items = await readItems(
    { db: trx, overview: ctx.overview, limits: ctx.readLimits },
    collection.collection,
    { ...query, fields: [collection.primary] },
    { accountability: ctx.accountability, access: ctx.readAccess },
  );
  return items
    .map((item) => toPrimaryKey(collection, item[collection.primary]))
    .filter((key): key is PrimaryKey => key !== undefined);
}
