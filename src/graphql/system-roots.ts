import {
  GraphQLBoolean,
  GraphQLID,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLString,
  printSchema,
  type GraphQLFieldConfigMap,
} from 'graphql';
import { nanoid } from 'nanoid';
import { toServiceCollectionName } from '../../catalog/system/definitions.js';
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
import { addSchemaRoots } from './schema-roots.js';
import { SDL_SCOPE, SERVER_INFO, toServerInfo } from './system-types.js';

type RootFields = GraphQLFieldConfigMap<unknown, GraphqlContext>;
type Input = Readonly<Record<string, unknown>>;

const ACTIVITY = 'svc_activity';
const COMMENTS = 'svc_comments';

const requiredString = { type: new GraphQLNonNull(GraphQLString) };
const requiredId = { type: new GraphQLNonNull(GraphQLID) };

/**
 * The system scope's root fields beyond the collections' own: the current user, the server, the
 * schema objects, and the utility,
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
    // 1..500 symbols of A-Za-z0-9_- (nanoid's alphabet), default 32.
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
 * create_comment / update_comment / delete_comment: POST, PATCH and DELETE /activity/comment,
 * answering the comment's svc_activity row; each where the role may
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
