import type { CollectionOverview, FieldOverview } from '../../../catalog/overview/types.js';
import { findField, getFieldRelation, requireCollection } from '../../../catalog/overview/lookup.js';
import { canReadCollection, canReadField } from '../../access/read-access.js';
import { ForbiddenError, InvalidQueryError, invariant } from '../../errors.js';
import type { BuildContext } from './build-context.js';
import type { CollectionRef, RelationRef } from './nodes.js';

/** The readable collection, or FORBIDDEN (unknown and unreadable look the same). */
export function readableCollection(ctx: BuildContext, collection: string): CollectionOverview {
  const found = requireCollection(ctx.overview, collection);
  if (!canReadCollection(ctx.access, collection)) throw new ForbiddenError();
  return found;
}

export function collectionRef(collection: CollectionOverview): CollectionRef {
  const primary = collection.fields[collection.primary];
  invariant(primary !== undefined, `primary key of ${collection.collection} is in the overview`);
  return { collection: collection.collection, primary: collection.primary, primaryType: primary.type };
}

export function refOf(ctx: BuildContext, collection: string): CollectionRef {
  return collectionRef(requireCollection(ctx.overview, collection));
}

/**
 * The relation behind `collection.field` as the AST needs it, resolved through the one
 * relation resolver of the catalogue (getFieldRelation). a2o yields one ref per allowed
 * collection.
 */
export type ResolvedRelation =
  | (RelationRef & { readonly kind: 'm2o' })
  | (RelationRef & { readonly kind: 'o2m' })
  | {
      readonly kind: 'a2o';
      readonly column: string;
      readonly collectionColumn: string;
      readonly allowed: readonly string[];
    };

export function resolveRelation(
  ctx: BuildContext,
  collection: CollectionOverview,
  field: string,
): ResolvedRelation | undefined {
  const relation = getFieldRelation(ctx.overview, collection.collection, field);
  if (relation === undefined) return undefined;
  switch (relation.kind) {
    case 'm2o':
      return { kind: 'm2o', column: field, target: refOf(ctx, relation.related) };
    case 'o2m':
      return {
        kind: 'o2m',
        foreignKey: relation.relation.field,
        parentKey: collection.primary,
        target: refOf(ctx, relation.related),
      };
    case 'a2o':
      return {
        kind: 'a2o',
        column: field,
        collectionColumn: relation.collectionField,
        allowed: relation.allowed.filter((c) => ctx.overview.collections[c] !== undefined),
      };
  }
}

export function a2oRef(
  ctx: BuildContext,
  relation: ResolvedRelation & { kind: 'a2o' },
  target: string,
): RelationRef & { kind: 'a2o' } {
  return {
    kind: 'a2o',
    column: relation.column,
    collectionColumn: relation.collectionColumn,
    target: refOf(ctx, target),
  };
}

/**
 * A field named in a filter, sort, search, aggregate or explicitly in `fields`: unknown is
 * FORBIDDEN for non-admins and `unknownReason` for admins; not
 * readable is FORBIDDEN.
 */
export function requireField(
  ctx: BuildContext,
  collection: CollectionOverview,
  name: string,
  unknownReason: string,
): FieldOverview {
  const field = findField(ctx.overview, collection.collection, name);
  if (field === undefined) {
    if (!ctx.accountability.admin) throw new ForbiddenError();
    throw new InvalidQueryError(unknownReason);
  }
  if (!canReadField(ctx.access, collection.collection, name)) throw new ForbiddenError();
  return field;
}

/** `year(published)` → ['year', 'published']; plain names → undefined. */
export function parseFunctionKey(key: string): { readonly fn: string; readonly field: string } | undefined {
  const match = /^(\w+)\(([^()]+)\)$/.exec(key);
  if (match === null) return undefined;
  const [, fn, field] = match;
  return fn === undefined || field === undefined ? undefined : { fn, field: field.trim() };
}

/** The output key of a function field: `published_year`, `comments_count`. */
export function functionKey(fn: string, field: string): string {
  return `${field}_${fn}`;
}

/** Fields with masked values: hash type, hash/conceal special. */
export function isMasked(field: FieldOverview): boolean {
  return field.type === 'hash' || field.special.includes('hash') || field.special.includes('conceal');
}

/** Sorting, grouping or aggregating a masked field would reveal its values: FORBIDDEN. */
export function requireUnmasked(field: FieldOverview): FieldOverview {
  if (isMasked(field)) throw new ForbiddenError();
  return field;
}
