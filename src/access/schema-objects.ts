import {
  findCollectionObject,
  listCollectionObjects,
  listFieldObjects,
  toFieldObject,
  toRelationObject,
  type CollectionObject,
  type FieldObject,
  type RelationObject,
} from '../../catalog/overview/api-objects.js';
import { findField, isFolder, requireCollection } from '../../catalog/overview/lookup.js';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import { ForbiddenError } from '../errors.js';
import type { ReadAccess } from './read-access.js';
import { schemaReadAccess } from './schema-access.js';

/**
 * The collection, field and relation objects one caller may read, the one implementation behind
 * REST /collections, /fields, /relations and the
 * GraphQL system roots of the same names. What is hidden, unknown or in a collection the
 * caller may not read is FORBIDDEN (spec, Errors, rule 1).
 */
export interface SchemaObjects {
  collections(): CollectionObject[];
  collection(collection: string): CollectionObject;
  /** The fields of every readable collection. */
  fields(): FieldObject[];
  fieldsIn(collection: string): FieldObject[];
  field(collection: string, field: string): FieldObject;
  relations(): RelationObject[];
  relationsIn(collection: string): RelationObject[];
  relation(collection: string, field: string): RelationObject;
}

export function readableSchemaObjects(overview: SchemaOverview, access: ReadAccess): SchemaObjects {
  const canRead = schemaReadAccess(access);
  const requireReadable = (collection: string) => {
    if (!canRead.collection(collection)) throw new ForbiddenError();
    return requireCollection(overview, collection);
  };
  const fieldsOf = (collection: string) =>
    listFieldObjects(overview, requireCollection(overview, collection)).filter((f) =>
      canRead.field(collection, f.field),
    );
  const readableRelations = () => overview.relations.filter((r) => canRead.relation(r));
  // As in Directus 10: who may not read svc_collections (no role, a role without app access
  // and without an own permission on it) is refused the list rather than shown an empty one.
  const requireCollectionsReadable = () => {
    if (!canRead.collection('svc_collections')) throw new ForbiddenError();
  };
  return {
    collections: () => {
      requireCollectionsReadable();
      const all = listCollectionObjects(overview);
      const shown = withGroups(all, (c) => canRead.collection(c.collection));
      return all.filter((c) => shown.has(c.collection));
    },
    collection: (collection) => {
      requireCollectionsReadable();
      const found = findCollectionObject(overview, collection);
      if (found === undefined || !canRead.collection(collection)) throw new ForbiddenError();
      return found;
    },
    fields: () =>
      Object.values(overview.collections)
        .filter((c) => canRead.collection(c.collection))
        .flatMap((c) => fieldsOf(c.collection)),
    fieldsIn: (collection) => {
      // A folder has no fields (nor relations): who may see it is told so, not refused.
      if (isFolder(overview, collection) && canRead.collection(collection)) return [];
      requireReadable(collection);
      return fieldsOf(collection);
    },
    field: (collection, field) => {
      requireReadable(collection);
      const found = findField(overview, collection, field);
      if (found === undefined || !canRead.field(collection, field)) throw new ForbiddenError();
      return toFieldObject(overview, collection, found);
    },
    relations: () => readableRelations().map((r) => toRelationObject(overview, r)),
    relationsIn: (collection) => {
      if (isFolder(overview, collection) && canRead.collection(collection)) return [];
      const { collection: name } = requireReadable(collection);
      return readableRelations()
        .filter((r) => r.collection === name)
        .map((r) => toRelationObject(overview, r));
    },
    relation: (collection, field) => {
      requireReadable(collection);
      const found = readableRelations().find((r) => r.collection === collection && r.field === field);
      if (found === undefined) throw new ForbiddenError();
      return toRelationObject(overview, found);
    },
  };
}

/**
 * The names of the readable collections and of the groups (folders or collections) they sit
 * in, up to the top: a caller sees the folder tree that leads to what it may read.
 */
function withGroups(all: readonly CollectionObject[], isReadable: (c: CollectionObject) => boolean): Set<string> {
  const groupOf = new Map(all.map((c) => [c.collection, c.meta?.['group']]));
  const shown = new Set<string>();
  for (const c of all) {
    if (!isReadable(c)) continue;
    let name: unknown = c.collection;
    while (typeof name === 'string' && !shown.has(name)) {
      shown.add(name);
      name = groupOf.get(name);
    }
  }
  return shown;
}
