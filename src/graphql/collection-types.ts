// Over 400 lines, kept whole: one pass builds every GraphQL type of a collection (object, filter, aggregate, inputs), each reading the others.
import {
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  GraphQLUnionType,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLInputFieldConfig,
  type GraphQLInputType,
  type GraphQLNamedType,
} from 'graphql';
import { LOGICAL_OPERATORS } from '../../catalog/overview/filter-operators.js';
import { getFieldRelation, type FieldRelation } from '../../catalog/overview/lookup.js';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../../catalog/overview/types.js';
import { canReadCollection, canReadField } from '../access/read-access.js';
import { invariant } from '../errors.js';
import type { GraphqlContext } from './context.js';
import { byResponseKey, collectionOfUnionItem, functionValues, unionItem } from './item-values.js';
import { toGraphqlName } from './names.js';
import {
  COUNT_FUNCTION_TYPES,
  FILTER_QUANTIFIERS,
  functionTypesOf,
  operatorsOf,
  STRING_FILTER_OPERATORS,
} from './shared-types.js';
import { aggregatedType } from './aggregated-type.js';
import { inputScalar, isRequiredColumn, outputType } from './field-scalars.js';
import { canWrite, canWriteField, type SchemaAccess } from '../access/role-schema-access.js';
import './type-meta.js';

type Item = Readonly<Record<string, unknown>>;
type FieldConfig = GraphQLFieldConfig<Item, GraphqlContext>;
type InputAction = 'create' | 'update';

/**
 * svc_collections, svc_fields and svc_relations are read as the schema routes show them,
 * not as items: relations into them read as keys.
 */
const SCHEMA_COLLECTIONS: ReadonlySet<string> = new Set(['svc_collections', 'svc_fields', 'svc_relations']);

/**
 * The types of every collection one role may read: object types, filters, aggregates, create/update inputs
 * and many-to-any unions, each made once, on first use, and shared by both scopes' schemas.
 * Fields the role cannot read, and relations into collections it cannot read, do not exist.
 */
export class CollectionTypes {
  readonly #itemCollections = new Map<string, boolean>();
  readonly #objects = new Map<string, GraphQLObjectType>();
  readonly #filters = new Map<string, GraphQLInputObjectType>();
  readonly #aggregates = new Map<string, GraphQLObjectType>();
  readonly #inputs = new Map<string, GraphQLInputObjectType | null>();
  readonly #unions = new Map<string, GraphQLUnionType | null>();
  readonly #listArgs = new Map<string, GraphQLFieldConfigArgumentMap>();
  readonly #relations = new Map<string, FieldRelation>();
  /** The many side of a one-to-many → its one sides: its filter takes `_some` / `_none`. */
  readonly #manySides = new Map<string, string[]>();
  /** Foreign keys of a one-to-many: a parent's nested write fills them. */
  readonly #parentKeys = new Set<string>();
  /** Collections another collection's input can nest (m2o targets, o2m many sides). */
  readonly #nestable = new Set<string>();

  constructor(
    readonly overview: SchemaOverview,
    readonly access: SchemaAccess,
  ) {
    // getFieldRelation is the one resolver of relations; asked only for fields a relation names.
    for (const relation of overview.relations) {
      this.#indexRelation(relation.collection, relation.field);
      if (relation.relatedCollection !== null) this.#nestable.add(relation.relatedCollection);
      const oneField = relation.meta?.oneField;
      if (relation.relatedCollection !== null && oneField != null) {
        this.#indexRelation(relation.relatedCollection, oneField);
        this.#manySides.set(relation.collection, [
          ...(this.#manySides.get(relation.collection) ?? []),
          relation.relatedCollection,
        ]);
        this.#parentKeys.add(`${relation.collection}\u0000${relation.field}`);
        this.#nestable.add(relation.collection);
      }
    }
  }

  /**
   * A collection the role reads as items: it may read the collection and at least one of its
   * columns (a permission whose fields name none that exist, say after a field was deleted,
   * leaves nothing to read, and a GraphQL type without fields is no type).
   */
  isItemCollection(collection: string): boolean {
    let readable = this.#itemCollections.get(collection);
    if (readable === undefined) {
      const overview = this.overview.collections[collection];
      readable =
        overview !== undefined &&
        !SCHEMA_COLLECTIONS.has(collection) &&
        canReadCollection(this.access.read, collection) &&
        this.#readableFields(overview).some((f) => !f.isAlias);
      this.#itemCollections.set(collection, readable);
    }
    return readable;
  }

  typeName(collection: string): string {
    return toGraphqlName(collection);
  }

  object(collection: string): GraphQLObjectType {
    let type = this.#objects.get(collection);
    if (type === undefined) {
      type = new GraphQLObjectType<Item, GraphqlContext>({
        name: this.typeName(collection),
        extensions: { svcCollection: collection },
        fields: () => this.#objectFields(this.#collection(collection)),
      });
      this.#objects.set(collection, type);
    }
    return type;
  }

  /** filter, sort, limit, offset, page, search: the arguments of every list of `collection`. */
  listArgs(collection: string): GraphQLFieldConfigArgumentMap {
    let args = this.#listArgs.get(collection);
    if (args === undefined) {
      args = {
        filter: { type: this.filter(collection) },
        sort: { type: new GraphQLList(GraphQLString) },
        limit: { type: GraphQLInt },
        offset: { type: GraphQLInt },
        page: { type: GraphQLInt },
        search: { type: GraphQLString },
      };
      this.#listArgs.set(collection, args);
    }
    return args;
  }

  filter(collection: string): GraphQLInputObjectType {
    let type = this.#filters.get(collection);
    if (type === undefined) {
      type = new GraphQLInputObjectType({
        name: `${this.typeName(collection)}_filter`,
        extensions: { svcFilterOf: collection },
        fields: () => this.#filterFields(this.#collection(collection)),
      });
      this.#filters.set(collection, type);
    }
    return type;
  }

  aggregated(collection: string): GraphQLObjectType {
    let type = this.#aggregates.get(collection);
    if (type === undefined) {
      type = aggregatedType(this.typeName(collection), this.#readableFields(this.#collection(collection)));
      this.#aggregates.set(collection, type);
    }
    return type;
  }

  /** `create_C_input` / `update_C_input`, when the role may do that to a collection it reads. */
  input(action: InputAction, collection: string): GraphQLInputObjectType | undefined {
    const id = `${action}\u0000${collection}`;
    let type = this.#inputs.get(id);
    if (type === undefined) {
      type = null;
      if (this.isItemCollection(collection) && canWrite(this.access, action, collection)) {
        const target = this.#collection(collection);
        if (
          Object.values(target.fields).some(
            (f) => !f.isAlias && canWriteField(this.access, action, collection, f.field),
          )
        ) {
          type = new GraphQLInputObjectType({
            name: `${action}_${this.typeName(collection)}_input`,
            extensions: { svcInputOf: collection },
            fields: () => this.#inputFields(action, target),
          });
        }
      }
      this.#inputs.set(id, type);
    }
    return type ?? undefined;
  }

  /** The fields of `collection` the role reads, relational ones included (OpenAPI documents them too). */
  readableFields(collection: string): FieldOverview[] {
    return this.#readableFields(this.#collection(collection));
  }

  /** The relation `field` of `collection` is a side of, if any. */
  relationOf(collection: string, field: string): FieldRelation | undefined {
    return this.#relation(collection, field);
  }

  /** Every type made so far: both scopes' schemas contain them all. */
  all(): GraphQLNamedType[] {
    return [...this.#objects.values()];
  }

  #collection(name: string): CollectionOverview {
    const collection = this.overview.collections[name];
    invariant(collection !== undefined, `${name} is in the overview`);
    return collection;
  }

  #indexRelation(collection: string, field: string): void {
    const id = `${collection}\u0000${field}`;
    if (this.#relations.has(id)) return;
    const relation = getFieldRelation(this.overview, collection, field);
    if (relation !== undefined) this.#relations.set(id, relation);
  }

  #relation(collection: string, field: string): FieldRelation | undefined {
    return this.#relations.get(`${collection}\u0000${field}`);
  }

  #readableFields(collection: CollectionOverview): FieldOverview[] {
    return Object.values(collection.fields).filter((f) =>
      canReadField(this.access.read, collection.collection, f.field),
    );
  }

  #objectFields(collection: CollectionOverview): Record<string, FieldConfig> {
    const fields: Record<string, FieldConfig> = {};
    const add = (name: string, config: FieldConfig) => {
      if (!Object.hasOwn(fields, name)) fields[name] = config;
    };
    for (const field of this.#readableFields(collection)) {
      const name = toGraphqlName(field.field);
      const relation = this.#relation(collection.collection, field.field);
      if (relation?.kind === 'm2o' && this.isItemCollection(relation.related)) {
        add(name, {
          type: this.object(relation.related),
          args: this.listArgs(relation.related),
          resolve: byResponseKey,
          extensions: { svcField: { kind: 'm2o', field: field.field } },
        });
        continue;
      }
      if (relation?.kind === 'o2m') {
        if (!this.isItemCollection(relation.related)) continue;
        add(name, {
          type: new GraphQLList(this.object(relation.related)),
          args: this.listArgs(relation.related),
          resolve: byResponseKey,
          extensions: { svcField: { kind: 'o2m', field: field.field } },
        });
        add(`${name}_func`, {
          type: COUNT_FUNCTION_TYPES.output,
          resolve: functionValues,
          extensions: { svcField: { kind: 'function', field: field.field } },
        });
        continue;
      }
      if (relation?.kind === 'a2o') {
        const union = this.#union(collection.collection, field.field, relation.allowed);
        if (union !== undefined) {
          add(name, {
            type: union,
            resolve: unionItem,
            extensions: { svcField: { kind: 'a2o', field: field.field, collectionField: relation.collectionField } },
          });
          continue;
        }
      }
      if (field.isAlias) continue;
      add(name, {
        type: outputType(field, collection),
        resolve: byResponseKey,
        extensions: { svcField: { kind: 'value', field: field.field } },
      });
      const functions = functionTypesOf(field.type);
      if (functions !== undefined) {
        add(`${name}_func`, {
          type: functions.output,
          resolve: functionValues,
          extensions: { svcField: { kind: 'function', field: field.field } },
        });
      }
    }
    return fields;
  }

  /** `<junction>_<item field>_union` of the allowed collections the role reads; none readable: no union. */
  #union(junction: string, field: string, allowed: readonly string[]): GraphQLUnionType | undefined {
    const id = `${junction}\u0000${field}`;
    let union = this.#unions.get(id);
    if (union === undefined) {
      const members = allowed.filter((c) => this.isItemCollection(c));
      union =
        members.length === 0
          ? null
          : new GraphQLUnionType({
              name: `${this.typeName(junction)}_${toGraphqlName(field)}_union`,
              types: () => members.map((m) => this.object(m)),
              resolveType: (value: unknown) => {
                const collection = collectionOfUnionItem(value);
                return collection === undefined ? undefined : this.typeName(collection);
              },
            });
      this.#unions.set(id, union);
    }
    return union ?? undefined;
  }

  #filterFields(collection: CollectionOverview): Record<string, GraphQLInputFieldConfig> {
    const self = this.filter(collection.collection);
    const fields: Record<string, GraphQLInputFieldConfig> = {};
    const add = (name: string, config: GraphQLInputFieldConfig) => {
      if (!Object.hasOwn(fields, name)) fields[name] = config;
    };
    for (const field of this.#readableFields(collection)) {
      const name = toGraphqlName(field.field);
      const meta = { kind: 'field', field: field.field } as const;
      const relation = this.#relation(collection.collection, field.field);
      if (relation?.kind === 'm2o' && this.isItemCollection(relation.related)) {
        add(name, { type: this.filter(relation.related), extensions: { svcFilter: meta } });
        continue;
      }
      if (relation?.kind === 'o2m') {
        if (!this.isItemCollection(relation.related)) continue;
        add(name, { type: this.filter(relation.related), extensions: { svcFilter: meta } });
        add(`${name}_func`, {
          type: COUNT_FUNCTION_TYPES.filter,
          extensions: { svcFilter: { kind: 'function', field: field.field } },
        });
        continue;
      }
      if (relation?.kind === 'a2o') {
        add(name, { type: STRING_FILTER_OPERATORS, extensions: { svcFilter: meta } });
        for (const member of relation.allowed.filter((c) => this.isItemCollection(c))) {
          add(`${name}__${toGraphqlName(member)}`, {
            type: this.filter(member),
            extensions: { svcFilter: { kind: 'scope', field: field.field, collection: member } },
          });
        }
        continue;
      }
      if (field.isAlias) continue;
      add(name, { type: operatorsOf(field.type), extensions: { svcFilter: meta } });
      const functions = functionTypesOf(field.type);
      if (functions !== undefined) {
        add(`${name}_func`, {
          type: functions.filter,
          extensions: { svcFilter: { kind: 'function', field: field.field } },
        });
      }
    }
    for (const logical of Object.keys(LOGICAL_OPERATORS)) {
      add(logical, { type: new GraphQLList(self), extensions: { svcFilter: { kind: 'logical' } } });
    }
    if ((this.#manySides.get(collection.collection) ?? []).some((one) => this.isItemCollection(one))) {
      for (const quantifier of FILTER_QUANTIFIERS) {
        add(quantifier, { type: self, extensions: { svcFilter: { kind: 'quantifier' } } });
      }
    }
    return fields;
  }

  #inputFields(action: InputAction, collection: CollectionOverview): Record<string, GraphQLInputFieldConfig> {
    const fields: Record<string, GraphQLInputFieldConfig> = {};
    const integerKey = collection.fields[collection.primary]?.type === 'integer';
    const add = (field: FieldOverview, type: GraphQLInputType) => {
      const name = toGraphqlName(field.field);
      if (Object.hasOwn(fields, name)) return;
      fields[name] = {
        type,
        extensions: { svcInput: { field: field.field, isIntegerKey: field.isPrimaryKey && integerKey } },
      };
    };
    for (const field of Object.values(collection.fields)) {
      if (!canWriteField(this.access, action, collection.collection, field.field)) continue;
      if (field.isPrimaryKey) {
        add(field, GraphQLID);
        continue;
      }
      const relation = this.#relation(collection.collection, field.field);
      if (relation?.kind === 'm2o') {
        add(field, this.input(action, relation.related) ?? inputScalar(field.type));
        continue;
      }
      if (relation?.kind === 'o2m') {
        const many = this.input(action, relation.related);
        if (many !== undefined) add(field, new GraphQLList(many));
        continue;
      }
      if (field.isAlias) continue;
      const type = inputScalar(field.type);
      add(field, action === 'create' && this.#isRequired(collection, field) ? new GraphQLNonNull(type) : type);
    }
    return fields;
  }

  /**
   * `!` only when not nullable, without default and not filled by the
   * database or the service. An input other inputs nest marks nothing required: nested, it
   * also links an existing item by its key alone (`author: {id: 2}`),
   * and GraphQL cannot say "required unless the key is given". The write side still refuses
   * a created item without its required fields (FAILED_VALIDATION `required`).
   */
  #isRequired(collection: CollectionOverview, field: FieldOverview): boolean {
    return (
      isRequiredColumn(field) &&
      !this.#nestable.has(collection.collection) &&
      !this.#parentKeys.has(`${collection.collection}\u0000${field.field}`)
    );
  }
}
