import type { CollectionOverview, FieldOverview, RelationOverview, SchemaOverview } from './types.js';

/**
 * The overview as the schema routes (and GraphQL's system scope) show it: collection, field
 * and relation objects, snake_case keys as in the API.
 */
export interface CollectionObject {
  readonly collection: string;
  readonly meta: Readonly<Record<string, unknown>> | null;
  readonly schema: { readonly name: string; readonly comment: string | null } | null;
}

export interface FieldObject {
  readonly collection: string;
  readonly field: string;
  readonly type: string;
  readonly meta: Readonly<Record<string, unknown>> | null;
  readonly schema: Readonly<Record<string, unknown>> | null;
}

export interface RelationObject {
  readonly collection: string;
  readonly field: string;
  readonly related_collection: string | null;
  readonly schema: Readonly<Record<string, unknown>> | null;
  readonly meta: Readonly<Record<string, unknown>> | null;
}

/** Every collection, tables and folders, by name. */
export function listCollectionObjects(overview: SchemaOverview): CollectionObject[] {
  const tables = Object.values(overview.collections).map(toCollectionObject);
  const folders = (overview.folders ?? []).map((meta): CollectionObject => ({
    collection: String(meta['collection']),
    meta,
    schema: null,
  }));
  return [...tables, ...folders].sort((a, b) => compare(a.collection, b.collection));
}

/** One collection or folder by name; undefined when there is none. */
export function findCollectionObject(overview: SchemaOverview, collection: string): CollectionObject | undefined {
  const table = overview.collections[collection];
  if (table !== undefined) return toCollectionObject(table);
  const folder = (overview.folders ?? []).find((f) => f['collection'] === collection);
  return folder === undefined ? undefined : { collection, meta: folder, schema: null };
}

function toCollectionObject(collection: CollectionOverview): CollectionObject {
  return {
    collection: collection.collection,
    meta: collection.meta,
    schema: { name: collection.collection, comment: collection.comment },
  };
}

/** The fields of one collection, in the overview's order (meta.sort, then name). */
export function listFieldObjects(overview: SchemaOverview, collection: CollectionOverview): FieldObject[] {
  return Object.values(collection.fields).map((f) => toFieldObject(overview, collection.collection, f));
}

export function toFieldObject(overview: SchemaOverview, collection: string, field: FieldOverview): FieldObject {
  if (field.isAlias) return { collection, field: field.field, type: field.type, meta: field.meta, schema: null };
  const relation = overview.relations.find((r) => r.collection === collection && r.field === field.field);
  const foreignKey = relation?.schema == null ? null : relation;
  return {
    collection,
    field: field.field,
    type: field.type,
    meta: field.meta,
    schema: {
      name: field.field,
      table: collection,
      data_type: field.dbType,
      default_value: apiDefault(field.defaultValue),
      max_length: field.maxLength,
      numeric_precision: field.precision,
      numeric_scale: field.scale,
      is_nullable: field.nullable,
      is_unique: field.isUnique,
      is_indexed: field.isIndexed,
      is_primary_key: field.isPrimaryKey,
      is_generated: field.isGenerated && !field.hasAutoIncrement,
      generation_expression: field.generationExpression,
      has_auto_increment: field.hasAutoIncrement,
      foreign_key_table: foreignKey?.relatedCollection ?? null,
      foreign_key_column: foreignKey?.schema?.foreignKeyColumn ?? null,
      comment: field.comment,
    },
  };
}

export function toRelationObject(overview: SchemaOverview, relation: RelationOverview): RelationObject {
  const { meta, schema } = relation;
  const isSystem = overview.collections[relation.collection]?.isSystem === true && meta?.id === null;
  return {
    collection: relation.collection,
    field: relation.field,
    related_collection: relation.relatedCollection,
    schema:
      schema === null
        ? null
        : {
            constraint_name: schema.constraintName,
            table: relation.collection,
            column: relation.field,
            foreign_key_schema: null,
            foreign_key_table: relation.relatedCollection,
            foreign_key_column: schema.foreignKeyColumn,
            on_update: schema.onUpdate,
            on_delete: schema.onDelete,
          },
    meta:
      meta === null
        ? null
        : {
            id: meta.id,
            many_collection: relation.collection,
            many_field: relation.field,
            one_collection: relation.relatedCollection,
            one_field: meta.oneField,
            one_collection_field: meta.oneCollectionField,
            one_allowed_collections: meta.oneAllowedCollections,
            junction_field: meta.junctionField,
            sort_field: meta.sortField,
            one_deselect_action: meta.oneDeselectAction,
            ...(isSystem ? { system: true } : {}),
          },
  };
}

/** `{fn:"now"}` reads as CURRENT_TIMESTAMP, other expressions as their SQL. */
/** A column default as the API shows it (`CURRENT_TIMESTAMP`, an expression's SQL, or the value). */
export function apiDefault(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const fn = (value as { fn?: unknown; sql?: unknown }).fn;
  if (fn === 'now') return 'CURRENT_TIMESTAMP';
  if (fn === 'expression') return (value as { sql?: unknown }).sql ?? null;
  return value;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
