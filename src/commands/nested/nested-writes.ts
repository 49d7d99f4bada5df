import { getFieldRelation } from '../../../catalog/overview/lookup.js';
import type { CollectionOverview } from '../../../catalog/overview/types.js';
import type { RevisionRef } from '../journal/journal.js';
import type { Item, PrimaryKey } from '../types.js';
import { writeManyToAny } from './many-to-any.js';
import { writeManyToOne } from './many-to-one.js';
import { writeOneToMany } from './one-to-many.js';
import { type NestedContext } from './types.js';
import { isPlainObject } from '../../is-plain-object.js';

/**
 * Step 3 of commands/README.md: many-to-one and many-to-any values that are objects are
 * written first; returns `data` with their keys in their place.
 */
export async function writeRelatedFirst(
  ctx: NestedContext,
  collection: CollectionOverview,
  data: Item,
  children: RevisionRef[],
): Promise<Item> {
  const values: Record<string, unknown> = { ...data };
  for (const name of Object.keys(data)) {
    const relation = getFieldRelation(ctx.overview, collection.collection, name);
    if (relation?.kind === 'a2o') values[name] = await writeManyToAny(ctx, collection, name, relation, data, children);
    else if (relation?.kind === 'm2o') values[name] = await writeManyToOne(ctx, relation, data[name], children);
  }
  return values;
}

/** Step 5: the one-to-many aliases of the payload, after the row `key`; returns the names written. */
export async function writeRelatedAfter(
  ctx: NestedContext,
  collection: CollectionOverview,
  key: PrimaryKey,
  data: Item,
  children: RevisionRef[],
): Promise<string[]> {
  const written: string[] = [];
  for (const [name, value] of Object.entries(data)) {
    const relation = getFieldRelation(ctx.overview, collection.collection, name);
    if (relation?.kind !== 'o2m' || value === undefined) continue;
    await writeOneToMany(ctx, relation, key, value, children, name);
    written.push(name);
  }
  return written;
}

/** Relational values the item writes itself: one-to-many payloads, many-to-one (and -any) objects. */
export function hasNestedWrites(
  ctx: Pick<NestedContext, 'overview'>,
  collection: CollectionOverview,
  data: Item,
): boolean {
  for (const name in data) {
    const kind = getFieldRelation(ctx.overview, collection.collection, name)?.kind;
    if (kind === 'o2m' ? data[name] !== undefined : kind !== undefined && isPlainObject(data[name])) return true;
  }
  return false;
}

/** Many-to-one (or many-to-any) values that are objects: related items the payload writes first. */
export function hasRelatedObjects(
  ctx: Pick<NestedContext, 'overview'>,
  collection: CollectionOverview,
  data: Item,
): boolean {
  return Object.entries(data).some(([name, value]) => {
    const kind = getFieldRelation(ctx.overview, collection.collection, name)?.kind;
    return (kind === 'm2o' || kind === 'a2o') && isPlainObject(value);
  });
}
