import type { Knex } from 'knex';
import { requireCollection } from '../../catalog/overview/lookup.js';
import type { CollectionOverview, SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import { canReadCollection, type ReadAccess } from '../access/read-access.js';
import { ForbiddenError } from '../errors.js';
import { readItemByKey, type ReadContext } from '../query/index.js';
import { toPrimaryKey } from './primary-key.js';
import type { PrimaryKey } from './types.js';

/** What the check reads with: the caller's read access, inside the write's transaction. */
export interface CommentTargetContext {
  readonly overview: SchemaOverview;
  readonly accountability: Accountability;
  readonly readAccess: ReadAccess;
  readonly readLimits: ReadContext['limits'];
}

/**
 * The item a comment is about: its collection
 * exists and the caller may read the item. Otherwise FORBIDDEN, decided before anything else
 * about the item is looked at, so that a hidden item, a missing one, a key no row can have
 * and an unknown or forbidden collection read the same (spec, Errors, rule 1).
 */
export async function requireCommentTarget(
  trx: Knex.Transaction,
  ctx: CommentTargetContext,
  collectionName: unknown,
  rawItem: unknown,
): Promise<{ readonly collection: CollectionOverview; readonly item: PrimaryKey }> {
  if (typeof collectionName !== 'string') throw new ForbiddenError();
  const collection = requireCollection(ctx.overview, collectionName);
  if (!canReadCollection(ctx.readAccess, collection.collection)) throw new ForbiddenError();
  const item = toPrimaryKey(collection, rawItem);
  if (item === undefined) throw new ForbiddenError();
  await readItemByKey(
    { db: trx, overview: ctx.overview, limits: ctx.readLimits },
    collection.collection,
    item,
    { fields: [collection.primary] },
    {
      accountability: ctx.accountability,
      access: ctx.readAccess,
    },
  );
  return { collection, item };
}
