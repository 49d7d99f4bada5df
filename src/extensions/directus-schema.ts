import type { FieldOverview, RelationOverview, SchemaOverview } from '../../catalog/overview/types.js';

/**
 * The schema as Directus 10's `getSchema()` gives it to extensions (its `SchemaOverview`):
 * collections by name with their fields, and relations with snake_case `meta` and `schema`.
 * Extensions read it directly (types, relations) or hand it back to `services` (which use the
 * service's own overview whatever they are handed).
 */
export interface DirectusSchemaOverview {
  readonly collections: Readonly<Record<string, DirectusCollection>>;
  readonly relations: readonly DirectusRelation[];
}

export interface DirectusCollection {
  readonly collection: string;
  readonly primary: string;
  readonly singleton: boolean;
  readonly sortField: string | null;
  readonly note: string | null;
  readonly accountability: 'all' | 'activity' | null;
  readonly fields: Readonly<Record<string, DirectusField>>;
}

export interface DirectusField {
  readonly field: string;
  readonly defaultValue: unknown;
  readonly nullable: boolean;
  readonly generated: boolean;
  readonly type: string;
  readonly dbType: string | null;
  readonly precision: number | null;
  readonly scale: number | null;
  readonly special: readonly string[];
  readonly note: string | null;
  readonly validation: unknown;
  readonly alias: boolean;
}

export interface DirectusRelation {
  readonly collection: string;
  readonly field: string;
  readonly related_collection: string | null;
  readonly schema: {
    readonly table: string;
    readonly column: string;
    readonly foreign_key_table: string | null;
    readonly foreign_key_column: string;
    readonly constraint_name: string | null;
    readonly on_update: string | null;
    readonly on_delete: string | null;
  } | null;
  readonly meta: {
    readonly id: number | null;
    readonly many_collection: string;
    readonly many_field: string;
    readonly one_collection: string | null;
    readonly one_field: string | null;
    readonly one_collection_field: string | null;
    readonly one_allowed_collections: readonly string[] | null;
    readonly junction_field: string | null;
    readonly sort_field: string | null;
    readonly one_deselect_action: 'nullify' | 'delete';
  } | null;
}

const converted = new WeakMap<SchemaOverview, DirectusSchemaOverview>();

/** Our overview in Directus 10's shape (svc_ collections keep their names), once per overview. */
export function toDirectusSchema(overview: SchemaOverview): DirectusSchemaOverview {
  let found = converted.get(overview);
  if (found === undefined) {
    found = convert(overview);
    converted.set(overview, found);
  }
  return found;
}

function convert(overview: SchemaOverview): DirectusSchemaOverview {
  const collections = Object.fromEntries(
    Object.values(overview.collections).map((c) => [
      c.collection,
      {
        collection: c.collection,
        primary: c.primary,
        singleton: c.singleton,
        sortField: c.sortField,
        note: noteOf(c.meta) ?? c.comment,
        accountability: c.accountability,
        fields: Object.fromEntries(Object.values(c.fields).map((f) => [f.field, toDirectusField(f)])),
      },
    ]),
  );
  return { collections, relations: overview.relations.map(toDirectusRelation) };
}

function toDirectusField(f: FieldOverview): DirectusField {
  return {
    field: f.field,
    defaultValue: f.defaultValue,
    nullable: f.nullable,
    generated: f.isGenerated,
    type: f.type,
    dbType: f.dbType,
    precision: f.precision,
    scale: f.scale,
    special: f.special,
    note: noteOf(f.meta) ?? f.comment,
    validation: f.validation,
    alias: f.isAlias,
  };
}

function toDirectusRelation(r: RelationOverview): DirectusRelation {
  return {
    collection: r.collection,
    field: r.field,
    related_collection: r.relatedCollection,
    schema:
      r.schema === null
        ? null
        : {
            table: r.collection,
            column: r.field,
            foreign_key_table: r.relatedCollection,
            foreign_key_column: r.schema.foreignKeyColumn,
            constraint_name: r.schema.constraintName,
            on_update: r.schema.onUpdate,
            on_delete: r.schema.onDelete,
          },
    meta:
      r.meta === null
        ? null
        : {
            id: r.meta.id,
            many_collection: r.collection,
            many_field: r.field,
            one_collection: r.relatedCollection,
            one_field: r.meta.oneField,
            one_collection_field: r.meta.oneCollectionField,
            one_allowed_collections: r.meta.oneAllowedCollections,
            junction_field: r.meta.junctionField,
            sort_field: r.meta.sortField,
            one_deselect_action: r.meta.oneDeselectAction,
          },
  };
}

function noteOf(meta: Readonly<Record<string, unknown>> | null): string | null {
  const note = meta?.['note'];
  return typeof note === 'string' ? note : null;
}
