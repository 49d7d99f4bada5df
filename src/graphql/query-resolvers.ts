import {
  getNamedType,
  isObjectType,
  type GraphQLFieldResolver,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
} from 'graphql';
import { ForbiddenError, invariant } from '../errors.js';
import { parseAsOf, parseVersionKey, type AggregateFunction, type Item, type Query } from '../query/index.js';
import type { GraphqlContext } from './context.js';
import { argumentQuery, SelectionWalker } from './selection.js';
import './type-meta.js';

type Args = Readonly<Record<string, unknown>>;
export type RootResolver = GraphQLFieldResolver<unknown, GraphqlContext, Args>;

/**
 * The read root fields. Each compiles its whole selection set into
 * one `Query` and reads it with one call of the collection's items service (src/items: its
 * read events), one SQL statement per root field (`C_by_id` fields of one request share a
 * batched statement, item-loaders.ts).
 */

/** `C(filter, sort, limit, offset, page, search): [C!]!` */
export function listResolver(collection: string): RootResolver {
  return (_root, args, ctx, info) => ctx.items(collection).readByQuery(selectionQuery(ctx, info, args));
}

/**
 * `C_by_id(id: ID!, as_of: String, version: String): C`; null when the item does not exist or
 * cannot be read (then, with `as_of`: src/query/history/item-as-of.ts; `version`: item-version.ts).
 */
export function byIdResolver(collection: string): RootResolver {
  return async (_root, args, ctx, info) => {
    const query = selectionQuery(ctx, info, {});
    const asOf = args['as_of'];
    const version = args['version'];
    const hasVersion = version !== undefined && version !== null;
    if ((asOf === undefined || asOf === null) && !hasVersion)
      return ctx.loaders.load(collection, query, String(args['id']));
    try {
      const items = ctx.items(collection);
      const id = String(args['id']);
      if (hasVersion) return await items.readVersion(id, query, parseVersionKey(version));
      return await items.readAsOf(id, query, parseAsOf(asOf));
    } catch (error) {
      if (error instanceof ForbiddenError) return null;
      throw error;
    }
  };
}

/** `S: S` for a singleton: its item, or the defaults when it has none. */
export function singletonResolver(collection: string): RootResolver {
  return (_root, _args, ctx, info) => ctx.items(collection).readSingleton(selectionQuery(ctx, info, {}));
}

const AGGREGATE_FUNCTIONS: readonly AggregateFunction[] = [
  'count',
  'countDistinct',
  'countAll',
  'sum',
  'sumDistinct',
  'avg',
  'avgDistinct',
  'min',
  'max',
];

/**
 * `C_aggregated(groupBy, filter, ...)`: the selected functions and their fields become the
 * query's `aggregate`; each row answers `group` (the group keys, null without groupBy) and
 * the function objects by name.
 */
export function aggregatedResolver(collection: string): RootResolver {
  return async (_root, args, ctx, info) => {
    const type = returnObjectType(info);
    const walker = new SelectionWalker(info, ctx.read.overview);
    const aggregate: Partial<Record<AggregateFunction, string[]>> = {};
    for (const [, nodes] of walker.collect(type, info.fieldNodes)) {
      const fn = nodes[0]?.name.value as AggregateFunction;
      if (!AGGREGATE_FUNCTIONS.includes(fn)) continue;
      if (fn === 'countAll') {
        aggregate.countAll = ['*'];
        continue;
      }
      const valuesType = getNamedType(type.getFields()[fn]?.type);
      invariant(isObjectType(valuesType), `${type.name}.${fn} is an object`);
      const fields = aggregate[fn] ?? [];
      for (const [, fieldNodes] of walker.collect(valuesType, nodes)) {
        const meta = valuesType.getFields()[fieldNodes[0]?.name.value ?? '']?.extensions.svcField;
        if (meta?.kind === 'aggregate' && !fields.includes(meta.field)) fields.push(meta.field);
      }
      if (fields.length > 0) aggregate[fn] = fields;
    }
    const query = argumentQuery(rootField(info), args);
    // A selection of `group` alone still groups: count the rows so the query aggregates.
    if (Object.keys(aggregate).length === 0) aggregate.countAll = ['*'];
    const rows = await ctx.items(collection).readByQuery({ ...query, aggregate });
    const isGrouped = (query.groupBy?.length ?? 0) > 0;
    return rows.map((row) => ({ ...row, group: isGrouped ? groupOf(row) : null }));
  };
}

function groupOf(row: Item): Item {
  return Object.fromEntries(
    Object.entries(row).filter(([key]) => !(AGGREGATE_FUNCTIONS as readonly string[]).includes(key)),
  );
}

/** The root field's selection (and arguments) as the read side's query. */
export function selectionQuery(ctx: GraphqlContext, info: GraphQLResolveInfo, args: Args): Query {
  return new SelectionWalker(info, ctx.read.overview).rootQuery(
    returnObjectType(info),
    info.fieldNodes,
    args,
    rootField(info),
  );
}

function returnObjectType(info: GraphQLResolveInfo): GraphQLObjectType {
  const type = getNamedType(info.returnType);
  invariant(isObjectType(type), `${info.fieldName} returns objects`);
  return type;
}

function rootField(info: GraphQLResolveInfo) {
  const field = info.parentType.getFields()[info.fieldName];
  invariant(field !== undefined, `${info.fieldName} is a field of ${info.parentType.name}`);
  return field;
}
