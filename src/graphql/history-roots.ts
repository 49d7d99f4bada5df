import {
  GraphQLBoolean,
  GraphQLID,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLString,
  type GraphQLFieldConfigMap,
} from 'graphql';
import { toServiceCollectionName } from '../../catalog/system/definitions.js';
import { canReadCollection } from '../access/read-access.js';
import { handleUndo } from '../commands/undo.js';
import { historyOptions, parseFilter, readItemHistory, readRevisionDiff } from '../query/index.js';
import { InvalidPayloadError } from '../errors.js';
import type { GraphqlContext } from './context.js';
import { GraphQLJSON } from './scalars.js';
import type { SchemaAccess } from '../access/role-schema-access.js';

type RootFields = GraphQLFieldConfigMap<unknown, GraphqlContext>;

const requiredId = { type: new GraphQLNonNull(GraphQLID) };

/**
 * History in the system scope (issue 18), named after the REST routes: `revisions_diff`
 * (GET /revisions/:id/diff), `items_history` (GET /items/:collection/:id/history) and the
 * mutation `utils_undo` (POST /utils/undo); the same reads and command, the same answers.
 */
export function addHistoryRoots(query: RootFields, mutation: RootFields, access: SchemaAccess): void {
  if (canReadCollection(access.read, 'svc_revisions')) {
    query['revisions_diff'] = {
      type: GraphQLJSON,
      args: { id: requiredId, to: { type: GraphQLID } },
      resolve: (_r, args: { id: string; to?: string | null }, ctx) =>
        readRevisionDiff(ctx.read, ctx.reader, args.id, args.to ?? undefined),
    };
    query['items_history'] = {
      type: GraphQLJSON,
      args: {
        collection: { type: new GraphQLNonNull(GraphQLString) },
        id: requiredId,
        limit: { type: GraphQLInt },
        page: { type: GraphQLInt },
        field: { type: GraphQLString },
      },
      resolve: (
        _r,
        args: { collection: string; id: string; limit?: number | null; page?: number | null; field?: string | null },
        ctx,
      ) => {
        const params = {
          ...(args.limit == null ? {} : { limit: String(args.limit) }),
          ...(args.page == null ? {} : { page: String(args.page) }),
          ...(args.field == null ? {} : { field: args.field }),
        };
        const collection = toServiceCollectionName(args.collection);
        return readItemHistory(ctx.read, ctx.reader, collection, args.id, historyOptions(ctx.read, params));
      },
    };
  }
  if (canReadCollection(access.read, 'svc_activity')) {
    mutation['utils_undo'] = {
      type: GraphQLJSON,
      args: {
        filter: { type: new GraphQLNonNull(GraphQLJSON) },
        dry_run: { type: GraphQLBoolean },
        force: { type: GraphQLBoolean },
      },
      resolve: async (_r, args: { filter: unknown; dry_run?: boolean | null; force?: boolean | null }, ctx) => {
        const { filter } = args;
        if (typeof filter !== 'object' || filter === null || Array.isArray(filter) || Object.keys(filter).length === 0)
          throw new InvalidPayloadError('"filter" must be a non-empty filter object of svc_activity');
        const cmd = {
          kind: 'undo',
          filter: parseFilter(filter),
          dryRun: args.dry_run ?? false,
          force: args.force ?? false,
        } as const;
        const steps = await handleUndo(cmd, ctx.commands);
        ctx.loaders.clear();
        return steps;
      },
    };
  }
}
