import { getNamedType, isInputObjectType, type GraphQLResolveInfo } from 'graphql';
import type { PrimaryKey } from '../commands/types.js';
import { invariant } from '../errors.js';
import type { Item, Query } from '../query/index.js';
import type { GraphqlContext } from './context.js';
import { toPayload } from './input-values.js';
import { selectionQuery, type RootResolver } from './query-resolvers.js';

type Input = Readonly<Record<string, unknown>>;

/**
 * The item mutations, named as in Directus 10. Each is a call of the items service
 * (src/items: the writable-collections rule, permission first, hooks, one transaction,
 * validation, journal, post-commit steps: the same as REST), the result read back with the
 * caller's read access and the mutation's selection: an item the caller cannot read is null,
 * a list leaves it out.
 */

/** `create_C_items(data: [create_C_input!], filter, ...)`: the created items, in input order. */
export function createItemsResolver(collection: string): RootResolver {
  return async (_root, args, ctx, info) => {
    const query = selectionQuery(ctx, info, args);
    const data = ((args['data'] ?? []) as readonly Input[]).map((item) => payload(info, item));
    const keys = await ctx.items(collection).createMany(data);
    return readMany(ctx, collection, keys, query);
  };
}

/** `create_C_item(data: create_C_input!): C` */
export function createItemResolver(collection: string): RootResolver {
  return async (_root, args, ctx, info) => {
    const query = selectionQuery(ctx, info, {});
    const key = await ctx.items(collection).createOne(payload(info, args['data'] as Input));
    return readOne(ctx, collection, key, query);
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
    const keys = await ctx.items(collection).updateMany(ids(args['ids']), data);
    return readMany(ctx, collection, keys, query);
  };
}

/** `update_C_batch(data: [update_C_input!])`: every entry carries its primary key. */
export function updateBatchResolver(collection: string): RootResolver {
  return async (_root, args, ctx, info) => {
    const query = selectionQuery(ctx, info, args);
    const batch = ((args['data'] ?? []) as readonly Input[]).map((item) => payload(info, item));
    const keys = await ctx.items(collection).updateBatch(batch);
    return readMany(ctx, collection, keys, query);
  };
}

/** `update_C_item(id: ID!, data: update_C_input!): C` */
export function updateItemResolver(collection: string): RootResolver {
  return async (_root, args, ctx, info) => {
    const query = selectionQuery(ctx, info, {});
    const data = payload(info, args['data'] as Input);
    const keys = await ctx.items(collection).update({ keys: ids([args['id']]), data });
    return readOne(ctx, collection, keys[0], query);
  };
}

/** `update_S(data: update_S_input!): S`: the singleton's row, created when missing. */
export function updateSingletonResolver(collection: string): RootResolver {
  return async (_root, args, ctx, info) => {
    const query = selectionQuery(ctx, info, {});
    const items = ctx.items(collection);
    await items.upsertSingleton(payload(info, args['data'] as Input));
    ctx.loaders.clear();
    return items.readSingleton(query);
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

/** A delete through the items service (files: their contents go too). */
async function deleteKeys(ctx: GraphqlContext, collection: string, keys: readonly PrimaryKey[]): Promise<void> {
  await ctx.items(collection).deleteMany(keys);
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

/**
 * A written item as the caller reads it now (null: not at all), through the items service's
 * re-read after commit; earlier reads of this request are stale now.
 */
export async function readOne(
  ctx: GraphqlContext,
  collection: string,
  key: PrimaryKey | undefined,
  query: Query,
): Promise<Item | null> {
  ctx.loaders.clear();
  if (key === undefined) return null;
  return (await ctx.items(collection).readWritten([key], query, 'one')) as Item | null;
}

async function readMany(
  ctx: GraphqlContext,
  collection: string,
  keys: readonly PrimaryKey[],
  query: Query,
): Promise<Item[]> {
  ctx.loaders.clear();
  return ((await ctx.items(collection).readWritten(keys, query, 'many')) ?? []) as Item[];
}
