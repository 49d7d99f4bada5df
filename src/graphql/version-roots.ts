import { GraphQLID, GraphQLList, GraphQLNonNull, GraphQLString, type GraphQLFieldConfigMap } from 'graphql';
import { canReadCollection } from '../access/read-access.js';
import { handleDelete } from '../commands/delete.js';
import { handleUpdate } from '../commands/update.js';
import {
  VERSIONS_COLLECTION,
  handleCreateVersion,
  handlePromoteVersion,
  handleSaveVersion,
  parseNewVersion,
  parsePromotion,
  parseVersionPatch,
} from '../commands/versions.js';
import { compareVersion, readItemVersion } from '../query/index.js';
import type { CollectionTypes } from './collection-types.js';
import type { GraphqlContext } from './context.js';
import { readOne } from './mutation-resolvers.js';
import { selectionQuery } from './query-resolvers.js';
import { GraphQLJSON } from './scalars.js';
import { canWrite, type SchemaAccess } from '../access/role-schema-access.js';
import { DELETE_ONE } from './shared-types.js';

type RootFields = GraphQLFieldConfigMap<unknown, GraphqlContext>;

const requiredId = { type: new GraphQLNonNull(GraphQLID) };
const requiredJson = { type: new GraphQLNonNull(GraphQLJSON) };

/**
 * Content versions in the system scope (issue 18; Directus 10.7+ names): the `versions`
 * queries come with the collection; here create/update/delete_versions_item (through
 * commands/versions.ts, as POST/PATCH/DELETE /versions) and save_version, compare_version,
 * promote_version, the same commands and reads as their REST routes. Each only where the
 * role may use it.
 */
export function addVersionRoots(mutation: RootFields, types: CollectionTypes, access: SchemaAccess): void {
  if (!types.isItemCollection(VERSIONS_COLLECTION) || !canReadCollection(access.read, VERSIONS_COLLECTION)) return;
  const version = types.object(VERSIONS_COLLECTION);
  if (canWrite(access, 'create', VERSIONS_COLLECTION)) {
    mutation['create_versions_item'] = {
      type: version,
      args: { data: requiredJson },
      resolve: async (_r, args: { data: unknown }, ctx, info) => {
        const key = await handleCreateVersion(parseNewVersion(args.data), ctx.commands);
        return readOne(ctx, VERSIONS_COLLECTION, key, selectionQuery(ctx, info, {}));
      },
    };
  }
  if (canWrite(access, 'update', VERSIONS_COLLECTION)) {
    mutation['update_versions_item'] = {
      type: version,
      args: { id: requiredId, data: requiredJson },
      resolve: async (_r, args: { id: string; data: unknown }, ctx, info) => {
        const data = parseVersionPatch(args.data);
        const [key] = await handleUpdate(
          { kind: 'update', collection: VERSIONS_COLLECTION, keys: [args.id], data },
          ctx.commands,
        );
        return readOne(ctx, VERSIONS_COLLECTION, key, selectionQuery(ctx, info, {}));
      },
    };
  }
  if (access.canDelete(VERSIONS_COLLECTION)) {
    mutation['delete_versions_item'] = {
      type: DELETE_ONE,
      args: { id: requiredId },
      resolve: async (_r, args: { id: string }, ctx) => {
        await handleDelete({ kind: 'delete', collection: VERSIONS_COLLECTION, keys: [args.id] }, ctx.commands);
        return { id: args.id };
      },
    };
  }
  mutation['save_version'] = {
    type: GraphQLJSON,
    description: 'Save changes into a version (checked as an update of the item); the item as the version has it',
    args: { id: requiredId, delta: requiredJson },
    resolve: async (_r, args: { id: string; delta: unknown }, ctx) => {
      const saved = await handleSaveVersion(args.id, args.delta, ctx.commands);
      ctx.loaders.clear();
      return readItemVersion(ctx.read, ctx.reader, saved.collection, saved.item, {}, saved.key);
    },
  };
  mutation['compare_version'] = {
    type: GraphQLJSON,
    description: 'outdated, mainHash, current, main, fields, conflicts (as GET /versions/:id/compare)',
    args: { id: requiredId },
    resolve: (_r, args: { id: string }, ctx) => compareVersion(ctx.read, ctx.reader, args.id),
  };
  mutation['promote_version'] = {
    type: GraphQLJSON,
    description: "Write the version's values to the live item; answers the item's key",
    args: {
      id: requiredId,
      mainHash: { type: new GraphQLNonNull(GraphQLString) },
      fields: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
      keep: { type: GraphQLString },
    },
    resolve: async (
      _r,
      args: { id: string; mainHash: string; fields?: string[] | null; keep?: string | null },
      ctx,
    ) => {
      const body = {
        mainHash: args.mainHash,
        ...(args.fields === undefined || args.fields === null ? {} : { fields: args.fields }),
        ...(args.keep === undefined || args.keep === null ? {} : { keep: args.keep }),
      };
      const key = await handlePromoteVersion(parsePromotion(args.id, body), ctx.commands);
      ctx.loaders.clear();
      return key;
    },
  };
}
