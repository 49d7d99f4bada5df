import {
  GraphQLBoolean,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
  type GraphQLFieldConfigMap,
  type GraphQLObjectType,
} from 'graphql';
import { createCollections, deleteCollection, updateCollection } from '../../catalog/ddl/collections.js';
import { createField, deleteField, updateField } from '../../catalog/ddl/fields.js';
import {
  parseCollectionPayload,
  parseFieldPatch,
  parseFieldPayload,
  parseRelationPatch,
  parseRelationPayload,
} from '../../catalog/ddl/payloads.js';
import { createRelation, deleteRelation, updateRelation } from '../../catalog/ddl/relations.js';
import { toServiceCollectionName } from '../../catalog/system/definitions.js';
import { canReadCollection, FULL_READ_ACCESS } from '../access/read-access.js';
import type { SchemaAccess } from '../access/role-schema-access.js';
import { readableSchemaObjects } from '../access/schema-objects.js';
import { ForbiddenError, InvalidPayloadError } from '../errors.js';
import type { CollectionTypes } from './collection-types.js';
import type { GraphqlContext } from './context.js';
import { DELETE_COLLECTION, DELETE_FIELD, DELETE_RELATION, schemaObjectTypes, SCHEMA_INPUTS } from './system-types.js';
import { isPlainObject } from '../is-plain-object.js';

type RootFields = GraphQLFieldConfigMap<unknown, GraphqlContext>;
type Input = Readonly<Record<string, unknown>>;

const requiredString = { type: new GraphQLNonNull(GraphQLString) };

/**
 * collections, fields, relations as /collections, /fields, /relations read them (filtered by
 * the caller's schema read permission); their mutations for admins, through the catalogue.
 */
export function addSchemaRoots(
  query: RootFields,
  mutation: RootFields,
  types: CollectionTypes,
  access: SchemaAccess,
): void {
  const objects = schemaObjectTypes(types.overview.collections);
  const list = (type: GraphQLObjectType) => new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type)));
  const readable = (collection: string) => canReadCollection(access.read, collection);

  // The same objects, and the same refusals, as REST /collections, /fields and /relations.
  const readableObjects = (ctx: GraphqlContext) => readableSchemaObjects(ctx.read.overview, ctx.reader.access);
  if (readable('svc_collections')) {
    query['collections'] = {
      type: list(objects.collection),
      resolve: (_r, _a, ctx) => readableObjects(ctx).collections(),
    };
    query['collections_by_name'] = {
      type: objects.collection,
      args: { name: requiredString },
      resolve: (_r, args: { name: string }, ctx) => readableObjects(ctx).collection(toServiceCollectionName(args.name)),
    };
  }
  if (readable('svc_fields')) {
    query['fields'] = {
      type: list(objects.field),
      resolve: (_r, _a, ctx) => readableObjects(ctx).fields(),
    };
    query['fields_in_collection'] = {
      type: list(objects.field),
      args: { collection: requiredString },
      resolve: (_r, args: { collection: string }, ctx) =>
        readableObjects(ctx).fieldsIn(toServiceCollectionName(args.collection)),
    };
    query['fields_by_name'] = {
      type: objects.field,
      args: { collection: requiredString, field: requiredString },
      resolve: (_r, args: { collection: string; field: string }, ctx) =>
        readableObjects(ctx).field(toServiceCollectionName(args.collection), args.field),
    };
  }
  if (readable('svc_relations')) {
    query['relations'] = {
      type: list(objects.relation),
      resolve: (_r, _a, ctx) => readableObjects(ctx).relations(),
    };
    query['relations_in_collection'] = {
      type: list(objects.relation),
      args: { collection: requiredString },
      resolve: (_r, args: { collection: string }, ctx) =>
        readableObjects(ctx).relationsIn(toServiceCollectionName(args.collection)),
    };
    query['relations_by_name'] = {
      type: objects.relation,
      args: { collection: requiredString, field: requiredString },
      resolve: (_r, args: { collection: string; field: string }, ctx) =>
        readableObjects(ctx).relation(toServiceCollectionName(args.collection), args.field),
    };
  }
  if (access.isAdmin) addSchemaMutations(mutation, objects);
}

/** Schema routes: writes are admin only; each answers the changed object. */
function addSchemaMutations(mutation: RootFields, objects: ReturnType<typeof schemaObjectTypes>): void {
  // Admins only: the changed object is read back from the new overview with every object readable.
  const fresh = async (ctx: GraphqlContext) =>
    readableSchemaObjects(await ctx.system.schemaChanges.schema.getOverview(), FULL_READ_ACCESS);
  mutation['create_collections_item'] = {
    type: objects.collection,
    args: { data: { type: new GraphQLNonNull(SCHEMA_INPUTS.createCollection) } },
    resolve: async (_r, args: { data: Input }, ctx) => {
      requireAdmin(ctx);
      const spec = parseCollectionPayload(args.data);
      await createCollections(ctx.system.schemaChanges, [spec]);
      return (await fresh(ctx)).collection(spec.collection);
    },
  };
  mutation['update_collections_item'] = {
    type: objects.collection,
    args: { collection: requiredString, data: { type: new GraphQLNonNull(SCHEMA_INPUTS.updateCollection) } },
    resolve: async (_r, args: { collection: string; data: Input }, ctx) => {
      requireAdmin(ctx);
      const name = toServiceCollectionName(args.collection);
      const meta = args.data['meta'];
      if (!isPlainObject(meta)) throw new InvalidPayloadError('"meta" is required and must be an object');
      await updateCollection(ctx.system.schemaChanges, name, meta);
      return (await fresh(ctx)).collection(name);
    },
  };
  mutation['delete_collections_item'] = {
    type: DELETE_COLLECTION,
    args: { collection: requiredString },
    resolve: async (_r, args: { collection: string }, ctx) => {
      requireAdmin(ctx);
      await deleteCollection(ctx.system.schemaChanges, toServiceCollectionName(args.collection));
      return { collection: args.collection };
    },
  };
  mutation['create_fields_item'] = {
    type: objects.field,
    args: { collection: requiredString, data: { type: new GraphQLNonNull(SCHEMA_INPUTS.createField) } },
    resolve: async (_r, args: { collection: string; data: Input }, ctx) => {
      requireAdmin(ctx);
      const name = toServiceCollectionName(args.collection);
      const spec = parseFieldPayload(args.data, name);
      await createField(ctx.system.schemaChanges, name, spec);
      return (await fresh(ctx)).field(name, spec.field);
    },
  };
  mutation['update_fields_item'] = {
    type: objects.field,
    args: {
      collection: requiredString,
      field: requiredString,
      data: { type: new GraphQLNonNull(SCHEMA_INPUTS.updateField) },
      // As PATCH /fields' ?allow_destructive: a type, precision or scale that changes stored values.
      allow_destructive: { type: GraphQLBoolean },
    },
    resolve: async (
      _r,
      args: { collection: string; field: string; data: Input; allow_destructive?: boolean | null },
      ctx,
    ) => {
      requireAdmin(ctx);
      const name = toServiceCollectionName(args.collection);
      await updateField(ctx.system.schemaChanges, name, args.field, parseFieldPatch(args.data, args.field), {
        allowDestructive: args.allow_destructive === true,
      });
      return (await fresh(ctx)).field(name, args.field);
    },
  };
  mutation['delete_fields_item'] = {
    type: DELETE_FIELD,
    args: { collection: requiredString, field: requiredString },
    resolve: async (_r, args: { collection: string; field: string }, ctx) => {
      requireAdmin(ctx);
      await deleteField(ctx.system.schemaChanges, toServiceCollectionName(args.collection), args.field);
      return { collection: args.collection, field: args.field };
    },
  };
  mutation['create_relations_item'] = {
    type: objects.relation,
    args: { data: { type: new GraphQLNonNull(SCHEMA_INPUTS.createRelation) } },
    resolve: async (_r, args: { data: Input }, ctx) => {
      requireAdmin(ctx);
      const spec = parseRelationPayload(args.data);
      await createRelation(ctx.system.schemaChanges, spec);
      return (await fresh(ctx)).relation(spec.collection, spec.field);
    },
  };
  mutation['update_relations_item'] = {
    type: objects.relation,
    args: {
      collection: requiredString,
      field: requiredString,
      data: { type: new GraphQLNonNull(SCHEMA_INPUTS.updateRelation) },
    },
    resolve: async (_r, args: { collection: string; field: string; data: Input }, ctx) => {
      requireAdmin(ctx);
      const name = toServiceCollectionName(args.collection);
      await updateRelation(ctx.system.schemaChanges, name, args.field, parseRelationPatch(args.data));
      return (await fresh(ctx)).relation(name, args.field);
    },
  };
  mutation['delete_relations_item'] = {
    type: DELETE_RELATION,
    args: { collection: requiredString, field: requiredString },
    resolve: async (_r, args: { collection: string; field: string }, ctx) => {
      requireAdmin(ctx);
      await deleteRelation(ctx.system.schemaChanges, toServiceCollectionName(args.collection), args.field);
      return { collection: args.collection, field: args.field };
    },
  };
}

function requireAdmin(ctx: GraphqlContext): void {
  if (!ctx.reader.accountability.admin) throw new ForbiddenError();
}
