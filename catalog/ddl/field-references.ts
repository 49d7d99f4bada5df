import { InvalidPayloadError } from '../../src/errors.js';
import type { FieldType, RelationOverview, SchemaOverview } from '../overview/types.js';
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

/**
 * INVALID_PAYLOAD naming the relation when `collection.field` is to become `type` and a
 * relation uses the field: as its foreign key (m2o, a2o), as the collection names of an a2o,
 * or as the key a foreign key refers to. Allowed only when the other end is of that type
 * already (a foreign key has its key's type): PostgreSQL and MariaDB refused the change with
 * a 500 (the constraint), SQLite made it and left a foreign key of another type than its key.
 */
export function assertTypeKeepsRelations(
  overview: SchemaOverview,
  collection: string,
  field: string,
  type: FieldType,
): void {
  const typeOf = (c: string, f: string | undefined) =>
    f === undefined ? undefined : overview.collections[c]?.fields[f]?.type;
  for (const relation of overview.relations) {
    const related = relation.relatedCollection;
    const key =
      related === null ? undefined : (relation.schema?.foreignKeyColumn ?? overview.collections[related]?.primary);
    const name =
      related === null
        ? `relation "${relation.collection}.${relation.field}" (many-to-any)`
        : `relation "${relation.collection}.${relation.field}" to "${related}"`;
    let uses: string;
    if (relation.collection === collection && relation.field === field) {
      if (related === null) {
        uses = `${name} uses it as its foreign key`;
      } else {
        const keyType = typeOf(related, key);
        if (keyType === type) continue;
        uses = `${name} uses it as its foreign key, and "${related}.${String(key)}" is of type "${String(keyType)}"`;
      }
    } else if (relation.collection === collection && relation.meta?.oneCollectionField === field) {
      uses = `${name} uses it for the collection of each item`;
    } else if (related === collection && key === field) {
      const foreignType = typeOf(relation.collection, relation.field);
      if (foreignType === type) continue;
      uses = `${name} refers to it, and its foreign key "${relation.collection}.${relation.field}" is of type "${String(foreignType)}"`;
    } else {
      continue;
    }
    throw new InvalidPayloadError(
      `Field "${field}" of collection "${collection}" can't be altered to "${type}": ${uses}`,
    );
  }
}
