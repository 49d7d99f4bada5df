import { ForbiddenError, UnprocessableEntityError } from '../../src/errors.js';
import type { CollectionOverview, FieldOverview, RelationOverview, SchemaOverview } from './types.js';

/**
 * What a field leads to, for readers and writers alike: m2o = this field holds the FK; o2m = an
 * alias listing the rows whose FK
 * points here (the first hop of m2m and m2a too: the junction row is always in the path);
 * a2o = the item column of a many-to-any junction, pointing into one of `allowed`.
 */
export type FieldRelation =
  | { readonly kind: 'm2o'; readonly relation: RelationOverview; readonly related: string }
  | { readonly kind: 'o2m'; readonly relation: RelationOverview; readonly related: string }
  | {
      readonly kind: 'a2o';
      readonly relation: RelationOverview;
      readonly allowed: readonly string[];
      readonly collectionField: string;
    };

/**
 * Whether `collection` is a folder: a svc_collections row without a table, what
 * `POST /collections` without `schema` makes, as in Directus 10.
 */
export function isFolder(overview: SchemaOverview, collection: string): boolean {
  if (Object.hasOwn(overview.collections, collection)) return false;
  return (overview.folders ?? []).some((folder) => folder['collection'] === collection);
}

/**
 * The collection, for administrators' item and field requests. A folder is 422
 * UNPROCESSABLE_ENTITY saying what it is and how to get a table: an administrator sees every
 * collection anyway (GET /collections), so nothing is revealed, and a 403 would tell the one
 * caller who may do everything that it may not (Directus 10 answers 403 here).
 */
export function requireTable(overview: SchemaOverview, collection: string): CollectionOverview {
  if (isFolder(overview, collection)) {
    throw new UnprocessableEntityError(
      `${collection} is a folder (a collection without a table): delete it and create it again with "schema": {} to store items and fields`,
    );
  }
  return requireCollection(overview, collection);
}

/** The collection, or FORBIDDEN (spec, Errors, rule 1: existence is never revealed). */
export function requireCollection(overview: SchemaOverview, collection: string): CollectionOverview {
  // Own keys only: names such as `constructor` or `__proto__` come from requests.
  const found = Object.hasOwn(overview.collections, collection) ? overview.collections[collection] : undefined;
  if (found === undefined) throw new ForbiddenError();
  return found;
}

export function findField(overview: SchemaOverview, collection: string, field: string): FieldOverview | undefined {
  const fields = Object.hasOwn(overview.collections, collection) ? overview.collections[collection]?.fields : undefined;
  return fields !== undefined && Object.hasOwn(fields, field) ? fields[field] : undefined;
}

/**
 * What `make` works out for one collection of an overview, worked out once and kept in `memo`
 * with the overview (an overview is never changed once made, and its memo goes with it).
 */
export function oncePerCollection<T>(
  memo: WeakMap<SchemaOverview, Map<string, T>>,
  overview: SchemaOverview,
  collection: string,
  make: () => T,
): T {
  let known = memo.get(overview);
  if (known === undefined) memo.set(overview, (known = new Map<string, T>()));
  if (known.has(collection)) return known.get(collection) as T;
  const made = make();
  known.set(collection, made);
  return made;
}

/**
 * The relations of each overview's fields, worked out at the first lookup: writes and reads ask
 * for every field of every item, and an overview is never changed once made.
 */
const relationsByField = new WeakMap<readonly RelationOverview[], Map<string, Map<string, FieldRelation | null>>>();

/** The relation behind `collection.field`, or undefined for a plain field. */
export function getFieldRelation(
  overview: SchemaOverview,
  collection: string,
  field: string,
): FieldRelation | undefined {
  const known = relationsByField.get(overview.relations)?.get(collection)?.get(field);
  if (known !== undefined) return known ?? undefined;
  const found = findFieldRelation(overview.relations, collection, field);
  // Names that are no field (they may come from requests) are not kept: the memory stays bounded.
  if (findField(overview, collection, field) === undefined) return found;
  let byCollection = relationsByField.get(overview.relations);
  if (byCollection === undefined)
    relationsByField.set(overview.relations, (byCollection = new Map<string, Map<string, FieldRelation | null>>()));
  let byField = byCollection.get(collection);
  if (byField === undefined) byCollection.set(collection, (byField = new Map<string, FieldRelation | null>()));
  byField.set(field, found ?? null);
  return found;
}

function findFieldRelation(
  relations: readonly RelationOverview[],
  collection: string,
  field: string,
): FieldRelation | undefined {
  for (const relation of relations) {
    if (relation.collection === collection && relation.field === field) {
      if (relation.relatedCollection !== null) {
        return { kind: 'm2o', relation, related: relation.relatedCollection };
      }
      const allowed = relation.meta?.oneAllowedCollections;
      const collectionField = relation.meta?.oneCollectionField;
      if (allowed != null && collectionField != null) {
        return { kind: 'a2o', relation, allowed, collectionField };
      }
    }
    if (relation.relatedCollection === collection && relation.meta?.oneField === field) {
      return { kind: 'o2m', relation, related: relation.collection };
    }
  }
  return undefined;
}
