import type { GraphQLFieldResolver, GraphQLResolveInfo } from 'graphql';

/**
 * How items read for a selection carry their values (selection.ts builds the query, these
 * resolvers read the result). Items are keyed by response key (the GraphQL alias, or the field
 * name), so aliased fields need no mapping. Keys the read side fills for GraphQL's own use
 * start with `#`, which no GraphQL name can: they never collide with a selected field.
 */

type Item = Readonly<Record<string, unknown>>;

/** The primary key, read along to match by-key results to their keys. */
export const KEY_FIELD = '#key';
/** A field read only so that a level selecting nothing but `__typename` still reads a row. */
export const PROBE_FIELD = '#probe';

/** The collection column of a many-to-any junction row, next to the union field `key`. */
export function collectionKey(responseKey: string): string {
  return `#c_${responseKey}`;
}

/** The alias a `F_func` selection reads its field under; function values are `<prefix>_<fn>`. */
export function functionAlias(responseKey: string): string {
  return `#f_${responseKey}`;
}

/** Item fields: the value under the response key. */
export const byResponseKey: GraphQLFieldResolver<Item, unknown> = (item, _args, _ctx, info) => item[responseKey(info)];

/** `F_func`: the function values of this selection, by function name. */
export const functionValues: GraphQLFieldResolver<Item, unknown> = (item, _args, _ctx, info) => {
  const prefix = `${functionAlias(responseKey(info))}_`;
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    if (key.startsWith(prefix)) values[key.slice(prefix.length)] = value;
  }
  return values;
};

const ITEM_COLLECTION = Symbol('collection');

/**
 * A many-to-any item: the related object, tagged with its collection (the junction row's
 * collection column) so the union can tell its type. A raw key (a collection the caller
 * cannot read) or a missing row reads as null.
 */
export const unionItem: GraphQLFieldResolver<Item, unknown> = (item, _args, _ctx, info) => {
  const key = responseKey(info);
  const value = item[key];
  const collection = item[collectionKey(key)];
  if (typeof value !== 'object' || value === null || typeof collection !== 'string') return null;
  return Object.defineProperty({ ...value }, ITEM_COLLECTION, { value: collection, enumerable: false });
};

/** The collection a {@link unionItem} value belongs to. */
export function collectionOfUnionItem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const collection = (value as { [ITEM_COLLECTION]?: unknown })[ITEM_COLLECTION];
  return typeof collection === 'string' ? collection : undefined;
}

function responseKey(info: GraphQLResolveInfo): string {
  return String(info.path.key);
}
