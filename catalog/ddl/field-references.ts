import type { RelationOverview, SchemaOverview } from '../overview/types.js';
import { dropForeignKey, type ForeignKey } from './foreign-keys.js';
import type { SchemaChange } from './schema-change.js';

/**
 * Everything that refers to `collection.field` apart from the column itself: its FK
 * constraint and relation row (and the alias showing the relation's other side), the
 * relations that use it as their o2m alias, sort field and svc_fields row.
 */
export async function forgetField(
  change: SchemaChange,
  overview: SchemaOverview,
  collection: string,
  field: string,
): Promise<void> {
  const own = overview.relations.find((r) => r.collection === collection && r.field === field);
  if (own !== undefined) await forgetRelation(change, own);
  await change.data(async (trx) => {
    await trx('svc_relations').where({ one_collection: collection, one_field: field }).update({ one_field: null });
    await trx('svc_collections').where({ collection, sort_field: field }).update({ sort_field: null });
    await trx('svc_fields').where({ collection, field }).delete();
  });
}

/** Drops a relation's FK constraint, its svc_relations row and its o2m alias field. */
export async function forgetRelation(change: SchemaChange, relation: RelationOverview): Promise<void> {
  const key = foreignKeyOf(relation);
  if (key !== undefined) await dropForeignKey(change, key);
  await change.data(async (trx) => {
    await trx('svc_relations').where({ many_collection: relation.collection, many_field: relation.field }).delete();
    const oneField = relation.meta?.oneField;
    if (relation.relatedCollection !== null && oneField != null) {
      await trx('svc_fields').where({ collection: relation.relatedCollection, field: oneField }).delete();
    }
  });
}

export function foreignKeyOf(relation: RelationOverview): ForeignKey | undefined {
  if (relation.schema === null || relation.relatedCollection === null) return undefined;
  return {
    collection: relation.collection,
    field: relation.field,
    relatedCollection: relation.relatedCollection,
    foreignColumn: relation.schema.foreignKeyColumn,
    onDelete: relation.schema.onDelete ?? 'NO ACTION',
    constraintName: relation.schema.constraintName,
  };
}
