import type { FieldRelation } from '../../../catalog/overview/lookup.js';
import type { CollectionOverview } from '../../../catalog/overview/types.js';
import { InvalidPayloadError } from '../../errors.js';
import type { RevisionRef } from '../journal/journal.js';
import type { Item } from '../types.js';
import { collectChild, type NestedContext } from './types.js';
import { isPlainObject } from '../../is-plain-object.js';

type ManyToAny = Extract<FieldRelation, { kind: 'a2o' }>;

/**
 * m2a: the item field of a junction row names an item of the
 * collection in its collection field, which must be one the relation allows; an object value
 * is that item, written first (upserted), and the field gets its key as text.
 */
export async function writeManyToAny(
  ctx: NestedContext,
  collection: CollectionOverview,
  field: string,
  relation: ManyToAny,
  data: Item,
  children: RevisionRef[],
): Promise<unknown> {
  const value = data[field];
  if (value === null || value === undefined) return value;
  const target = data[relation.collectionField];
  if (typeof target !== 'string' || !relation.allowed.includes(target)) {
    throw new InvalidPayloadError(
      `Collection "${String(target)}" isn't allowed for field "${field}" in collection "${collection.collection}"`,
    );
  }
  if (!isPlainObject(value)) return value;
  return String(collectChild(children, await ctx.writer.upsert(target, value)));
}
