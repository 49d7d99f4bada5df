import {
  GraphQLID,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLNamedType,
} from 'graphql';
import type { CollectionOverview, SchemaOverview } from '../../catalog/overview/types.js';
import { CollectionTypes } from './collection-types.js';
import type { GraphqlContext } from './context.js';
import { rootName } from './names.js';
import {
  createItemResolver,
  createItemsResolver,
  deleteItemResolver,
  deleteItemsResolver,
  updateBatchResolver,
  updateItemResolver,
  updateItemsResolver,
  updateSingletonResolver,
} from './mutation-resolvers.js';
import { aggregatedResolver, byIdResolver, listResolver, singletonResolver } from './query-resolvers.js';
import { GraphQLVoid } from './scalars.js';
import { DELETE_MANY, DELETE_ONE } from './shared-types.js';
import { addSubscriptionRoot, type SubscriptionContext } from './subscription-roots.js';
import { addSystemRoots } from './system-roots.js';
import { addVersionRoots } from './version-roots.js';
import { addHistoryRoots } from './history-roots.js';
import type { SchemaAccess } from '../access/role-schema-access.js';
import { isWritableAsItems } from '../items/writable.js';

type RootFields = GraphQLFieldConfigMap<unknown, GraphqlContext>;

/** The two endpoints' schemas: the same types, different root fields. */
export interface ScopedSchemas {
  /** POST /graphql: user collections. */
  readonly items: GraphQLSchema;
  /** POST /graphql/system: system collections. */
  readonly system: GraphQLSchema;
}

export type Scope = keyof ScopedSchemas;

interface ScopeRoots {
  readonly query: RootFields;
  readonly mutation: RootFields;
  readonly subscription: GraphQLFieldConfigMap<unknown, SubscriptionContext>;
}

export interface BuildOptions {
  /** `<collection>_mutated` subscription roots (the WebSocket endpoint's schemas). */
  readonly subscriptions?: boolean;
}

/**
 * Both scopes' schemas for one role, from the schema overview. A
 * collection's root fields live in the scope of its kind (system collections in `system`,
 * named without `svc_`); its types exist in both, so relations work across scopes.
 */
export function buildSchemas(
  overview: SchemaOverview,
  access: SchemaAccess,
  options: BuildOptions = {},
): ScopedSchemas {
  const types = new CollectionTypes(overview, access);
  const scopes: Record<Scope, ScopeRoots> = {
    items: { query: {}, mutation: {}, subscription: {} },
    system: { query: {}, mutation: {}, subscription: {} },
  };
  for (const collection of Object.values(overview.collections)) {
    if (!types.isItemCollection(collection.collection)) continue;
    const scope = scopes[collection.isSystem ? 'system' : 'items'];
    addQueryRoots(scope.query, types, collection);
    if (options.subscriptions === true) addSubscriptionRoot(scope.subscription, types, collection);
    // The items service's rule (src/items/writable.ts), as REST and the WebSocket apply it.
    if (isWritableAsItems(collection.collection)) {
      addMutationRoots(scope.mutation, types, collection, access);
    }
  }
  addSystemRoots(scopes.system.query, scopes.system.mutation, types, access);
  addVersionRoots(scopes.system.mutation, types, access);
  addHistoryRoots(scopes.system.query, scopes.system.mutation, access);
  const shared = Object.values(overview.collections)
    .filter((c) => types.isItemCollection(c.collection))
    .map((c): GraphQLNamedType => types.object(c.collection));
  // Each scope's schema is made on first use: most callers only ever use one.
  let items: GraphQLSchema | undefined;
  let system: GraphQLSchema | undefined;
  return {
    get items() {
      return (items ??= toSchema(scopes.items, shared));
    },
    get system() {
      return (system ??= toSchema(scopes.system, shared));
    },
  };
}

/** `C`, `C_by_id`, `C_aggregated`; a singleton has `S` only. */
function addQueryRoots(fields: RootFields, types: CollectionTypes, collection: CollectionOverview): void {
  const name = collection.collection;
  const root = rootName(name, collection.isSystem);
  const type = types.object(name);
  if (collection.singleton) {
    addRoot(fields, root, { type, resolve: singletonResolver(name) });
    return;
  }
  addRoot(fields, root, {
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type))),
    args: types.listArgs(name),
    resolve: listResolver(name),
    extensions: { svcRoot: { kind: 'list', collection: name } },
  });
  // as_of (issue 18): the item as it was at a moment (ISO 8601) or revision id; version: as a content version has it.
  const byIdArgs = {
    id: { type: new GraphQLNonNull(GraphQLID) },
    as_of: { type: GraphQLString },
    version: { type: GraphQLString },
  };
  addRoot(fields, `${root}_by_id`, {
    type,
    args: byIdArgs,
    resolve: byIdResolver(name),
    extensions: { svcRoot: { kind: 'byId', collection: name } },
  });
  addRoot(fields, `${root}_aggregated`, {
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(types.aggregated(name)))),
    args: { groupBy: { type: new GraphQLList(GraphQLString) }, ...types.listArgs(name) },
    resolve: aggregatedResolver(name),
  });
}

/** The mutations the role may run on a collection it reads. */
function addMutationRoots(
  fields: RootFields,
  types: CollectionTypes,
  collection: CollectionOverview,
  access: SchemaAccess,
): void {
  const name = collection.collection;
  const root = rootName(name, collection.isSystem);
  const type = types.object(name);
  const list = new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type)));
  const create = types.input('create', name);
  const update = types.input('update', name);
  if (collection.singleton) {
    if (update !== undefined)
      addRoot(fields, `update_${root}`, {
        type,
        args: { data: { type: new GraphQLNonNull(update) } },
        resolve: updateSingletonResolver(name),
      });
    return;
  }
  const id = { type: new GraphQLNonNull(GraphQLID) };
  const ids = { type: new GraphQLNonNull(new GraphQLList(GraphQLID)) };
  if (create !== undefined) {
    addRoot(fields, `create_${root}_items`, {
      type: list,
      args: { ...types.listArgs(name), data: { type: new GraphQLList(new GraphQLNonNull(create)) } },
      resolve: createItemsResolver(name),
    });
    addRoot(fields, `create_${root}_item`, {
      type,
      args: { data: { type: new GraphQLNonNull(create) } },
      resolve: createItemResolver(name),
    });
  }
  if (update !== undefined) {
    const data = { type: new GraphQLList(new GraphQLNonNull(update)) };
    addRoot(fields, `update_${root}_items`, {
      type: list,
      args: { ...types.listArgs(name), ids, data },
      resolve: updateItemsResolver(name),
    });
    addRoot(fields, `update_${root}_batch`, {
      type: list,
      args: { ...types.listArgs(name), data },
      resolve: updateBatchResolver(name),
    });
    addRoot(fields, `update_${root}_item`, {
      type,
      args: { id, data: { type: new GraphQLNonNull(update) } },
      resolve: updateItemResolver(name),
    });
  }
  if (access.canDelete(name)) {
    addRoot(fields, `delete_${root}_items`, { type: DELETE_MANY, args: { ids }, resolve: deleteItemsResolver(name) });
    addRoot(fields, `delete_${root}_item`, { type: DELETE_ONE, args: { id }, resolve: deleteItemResolver(name) });
  }
}

function addRoot(fields: RootFields, name: string, config: GraphQLFieldConfig<unknown, GraphqlContext>): void {
  if (!Object.hasOwn(fields, name)) fields[name] = config;
}

function toSchema(roots: ScopeRoots, types: readonly GraphQLNamedType[]): GraphQLSchema {
  const queryFields: RootFields =
    Object.keys(roots.query).length > 0
      ? roots.query
      : { _empty: { type: GraphQLVoid, description: "There's no data to query." } };
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: queryFields }),
    mutation:
      Object.keys(roots.mutation).length > 0
        ? new GraphQLObjectType({ name: 'Mutation', fields: roots.mutation })
        : undefined,
    subscription:
      Object.keys(roots.subscription).length > 0
        ? new GraphQLObjectType({ name: 'Subscription', fields: roots.subscription })
        : undefined,
    types,
  });
}
