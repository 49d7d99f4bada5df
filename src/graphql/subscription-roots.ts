import {
  getNamedType,
  GraphQLEnumType,
  GraphQLID,
  GraphQLNonNull,
  GraphQLObjectType,
  isObjectType,
  type GraphQLFieldConfigMap,
  type GraphQLResolveInfo,
} from 'graphql';
import type { CollectionOverview } from '../../catalog/overview/types.js';
import { invariant } from '../errors.js';
import type { Query, ReadContext } from '../query/index.js';
import type { LivePayload } from '../realtime/live-iterator.js';
import type { LiveEvent } from '../realtime/live-batch.js';
import type { CollectionTypes } from './collection-types.js';
import { rootName } from './names.js';
import { levelQuery, SelectionWalker } from './selection.js';

/** What a subscription's resolvers need: the read side's context (the overview) and the live feed of this socket. */
export interface SubscriptionContext {
  readonly read: ReadContext;
  readonly live: (collection: string, event: LiveEvent | undefined, query: Query) => AsyncIterableIterator<LivePayload>;
}

/** Directus 10's `EventEnum` of `<collection>_mutated(event:)`. */
const EVENT_ENUM = new GraphQLEnumType({
  name: 'EventEnum',
  values: { create: { value: 'create' }, update: { value: 'update' }, delete: { value: 'delete' } },
});

/**
 * `<collection>_mutated(event: EventEnum): <collection>_mutated { key, event, data }`: one
 * payload per changed item; `data` is read with the subscriber's own selection of it (the
 * same SelectionWalker as queries), null when the item was deleted.
 */
export function addSubscriptionRoot(
  fields: GraphQLFieldConfigMap<unknown, SubscriptionContext>,
  types: CollectionTypes,
  collection: CollectionOverview,
): void {
  const name = collection.collection;
  const root = `${rootName(name, collection.isSystem)}_mutated`;
  if (Object.hasOwn(fields, root)) return;
  const type = new GraphQLObjectType<LivePayload>({
    name: root,
    fields: {
      key: { type: new GraphQLNonNull(GraphQLID), resolve: (payload) => payload.key },
      event: { type: EVENT_ENUM, resolve: (payload) => payload.event },
      data: { type: types.object(name), resolve: (payload) => payload.data },
    },
  });
  fields[root] = {
    type,
    args: { event: { type: EVENT_ENUM } },
    subscribe: (_root, args: { event?: LiveEvent | null }, ctx, info) =>
      ctx.live(name, args.event ?? undefined, dataQuery(ctx, info)),
    resolve: (payload: unknown) => payload,
  };
}

/** The query of the `data` selections of the root field (`fields` of the subscriber's own selection). */
function dataQuery(ctx: SubscriptionContext, info: GraphQLResolveInfo): Query {
  const walker = new SelectionWalker(info, ctx.read.overview);
  const mutated = getNamedType(info.returnType);
  invariant(isObjectType(mutated), `${info.fieldName} returns an object`);
  const dataNodes = [...walker.collect(mutated, info.fieldNodes)]
    .flatMap(([, nodes]) => nodes)
    .filter((node) => node.name.value === 'data');
  if (dataNodes.length === 0) return { fields: [] };
  const itemType = getNamedType(mutated.getFields()['data']?.type);
  invariant(isObjectType(itemType), `${info.fieldName}.data is an object`);
  return levelQuery(walker.level(itemType, dataNodes));
}
