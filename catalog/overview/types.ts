/**
 * The schema overview: the one object every other part reads to know the database's
 * collections, fields and relations (introspection merged with svc_collections, svc_fields,
 * svc_relations). Plain data (no Maps, no classes) so it can be cached in Redis as JSON.
 */

import type { FieldType } from '../../src/field-types.js';

/** The field types are a leaf of their own (src/field-types.ts); the overview names them. */
export { FIELD_TYPES, type FieldType } from '../../src/field-types.js';

/** A filter object as stored in svc_fields.validation / svc_permissions (query.md grammar). */
export type FilterObject = Readonly<Record<string, unknown>>;

export interface FieldOverview {
  readonly field: string;
  readonly type: FieldType;
  /** The column's database type as introspected (`varchar`, `int4`, ...); null for alias fields. */
  readonly dbType: string | null;
  /** svc_fields.special: `uuid`, `hash`, `date-created`, `m2o`, `o2m`, `m2m`, `m2a`, `cast-json`, ... */
  readonly special: readonly string[];
  /** The column default as a JSON value, or null; functions (now()) as `{ "fn": "now" }`. */
  readonly defaultValue: unknown;
  readonly nullable: boolean;
  readonly maxLength: number | null;
  readonly precision: number | null;
  readonly scale: number | null;
  readonly isPrimaryKey: boolean;
  /** Auto-increment / identity: the database fills the value. */
  readonly isGenerated: boolean;
  /** Auto-increment / identity / serial (a part of isGenerated). */
  readonly hasAutoIncrement: boolean;
  /** Computed column's expression, when the dialect tells (generated but not auto-increment). */
  readonly generationExpression: string | null;
  readonly comment: string | null;
  readonly isUnique: boolean;
  /** In a single-column index of any kind (a unique key, the primary key). */
  readonly isIndexed: boolean;
  /** No column behind the field (o2m, m2m, m2a, presentation). */
  readonly isAlias: boolean;
  /** meta.required */
  readonly required: boolean;
  readonly validation: FilterObject | null;
  readonly validationMessage: string | null;
  /** meta.sort, for field order. */
  readonly sort: number | null;
  /**
   * The API `meta` object: the svc_fields row decoded
   * (special as array, json parsed, booleans), `system: true` for system fields; null when
   * the field has no metadata.
   */
  readonly meta: FieldMetaObject | null;
}

/** The svc_fields row as the API shows it. */
type FieldMetaObject = Readonly<Record<string, unknown>>;
/** The svc_collections row as the API shows it (plus `system`). */
type CollectionMetaObject = Readonly<Record<string, unknown>>;

export interface CollectionOverview {
  readonly collection: string;
  /** The primary key field. */
  readonly primary: string;
  readonly singleton: boolean;
  readonly sortField: string | null;
  /** svc_collections.accountability: `all` = activity + revisions, `activity`, null = nothing. */
  readonly accountability: 'all' | 'activity' | null;
  readonly isSystem: boolean;
  /** Fields in presentation order (meta.sort, then name), keyed by field name. */
  readonly fields: Readonly<Record<string, FieldOverview>>;
  /** The API `meta` object: the svc_collections row decoded; null when the table has none. */
  readonly meta: CollectionMetaObject | null;
  /** The table comment, for the API `schema.comment`. */
  readonly comment: string | null;
}

export interface RelationMeta {
  /** svc_relations.id; null for the system relations the catalogue defines itself. */
  readonly id: number | null;
  readonly oneField: string | null;
  readonly oneCollectionField: string | null;
  readonly oneAllowedCollections: readonly string[] | null;
  readonly junctionField: string | null;
  readonly sortField: string | null;
  readonly oneDeselectAction: 'nullify' | 'delete';
}

export interface RelationSchema {
  readonly constraintName: string | null;
  /** The referenced column (the related collection's primary key, in practice). */
  readonly foreignKeyColumn: string;
  readonly onDelete: string | null;
  readonly onUpdate: string | null;
}

/** One foreign-key column (svc_relations row and/or database FK). */
export interface RelationOverview {
  /** many_collection: holds the FK column. */
  readonly collection: string;
  /** many_field: the FK column. */
  readonly field: string;
  /** one_collection; null for the item column of a many-to-any junction. */
  readonly relatedCollection: string | null;
  readonly meta: RelationMeta | null;
  readonly schema: RelationSchema | null;
}

export interface SchemaOverview {
  /** Moves on every schema change; consumers (GraphQL, permissions) rebuild when it moves. */
  readonly version: number;
  readonly collections: Readonly<Record<string, CollectionOverview>>;
  readonly relations: readonly RelationOverview[];
  /** svc_collections rows without a table (folders that only group collections), decoded. */
  readonly folders?: readonly CollectionMetaObject[];
}
