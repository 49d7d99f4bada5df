import type { RelationOverview } from '../../catalog/overview/types.js';
import { canReadCollection, canReadField, type ReadAccess } from './read-access.js';

/** Which collection, field and relation objects the schema routes show the caller. */
export interface SchemaReadAccess {
  collection(collection: string): boolean;
  field(collection: string, field: string): boolean;
  relation(relation: RelationOverview): boolean;
}

/**
 * Schema routes: schema reads need read permission on the collection
 * (admins see everything). A field shows when it is readable; a relation when both ends
 * are (its field, and the related collection and its alias field, or every collection a
 * many-to-any may point into), so the schema never names what the items hide.
 */
export function schemaReadAccess(access: ReadAccess): SchemaReadAccess {
  const field = (collection: string, name: string) => canReadField(access, collection, name);
  return {
    collection: (collection) => canReadCollection(access, collection),
    field,
    relation: (relation) => {
      if (!field(relation.collection, relation.field)) return false;
      const related = relation.relatedCollection;
      if (related !== null) {
        const oneField = relation.meta?.oneField ?? null;
        return canReadCollection(access, related) && (oneField === null || field(related, oneField));
      }
      return (relation.meta?.oneAllowedCollections ?? []).every((c) => canReadCollection(access, c));
    },
  };
}
