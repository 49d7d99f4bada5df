/**
 * What a generated GraphQL type or field stands for in the schema overview, kept in the
 * `extensions` of the type objects: selections, filter inputs and data inputs are turned
 * into the read side's `Query` and the write side's payloads by reading it, so GraphQL names
 * (sanitised, see names.ts) never have to be mapped back by guessing.
 */

/** An output field of a collection's object type. */
type ItemFieldMeta =
  /** A column value (also a many-to-one whose target the role cannot read: its key). */
  | { readonly kind: 'value'; readonly field: string }
  /** The related object (m2o) or list (o2m, m2m and m2a junction rows). */
  | { readonly kind: 'm2o' | 'o2m'; readonly field: string }
  /** The item column of a many-to-any junction, read as a union; `collectionField` names its collection. */
  | { readonly kind: 'a2o'; readonly field: string; readonly collectionField: string }
  /** `F_func`: date parts or counts of `field`. */
  | { readonly kind: 'function'; readonly field: string }
  /** A field of `C_aggregated_count` / `C_aggregated_fields`. */
  | { readonly kind: 'aggregate'; readonly field: string };

/** A root field that reads a collection's items: `C` (a list) or `C_by_id`. */
interface RootFieldMeta {
  readonly kind: 'list' | 'byId';
  readonly collection: string;
}

/** A key of a `C_filter` input. */
type FilterFieldMeta =
  | { readonly kind: 'logical' }
  /** `_some` / `_none` on the target of a one-to-many (not in Directus 10). */
  | { readonly kind: 'quantifier' }
  | { readonly kind: 'field'; readonly field: string }
  | { readonly kind: 'function'; readonly field: string }
  /** `item__<collection>`: the many-to-any item column scoped to one collection. */
  | { readonly kind: 'scope'; readonly field: string; readonly collection: string };

/** A key of a `create_C_input` / `update_C_input`. */
interface InputFieldMeta {
  readonly field: string;
  /** The primary key of an integer-keyed collection: `ID` strings become numbers. */
  readonly isIntegerKey: boolean;
}

declare module 'graphql' {
  interface GraphQLObjectTypeExtensions {
    /** The collection an item type reads. */
    svcCollection?: string;
  }
  interface GraphQLFieldExtensions<_TSource, _TContext, _TArgs> {
    svcField?: ItemFieldMeta;
    svcRoot?: RootFieldMeta;
  }
  interface GraphQLInputObjectTypeExtensions {
    /** The collection a `C_filter` input filters (operator inputs have none). */
    svcFilterOf?: string;
    /** The collection a `create_C_input` / `update_C_input` writes. */
    svcInputOf?: string;
  }
  interface GraphQLInputFieldExtensions {
    svcFilter?: FilterFieldMeta;
    svcInput?: InputFieldMeta;
  }
}

export {};
