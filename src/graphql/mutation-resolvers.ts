import { getNamedType, isInputObjectType, type GraphQLResolveInfo } from 'graphql';
import { handleCreate } from '../commands/create.js';
import { handleDelete } from '../commands/delete.js';
import type { PrimaryKey } from '../commands/types.js';
import { handleUpdate } from '../commands/update.js';
import { ForbiddenError, ServiceError, invariant } from '../errors.js';
import { FILES_COLLECTION } from '../files/file-library.js';
import { readItemsByKeys, readSingleton, type Item, type Query } from '../query/index.js';
import { requireCollection } from '../../catalog/overview/lookup.js';
import type { GraphqlContext } from './context.js';
import { toPayload } from './input-values.js';
import { selectionQuery, type RootResolver } from './query-resolvers.js';

type Input = Readonly<Record<string, unknown>>;

/**
 * The item mutations, named as in Directus 10. Each runs the write side's command handler
 * (one transaction, validation, journal: the same as REST) and reads the result back through
 * the read side with the caller's read access and the mutation's selection: an item the
 * caller cannot read is null, a list leaves it out.
 */

/** `create_C_items(data: [create_C_input!], filter, ...)`: the created items, in input order. */
export function createItemsResolver(collection: string): RootResolver {
  return async (_root, args, ctx, info) => {
    const query = selectionQuery(ctx, info, args);
    const data = ((args['data'] ?? []) as readonly Input[]).map((item) => payload(info, item));
    const keys = await handleCreate({ kind: 'create', collection, data }, ctx.commands);
    return readMany(ctx, collection, keys, query);
  };
}

/** `create_C_item(data: create_C_input!): C` */
export function createItemResolver(collection: string): RootResolver {
  return async (_root, args, ctx, info) => {
    const query = selectionQuery(ctx, info, {});
    const keys = await handleCreate(
      { kind: 'create', collection, data: [payload(info, args['data'] as Input)] },
      ctx.commands,
    );
    return readOne(ctx, collection, keys[0], query);
  };
}

/**
 * `update_C_items(ids: [ID]!, data: [update_C_input!])`, beyond Directus 10:
 * several data entries are merged left to right and applied to every id.
 */
export function updateItemsResolver(collection: string): RootResolver {
  return async (_root, args, ctx, info) => {
    const query = selectionQuery(ctx, info, args);
    const entries = ((args['data'] ?? []) as readonly Input[]).map((item) => payload(info, item));
    const data = Object.assign({}, ...entries) as Record<string, unknown>;
    const keys = await handleUpdate({ kind: 'update', collection, keys: ids(args['ids']), data }, ctx.commands);
    return readMany(ctx, collection, keys, query);
  };
}

/** `update_C_batch(data: [update_C_input!])`: every entry carries its primary key. */
export function updateBatchResolver(collection: string): RootResolver {
  return async (_root, args, ctx, info) => {
    const query = selectionQuery(ctx, info, args);
    const batch = ((args['data'] ?? []) as readonly Input[]).map((item) => payload(info, item));
    const keys = await handleUpdate({ kind: 'update', collection, batch }, ctx.commands);
    return readMany(ctx, collection, keys, query);
  };
}

/** `update_C_item(id: ID!, data: update_C_input!): C` */
export function updateItemResolver(collection: string): RootResolver {
  return async (_root, args, ctx, info) => {
    const query = selectionQuery(ctx, info, {});
    const data = payload(info, args['data'] as Input);
    const keys = await handleUpdate({ kind: 'update', collection, keys: ids([args['id']]), data }, ctx.commands);
    return readOne(ctx, collection, keys[0], query);
  };
}

/** `update_S(data: update_S_input!): S`: the singleton's row, created when missing. */
export function updateSingletonResolver(collection: string): RootResolver {
  return async (_root, args, ctx, info) => {
    const query = selectionQuery(ctx, info, {});
    await handleUpdate(
      { kind: 'update', collection, singleton: true, data: payload(info, args['data'] as Input) },
      ctx.commands,
    );
    ctx.loaders.clear();
    return readSingleton(ctx.read, collection, query, ctx.reader);
  };
}

/**
 * `delete_C_items(ids: [ID]!): delete_many` — the ids given. A missing item makes the whole
 * delete FORBIDDEN (spec, Errors: actions on non-existing items), as on REST.
 */
export function deleteItemsResolver(collection: string): RootResolver {
  return async (_root, args, ctx) => {
    const keys = ids(args['ids']);
    await deleteKeys(ctx, collection, keys);
    return { ids: keys };
  };
}

/** `delete_C_item(id: ID!): delete_one`; a missing id is FORBIDDEN (unlike Directus 10). */
export function deleteItemResolver(collection: string): RootResolver {
  return async (_root, args, ctx) => {
    const [key] = ids([args['id']]);
    await deleteKeys(ctx, collection, key === undefined ? [] : [key]);
    return { id: key };
  };
}

/** A delete through the write side; files through the library, which removes their contents too. */
export async function deleteKeys(ctx: GraphqlContext, collection: string, keys: readonly PrimaryKey[]): Promise<void> {
  if (collection === FILES_COLLECTION) await ctx.system.files.delete(ctx.commands, { keys });
  else await handleDelete({ kind: 'delete', collection, keys }, ctx.commands);
  ctx.loaders.clear();
}

/** The `data` argument as a payload of field names. */
function payload(info: GraphQLResolveInfo, value: Input): Record<string, unknown> {
  const arg = info.parentType.getFields()[info.fieldName]?.args.find((a) => a.name === 'data');
  const type = arg === undefined ? undefined : getNamedType(arg.type);
  invariant(isInputObjectType(type), `${info.fieldName}(data) is an input object`);
  return toPayload(type, value);
}

function ids(value: unknown): PrimaryKey[] {
  return ((value ?? []) as readonly unknown[]).filter((id): id is string => typeof id === 'string');
}

/** A written item as the caller reads it; earlier reads of this request are stale now. */
export async function readOne(
  ctx: GraphqlContext,
  collection: string,
  key: PrimaryKey | undefined,
  query: Query,
): Promise<Item | null> {
  ctx.loaders.clear();
  if (key === undefined) return null;
  return afterCommit(
    ctx,
    collection,
    () => ctx.loaders.load(collection, query, key),
    (primary) => ({ [primary]: key }),
  );
}

async function readMany(
  ctx: GraphqlContext,
  collection: string,
  keys: readonly PrimaryKey[],
  query: Query,
): Promise<Item[]> {
  ctx.loaders.clear();
  try {
    return await afterCommit(
      ctx,
      collection,
      () => readItemsByKeys(ctx.read, collection, keys, query, ctx.reader),
      (primary) => keys.map((key) => ({ [primary]: key })),
    );
  } catch (error) {
    if (error instanceof ForbiddenError) return [];
    throw error;
  }
}

/**
 * The re-read of a committed write; one that fails for another reason than the caller's input
 * (the database dropped the connection after the commit) answers the written keys only: a
 * committed write is never answered with an error, which a client would retry into a duplicate.
 */
async function afterCommit<T>(
  ctx: GraphqlContext,
  collection: string,
  read: () => Promise<T>,
  keysOnly: (primary: string) => T,
): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    return keysOnly(requireCollection(ctx.read.overview, collection).primary);
  }
}
