import type { Knex } from 'knex';
import { getFieldRelation, oncePerCollection } from '../../catalog/overview/lookup.js';
import type { CollectionOverview, SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import { FULL_READ_ACCESS } from '../access/read-access.js';
import { deepFreeze, readItemsByKeys, type Query, type ReadContext, type Reader } from '../query/index.js';
import type { Item, PrimaryKey } from './types.js';

export interface SnapshotContext {
  readonly overview: SchemaOverview;
  readonly accountability: Accountability;
  readonly readLimits: ReadContext['limits'];
}

/**
 * The item as the read side shows it (masked, typed, one-to-many aliases as arrays of the
 * keys of their rows, none cut off by the nested limit), read inside the transaction with
 * full access: a revision records the whole item whoever wrote it.
 */
export async function readSnapshot(
  trx: Knex.Transaction,
  ctx: SnapshotContext,
  collection: CollectionOverview,
  key: PrimaryKey,
  fields: '*' | readonly string[],
): Promise<Item> {
  const [item] = await readSnapshots(trx, ctx, collection, [key], fields);
  return item ?? {};
}

/** {@link readSnapshot} of many items in one read; in the order of `keys`, all of which exist. */
export async function readSnapshots(
  trx: Knex.Transaction,
  ctx: SnapshotContext,
  collection: CollectionOverview,
  keys: readonly PrimaryKey[],
  fields: '*' | readonly string[],
): Promise<Item[]> {
  if (fields.length === 0) return keys.map(() => ({}));
  const { context, query, reader } = snapshotRead(trx, ctx, collection, fields);
  return readItemsByKeys(context, collection.collection, keys, query, reader);
}

/** How a snapshot is read: full access, every one-to-many alias whole, no query limit. */
export function snapshotRead(
  db: Knex | Knex.Transaction,
  ctx: SnapshotContext,
  collection: CollectionOverview,
  fields: '*' | readonly string[],
): { readonly context: ReadContext; readonly query: Query; readonly reader: Reader } {
  const query =
    fields === '*' ? wholeItemQuery(ctx.overview, collection) : snapshotQuery(ctx.overview, collection, fields);
  const context: ReadContext = {
    db,
    overview: ctx.overview,
    limits: { ...ctx.readLimits, queryLimitMax: Infinity },
  };
  return { context, query, reader: { accountability: ctx.accountability, access: FULL_READ_ACCESS } };
}

/** The snapshot query of `fields`: each one-to-many alias among them read whole. */
function snapshotQuery(overview: SchemaOverview, collection: CollectionOverview, fields: readonly string[]): Query {
  const aliases = fields.filter((name) => getFieldRelation(overview, collection.collection, name)?.kind === 'o2m');
  return {
    fields: [...fields],
    deep: Object.fromEntries(aliases.map((alias) => [alias, { limit: -1 }])),
  };
}

/** Per overview, each collection's snapshot query of the whole item (`*`), made once (issue 43). */
const wholeItemQueries = new WeakMap<SchemaOverview, Map<string, Query>>();

/** The snapshot query of the whole item, frozen: every snapshot read of the collection shares it. */
function wholeItemQuery(overview: SchemaOverview, collection: CollectionOverview): Query {
  return oncePerCollection(wholeItemQueries, overview, collection.collection, () =>
    deepFreeze({ ...snapshotQuery(overview, collection, Object.keys(collection.fields)), fields: ['*'] }),
  );
}
