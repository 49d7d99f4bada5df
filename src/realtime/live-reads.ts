import type { Knex } from 'knex';
import type { CollectionOverview, SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import type { PermissionStore } from '../access/permission-store.js';
import { canReadCollection } from '../access/read-access.js';
import type { Change } from '../commands/change-set.js';
import type { PrimaryKey } from '../commands/types.js';
import type { Config } from '../config/index.js';
import { isServiceError, ServiceError } from '../errors.js';
import {
  queryLimits,
  readerOf,
  readItems,
  type Item,
  type Query,
  type ReadContext,
  type Reader,
} from '../query/index.js';
import type { ChangeFeed } from './change-feed.js';

export type LiveEvent = Change['action'];

/** Whether a filter or selection names `$CURRENT_USER` (so what it reads depends on the user). */
function mentionsCurrentUser(value: unknown): boolean {
  return value !== undefined && value !== null && JSON.stringify(value).includes('$CURRENT_USER');
}

/** Keys per read of a delivery (and per message): under every dialect's bound-parameter limit. */
const KEYS_PER_READ = 5000;

/** One socket's caller, asked again at every delivery (permissions and tokens are as of now). */
export interface LiveConnection {
  /** The caller now; throws (TOKEN_EXPIRED, INVALID_CREDENTIALS...) when it no longer is one. */
  caller(): Promise<Accountability>;
  /** The caller could not be authenticated again: the connection ends with `error`. */
  end(error: ServiceError): void;
}

/** An item delivered: its key, and its values as the subscriber selected and may read them (none when deleted). */
export interface LiveItem {
  readonly key: PrimaryKey;
  readonly data?: Item;
}

export interface LiveSubscription {
  readonly connection: LiveConnection;
  readonly collection: string;
  /** Only this action; undefined: all three. */
  readonly event: LiveEvent | undefined;
  /** The subscriber's selection (fields, deep, alias, filter); subscriptions with equal ones share reads. */
  readonly query: Query;
  deliver(event: LiveEvent, items: readonly LiveItem[]): void;
}

export interface LiveReadsDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly schema: { getOverview(): Promise<SchemaOverview> };
  readonly permissions: PermissionStore;
  readonly feed: ChangeFeed;
  readonly logger: { warn(details: object, message: string): void };
}

/**
 * The subscriptions of this process and the delivery of each change to them: the changed
 * items are read once per distinct (caller, selection), not per subscription (per role
 * instead of per user when none of the role's read rules nor the selection names
 * `$CURRENT_USER`: the users of such a role read alike), with the
 * caller's permissions of now (row filter for the changed items, fields trimmed); a caller
 * that can no longer read the collection gets nothing. Deleted items: keys only, to callers
 * that may read the collection.
 */
export class LiveReads {
  readonly #byCollection = new Map<string, Set<LiveSubscription>>();
  readonly #stop: () => void;
  /** Deliveries in flight (tests and shutdown wait for them). */
  #pending = new Set<Promise<void>>();
  /** The last delivery per collection: a collection's changes are delivered in the order they came. */
  readonly #last = new Map<string, Promise<void>>();

  constructor(private readonly deps: LiveReadsDeps) {
    this.#stop = deps.feed.subscribe((change) => {
      if (!this.#byCollection.has(change.collection)) return;
      const previous = this.#last.get(change.collection) ?? Promise.resolve();
      const delivery = previous
        .then(() => this.#dispatch(change))
        .catch((error: unknown) =>
          deps.logger.warn({ err: error, collection: change.collection }, 'live data: delivery failed'),
        );
      this.#last.set(change.collection, delivery);
      void delivery.finally(() => {
        if (this.#last.get(change.collection) === delivery) this.#last.delete(change.collection);
      });
      this.#pending.add(delivery);
      void delivery.finally(() => this.#pending.delete(delivery));
    });
  }

  get size(): number {
    let n = 0;
    for (const set of this.#byCollection.values()) n += set.size;
    return n;
  }

  add(subscription: LiveSubscription): () => void {
    let set = this.#byCollection.get(subscription.collection);
    if (set === undefined) this.#byCollection.set(subscription.collection, (set = new Set()));
    set.add(subscription);
    return () => {
      set.delete(subscription);
      if (set.size === 0 && this.#byCollection.get(subscription.collection) === set)
        this.#byCollection.delete(subscription.collection);
    };
  }

  async close(): Promise<void> {
    this.#stop();
    await Promise.allSettled([...this.#pending]);
    this.#byCollection.clear();
  }

  async #dispatch(change: Change): Promise<void> {
    const subscriptions = [...(this.#byCollection.get(change.collection) ?? [])].filter(
      (s) => s.event === undefined || s.event === change.action,
    );
    if (subscriptions.length === 0) return;
    const overview = await this.deps.schema.getOverview();
    const collection = overview.collections[change.collection];
    if (collection === undefined) return;
    const callers = new Map<LiveConnection, Promise<Accountability | undefined>>();
    const callerOf = (connection: LiveConnection) => {
      let caller = callers.get(connection);
      if (caller === undefined) {
        caller = connection.caller().catch((error: unknown) => {
          if (isServiceError(error)) connection.end(error);
          else this.deps.logger.warn({ err: error }, 'live data: caller not authenticated again');
          return undefined;
        });
        callers.set(connection, caller);
      }
      return caller;
    };
    const userBound = new Map<string, Promise<boolean>>();
    const readsByUser = (accountability: Accountability, query: Query): Promise<boolean> => {
      if (mentionsCurrentUser(query)) return Promise.resolve(true);
      if (accountability.admin) return Promise.resolve(false);
      const { role } = accountability;
      const app = role !== null && accountability.app;
      const id = JSON.stringify([role, app]);
      let bound = userBound.get(id);
      if (bound === undefined) {
        bound = this.deps.permissions
          .rulesFor(role, app, overview.version)
          .then((rules) =>
            [...rules.byCollection.values()].some((rule) => mentionsCurrentUser(rule.get('read')?.filter)),
          );
        userBound.set(id, bound);
      }
      return bound;
    };
    const groups = new Map<string, { accountability: Accountability; query: Query; members: LiveSubscription[] }>();
    for (const subscription of subscriptions) {
      const accountability = await callerOf(subscription.connection);
      if (accountability === undefined) continue;
      const { user, role, admin, app } = accountability;
      const isDelete = change.action === 'delete';
      // A read no rule or selection of which names $CURRENT_USER is the same for every user of the role: one read.
      const byUser = !isDelete && (await readsByUser(accountability, subscription.query));
      const id = JSON.stringify([byUser ? user : null, role, admin, app, isDelete ? null : subscription.query]);
      const group = groups.get(id);
      if (group === undefined) groups.set(id, { accountability, query: subscription.query, members: [subscription] });
      else group.members.push(subscription);
    }
    const ctx = { db: this.deps.db, overview, limits: queryLimits(this.deps.config) };
    await Promise.all(
      [...groups.values()].map(async ({ accountability, query, members }) => {
        const reader = await readerOf(this.deps, overview, accountability);
        if (!canReadCollection(reader.access, change.collection)) return;
        // Big batches (an import) are read and delivered a slice of keys at a time: bound parameters are limited.
        for (let at = 0; at < change.keys.length; at += KEYS_PER_READ) {
          const keys = change.keys.slice(at, at + KEYS_PER_READ);
          const items =
            change.action === 'delete'
              ? keys.map((key) => ({ key }))
              : await this.#read(ctx, collection, query, keys, reader);
          if (items === undefined) return;
          if (items.length > 0) for (const member of members) member.deliver(change.action, items);
        }
      }),
    );
  }

  /** The items of `keys` the reader may see, with its selection; undefined when the selection is no longer valid for it. */
  async #read(
    ctx: ReadContext,
    collection: CollectionOverview,
    query: Query,
    keys: readonly PrimaryKey[],
    reader: Reader,
  ): Promise<LiveItem[] | undefined> {
    const primary = collection.primary;
    const asked = query.fields;
    const withKey = asked === undefined || asked.includes('*') || asked.includes(primary);
    const { page: _page, ...unpaged } = query;
    const byKeys = { [primary]: { _in: keys } };
    const keyed: Query = {
      ...unpaged,
      ...(withKey ? {} : { fields: [...(asked ?? []), primary] }),
      filter: query.filter === undefined ? byKeys : { _and: [query.filter, byKeys] },
      limit: -1,
      offset: 0,
    };
    let rows: Item[];
    try {
      rows = await readItems(ctx, collection.collection, keyed, reader);
    } catch (error) {
      // The selection is no longer valid for this caller (a field taken away): nothing to send.
      if (error instanceof ServiceError) return undefined;
      throw error;
    }
    return rows.map((row) => {
      const key = row[primary] as PrimaryKey;
      if (withKey) return { key, data: row };
      const { [primary]: _key, ...data } = row;
      return { key, data };
    });
  }

  /** Resolves when the deliveries started so far are done. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
  }
}
