import {
  GraphQLBoolean,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
  printSchema,
  type GraphQLObjectType,
  type GraphQLFieldConfigMap,
} from 'graphql';
import { nanoid } from 'nanoid';
import { createCollections, deleteCollection, updateCollection } from '../../catalog/ddl/collections.js';
import { createField, deleteField, updateField } from '../../catalog/ddl/fields.js';
import {
  isObject,
  parseCollectionPayload,
  parseFieldPatch,
  parseFieldPayload,
  parseRelationPatch,
  parseRelationPayload,
} from '../../catalog/ddl/payloads.js';
import { createRelation, deleteRelation, updateRelation } from '../../catalog/ddl/relations.js';
import { toServiceCollectionName } from '../../catalog/system/definitions.js';
import { canReadCollection, FULL_READ_ACCESS } from '../access/read-access.js';
import { readableSchemaObjects } from '../access/schema-objects.js';
import { hashPassword, verifyPassword } from '../access/passwords.js';
import { handleCreateComment, handleDeleteComment, handleUpdateComment } from '../commands/comments.js';
import { handleRevert } from '../commands/revert.js';
import { handleSort } from '../commands/sort.js';
import { handleUpdate } from '../commands/update.js';
import { ForbiddenError, InvalidPayloadError } from '../errors.js';
import { FILES_COLLECTION } from '../files/file-library.js';
import { addAuthRoots, currentUser } from './auth-roots.js';
import type { CollectionTypes } from './collection-types.js';
import type { GraphqlContext } from './context.js';
import { toPayload } from './input-values.js';
import { readOne } from './mutation-resolvers.js';
import { selectionQuery } from './query-resolvers.js';
import { GraphQLJSON, GraphQLVoid } from './scalars.js';
import { canWrite, type SchemaAccess } from '../access/role-schema-access.js';
import { DELETE_ONE } from './shared-types.js';
import {
  DELETE_COLLECTION,
  DELETE_FIELD,
  DELETE_RELATION,
  schemaObjectTypes,
  SCHEMA_INPUTS,
  SDL_SCOPE,
  SERVER_INFO,
  toServerInfo,
} from './system-types.js';

type RootFields = GraphQLFieldConfigMap<unknown, GraphqlContext>;
type Input = Readonly<Record<string, unknown>>;

const ACTIVITY = 'svc_activity';
const COMMENTS = 'svc_comments';

const requiredString = { type: new GraphQLNonNull(GraphQLString) };
const requiredId = { type: new GraphQLNonNull(GraphQLID) };

/**
 * The system scope's root fields beyond the collections' own (reference/graphql.md, "System
 * scope root fields"): the current user, the server, the schema objects, and the utility,
 * comment and schema mutations, each only where the role may use it.
 */
export function addSystemRoots(
  query: RootFields,
  mutation: RootFields,
  types: CollectionTypes,
  access: SchemaAccess,
): void {
  addServerRoots(query);
  addAuthRoots(mutation, access);
  addUtilityRoots(mutation, access);
  if (types.isItemCollection('svc_users')) addCurrentUserRoots(query, mutation, types);
  addCommentRoots(mutation, types, access);
  addFileImport(mutation, types);
  addSchemaRoots(query, mutation, types, access);
}

function addServerRoots(query: RootFields): void {
  query['server_info'] = {
    type: SERVER_INFO,
    resolve: async (_r, _a, ctx) => toServerInfo(await ctx.system.serverInfo()),
  };
  query['server_ping'] = { type: GraphQLString, resolve: () => 'pong' };
  query['server_health'] = { type: GraphQLJSON, resolve: (_r, _a, ctx) => ctx.system.health() };
  query['server_specs_oas'] = { type: GraphQLJSON, resolve: (_r, _a, ctx) => ctx.system.specsOas() };
  query['server_specs_graphql'] = {
    type: GraphQLString,
    args: { scope: { type: SDL_SCOPE } },
    resolve: (_r, args: { scope?: 'items' | 'system' | null }, ctx) => printSchema(ctx.schemas[args.scope ?? 'items']),
  };
}

function addCurrentUserRoots(query: RootFields, mutation: RootFields, types: CollectionTypes): void {
  const user = types.object('svc_users');
  query['users_me'] = {
    type: user,
    resolve: (_r, _a, ctx, info) => ctx.loaders.load('svc_users', selectionQuery(ctx, info, {}), currentUser(ctx)),
  };
  const update = types.input('update', 'svc_users');
  if (update === undefined) return;
  mutation['update_users_me'] = {
    type: user,
    args: { data: { type: update } },
    resolve: async (_r, args: Input, ctx, info) => {
      const key = currentUser(ctx);
      const query = selectionQuery(ctx, info, {});
      const data = args['data'] === null || args['data'] === undefined ? {} : toPayload(update, args['data'] as Input);
      await handleUpdate({ kind: 'update', collection: 'svc_users', keys: [key], data }, ctx.commands);
      return readOne(ctx, 'svc_users', key, query);
    },
  };
}

function addUtilityRoots(mutation: RootFields, access: SchemaAccess): void {
  mutation['utils_random_string'] = {
    type: GraphQLString,
    args: { length: { type: GraphQLInt } },
    // reference/audit-and-utils.md: 1..500 symbols of A-Za-z0-9_- (nanoid's alphabet), default 32.
    resolve: (_r, args: { length?: number | null }) => {
      const length = args.length ?? 32;
      if (length < 1 || length > 500) throw new InvalidPayloadError('"length" must be between 1 and 500');
      return nanoid(length);
    },
  };
  mutation['utils_hash_generate'] = {
    type: GraphQLString,
    args: { string: requiredString },
    resolve: (_r, args: { string: string }) => hashPassword(requireString(args.string, 'string')),
  };
  mutation['utils_hash_verify'] = {
    type: GraphQLBoolean,
    args: { string: requiredString, hash: requiredString },
    resolve: (_r, args: { string: string; hash: string }) =>
      verifyPassword(requireString(args.hash, 'hash'), requireString(args.string, 'string')),
  };
  mutation['utils_sort'] = {
    type: GraphQLBoolean,
    args: { collection: requiredString, item: requiredId, to: requiredId },
    resolve: async (_r, args: { collection: string; item: string; to: string }, ctx) => {
      const collection = toServiceCollectionName(args.collection);
      await handleSort({ kind: 'sort', collection, item: args.item, to: args.to }, ctx.commands);
      return true;
    },
  };
  mutation['utils_revert'] = {
    type: GraphQLBoolean,
    args: { revision: requiredId },
    resolve: async (_r, args: { revision: string }, ctx) => {
      await handleRevert({ kind: 'revert', revision: args.revision }, ctx.commands);
      return true;
    },
  };
  if (access.isAdmin) {
    mutation['utils_cache_clear'] = {
      type: GraphQLVoid,
      resolve: async (_r, _a, ctx) => {
        if (!ctx.reader.accountability.admin) throw new ForbiddenError();
        await ctx.system.clearCache();
        return null;
      },
    };
  }
}

function requireString(value: string, name: string): string {
  if (value === '') throw new InvalidPayloadError(`"${name}" is required`);
  return value;
}

/**
 * create_comment / update_comment / delete_comment: POST, PATCH and DELETE /activity/comment
 * (reference/graphql.md), answering the comment's svc_activity row; each where the role may
 * write the rows a comment takes (commands/comments.ts).
 */
function addCommentRoots(mutation: RootFields, types: CollectionTypes, access: SchemaAccess): void {
  if (types.isItemCollection(ACTIVITY)) {
    const activity = types.object(ACTIVITY);
    if (canWrite(access, 'create', ACTIVITY) && canWrite(access, 'create', COMMENTS)) {
      mutation['create_comment'] = {
        type: activity,
        args: { collection: requiredString, item: requiredId, comment: requiredString },
        resolve: async (_r, args: { collection: string; item: string; comment: string }, ctx, info) => {
          const query = selectionQuery(ctx, info, {});
          const command = {
            kind: 'createComment',
            collection: toServiceCollectionName(requireString(args.collection, 'collection')),
            item: requireString(args.item, 'item'),
            comment: requireString(args.comment, 'comment'),
          } as const;
          return readOne(ctx, ACTIVITY, await handleCreateComment(command, ctx.commands), query);
        },
      };
    }
    if (canWrite(access, 'update', COMMENTS)) {
      mutation['update_comment'] = {
        type: activity,
        args: { id: requiredId, comment: requiredString },
        resolve: async (_r, args: { id: string; comment: string }, ctx, info) => {
          const query = selectionQuery(ctx, info, {});
          const command = {
            kind: 'updateComment',
            id: args.id,
            comment: requireString(args.comment, 'comment'),
          } as const;
          return readOne(ctx, ACTIVITY, await handleUpdateComment(command, ctx.commands), query);
        },
      };
    }
  }
  if (access.canDelete(COMMENTS)) {
    mutation['delete_comment'] = {
      type: DELETE_ONE,
      args: { id: requiredId },
      resolve: async (_r, args: { id: string }, ctx) => {
        await handleDeleteComment({ kind: 'deleteComment', id: args.id }, ctx.commands);
        ctx.loaders.clear();
        return { id: args.id };
      },
    };
  }
}

/** import_file(url, data): POST /files/import, the file read back as the caller reads it. */
function addFileImport(mutation: RootFields, types: CollectionTypes): void {
  const create = types.input('create', FILES_COLLECTION);
  if (create === undefined) return;
  mutation['import_file'] = {
    type: types.object(FILES_COLLECTION),
    args: { url: requiredString, data: { type: create } },
    resolve: async (_r, args: { url: string; data?: Input | null }, ctx, info) => {
      const query = selectionQuery(ctx, info, {});
      const data = args.data === null || args.data === undefined ? {} : toPayload(create, args.data);
      const key = await ctx.system.files.importUrl(ctx.commands, args.url, data);
      return readOne(ctx, FILES_COLLECTION, key, query);
    },
  };
}

/**
 * collections, fields, relations as /collections, /fields, /relations read them (filtered by
 * the caller's schema read permission); their mutations for admins, through the catalogue.
 */
function addSchemaRoots(query: RootFields, mutation: RootFields, types: CollectionTypes, access: SchemaAccess): void {
  const objects = schemaObjectTypes(types.overview.collections);
  const list = (type: GraphQLObjectType) => new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type)));
  const readable = (collection: string) => canReadCollection(access.read, collection);

  // The same objects, and the same refusals, as REST /collections, /fields and /relations.
  const readableObjects = (ctx: GraphqlContext) => readableSchemaObjects(ctx.read.overview, ctx.reader.access);
  if (readable('svc_collections')) {
    query['collections'] = {
      type: list(objects.collection),
      resolve: async (_r, _a, ctx) => readableObjects(ctx).collections(),
    };
    query['collections_by_name'] = {
      type: objects.collection,
      args: { name: requiredString },
      resolve: async (_r, args: { name: string }, ctx) =>
        readableObjects(ctx).collection(toServiceCollectionName(args.name)),
    };
  }
  if (readable('svc_fields')) {
    query['fields'] = {
      type: list(objects.field),
      resolve: async (_r, _a, ctx) => readableObjects(ctx).fields(),
    };
    query['fields_in_collection'] = {
      type: list(objects.field),
      args: { collection: requiredString },
      resolve: async (_r, args: { collection: string }, ctx) =>
        readableObjects(ctx).fieldsIn(toServiceCollectionName(args.collection)),
    };
    query['fields_by_name'] = {
      type: objects.field,
      args: { collection: requiredString, field: requiredString },
      resolve: async (_r, args: { collection: string; field: string }, ctx) =>
        readableObjects(ctx).field(toServiceCollectionName(args.collection), args.field),
    };
  }
  if (readable('svc_relations')) {
    query['relations'] = {
      type: list(objects.relation),
      resolve: async (_r, _a, ctx) => readableObjects(ctx).relations(),
    };
    query['relations_in_collection'] = {
      type: list(objects.relation),
      args: { collection: requiredString },
      resolve: async (_r, args: { collection: string }, ctx) =>
        readableObjects(ctx).relationsIn(toServiceCollectionName(args.collection)),
    };
    query['relations_by_name'] = {
      type: objects.relation,
      args: { collection: requiredString, field: requiredString },
      resolve: async (_r, args: { collection: string; field: string }, ctx) =>
        readableObjects(ctx).relation(toServiceCollectionName(args.collection), args.field),
    };
  }
  if (access.isAdmin) addSchemaMutations(mutation, objects);
}

/** reference/routes.md, Schema routes: writes are admin only; each answers the changed object. */
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
      if (!isObject(meta)) throw new InvalidPayloadError('"meta" is required and must be an object');
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
    },
    resolve: async (_r, args: { collection: string; field: string; data: Input }, ctx) => {
      requireAdmin(ctx);
      const name = toServiceCollectionName(args.collection);
      await updateField(ctx.system.schemaChanges, name, args.field, parseFieldPatch(args.data, args.field));
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
