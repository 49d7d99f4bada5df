import type { FieldRelation } from '../../../catalog/overview/lookup.js';
import type { RevisionRef } from '../journal/journal.js';
import { collectChild, type NestedContext } from './types.js';
import { isPlainObject } from '../../is-plain-object.js';

type ManyToOne = Extract<FieldRelation, { kind: 'm2o' }>;

/**
 * m2o: an object value is the related item, written before the row
 * that points at it (updated when its key exists, created otherwise); the field gets its key.
 * A key or null is the row's own value and stays as it is.
 */
export async function writeManyToOne(
  ctx: NestedContext,
  relation: ManyToOne,
  value: unknown,
  children: RevisionRef[],
): Promise<unknown> {
  if (!isPlainObject(value)) return value;
  return collectChild(children, await ctx.writer.upsert(relation.related, value));
}
