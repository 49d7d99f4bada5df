import type { Knex } from 'knex';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import type { PermissionStore } from '../access/permission-store.js';
import type { Change, SeenBy } from '../commands/change-set.js';
import type { PrimaryKey } from '../commands/types.js';
import type { Config } from '../config/index.js';
import { isServiceError, LimitExceededError, ServiceError } from '../errors.js';
import { queryLimits, type Query, type Reader } from '../query/index.js';
import type { ChangeFeed, FeedChange } from './change-feed.js';
import { LiveBatch, type LiveEvent } from './live-batch.js';
import {
  callerViews,
  groupReader,
  memberOf,
  readGroup,
  selectionReach,
  type CallerView,
  type Group,
  type Share,
} from './shared-reads.js';
import { mentionsCurrentUser, selectionFits, type UserRulePlan } from './user-rules.js';
import { KEYS_PER_READ, roleViewerOf, seenFilter, userBoundRoles, viewerOf, witnessDelete } from './delete-witness.js';

/** One socket's caller, asked again at every delivery (permissions and tokens are as of now). */
export interface LiveConnection {
  /** The caller now; throws (TOKEN_EXPIRED, INVALID_CREDENTIALS...) when it no longer is one. */
  caller(): Promise<Accountability>;
  /**
   * Connections of one key (the same token from the same address) are the same caller: it is
   * authenticated once per change for all of them. Undefined: on its own.
   */
  readonly callerKey?: string | undefined;
  /** The caller could not be authenticated again: the connection ends with `error`. */
  end(error: ServiceError): void;
  /** The caller as last authenticated (at a subscribe or a delivery); undefined: not yet. */
  readonly lastCaller?: Accountability | undefined;
  /**
   * The last caller while it may stand for the caller now (socket-caller.ts): a change is read
   * for it, and only a connection then sent something is authenticated again. Undefined (or
   * absent): authenticated before the read.
   */
  recentCaller?(): Accountability | undefined;
  /**
   * Whose subscriptions these are, for WEBSOCKETS_SUBSCRIPTION_USER_LIMIT: the user, or for
   * the public role the client's address. Undefined: counted on its own.
   */
  readonly ownerKey?: string | undefined;
  /** Holds the connection's frames until `uncork`: the frames of one change leave in one write. */
  cork?(): void;
  uncork?(): void;
}

export interface LiveSubscription {
  readonly connection: LiveConnection;
  readonly collection: string;
  /** Only this action; undefined: all three. */
  readonly event: LiveEvent | undefined;
  /** Only the changes of this item (Directus 10's `item`); undefined: every item. */
  readonly item?: PrimaryKey | undefined;
  /** The subscriber's selection (fields, deep, alias, filter); subscriptions with equal ones share reads. */
  readonly query: Query;
  /** Runs inside the delivery loop: no awaiting, no throwing. */
  deliver(batch: LiveBatch): void;
}

export interface LiveReadsDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly schema: { getOverview(): Promise<SchemaOverview> };
  readonly permissions: PermissionStore;
  readonly feed: ChangeFeed;
  readonly logger: { warn(details: object, message: string): void };
}

/** A subscription as kept: what grouping needs of its query is worked out once, when added. */
interface Entry {
  readonly subscription: LiveSubscription;
  readonly queryKey: string;
  readonly namesUser: boolean;
  /** Unsubscribed: what is still queued for it is not sent. */
  isStopped: boolean;
  /** The collections its selection reads (shared-reads.ts selectionReach), for the schema it was worked out on. */
  reach?: { readonly overview: SchemaOverview; readonly value: Set<string> | undefined };
}

const NO_ONE: ReadonlyMap<LiveConnection, Set<Entry>> = new Map();
const NO_ITEM: ReadonlySet<string> = new Set();

const entryOf = (subscription: LiveSubscription): Entry => ({
  subscription,
  queryKey: JSON.stringify(subscription.query),
  namesUser: mentionsCurrentUser(subscription.query),
  isStopped: false,
});

/** A caller's group for one selection: its id, and the rule plan its read is checked in memory by. */
interface Slot {
  readonly id: string;
  readonly plan?: UserRulePlan | undefined;
}

/** The subscriptions of one connection a change concerns, and the group of each. */
interface Target {
  readonly connection: LiveConnection;
  readonly entries: Entry[];
  /** What each entry is sent: its group's batch, or its user's share of it. */
  readonly groups: Share[];
}

/**
 * The subscriptions of this process and the delivery of each change to them: each connection's
 * caller is authenticated again (once per token and address), the changed items are read once
 * per selection and permission fingerprint (shared-reads.ts: the role, and the rules naming
 * `$CURRENT_USER` as resolved for the caller; once for a whole role when such a rule can be
 * checked in memory, user-rules.ts), not per subscription, with the callers' permissions of now
 * (row filter for the changed items, fields trimmed), and each read's items are serialized once
 * (per user sharing a read); a caller that can no longer read the
 * collection gets nothing. Deleted items: keys only, to callers that may read the collection.
 * Delivery is fair: each connection's changes queue in order, and the connections are served
 * round robin, one change each per round, each corked while its frames are sent.
 */
export class LiveReads {
  readonly #byCollection = new Map<string, Map<LiveConnection, Set<Entry>>>();
  readonly #stop: () => void;
  /** Deliveries in flight (tests and shutdown wait for them). */
  #pending = new Set<Promise<void>>();
  /** The last delivery per collection: a collection's changes are delivered in the order they came. */
  readonly #last = new Map<string, Promise<void>>();
  /** Subscriptions to one item (Directus's `item`) per collection: without any, a change names no item to look for. */
  readonly #ofItems = new Map<string, number>();
  /** Subscriptions held per connection and per owner (the subscription limits). */
  readonly #perConnection = new Map<LiveConnection, number>();
  readonly #perOwner = new Map<string, number>();
  /** Each connection's changes not sent yet, oldest first (#drain). */
  readonly #outbox = new Map<LiveConnection, Sends[]>();
  #draining: Promise<void> | undefined;

  constructor(private readonly deps: LiveReadsDeps) {
    deps.feed.setWitness((trx, collection, keys) => this.witnessDelete(trx, collection, keys));
    this.#stop = deps.feed.subscribe((change) => {
      if (!this.#byCollection.has(change.collection)) return;
      const previous = this.#last.get(change.collection) ?? Promise.resolve();
      const delivery = previous
        .then(() => this.#dispatch(change))
        .catch((error: unknown) => {
          deps.logger.warn({ err: error, collection: change.collection }, 'live data: delivery failed');
        });
      this.#last.set(change.collection, delivery);
      this.#pending.add(delivery);
      void delivery.finally(() => {
        if (this.#last.get(change.collection) === delivery) this.#last.delete(change.collection);
        this.#pending.delete(delivery);
      });
    });
  }

  get size(): number {
    let n = 0;
    for (const connections of this.#byCollection.values()) for (const set of connections.values()) n += set.size;
    return n;
  }

  /**
   * Keeps `subscription` until the returned stop is called. LIMIT_EXCEEDED when its connection
   * holds WEBSOCKETS_SUBSCRIPTION_LIMIT subscriptions already, or its owner (user, or address
   * for the public role) WEBSOCKETS_SUBSCRIPTION_USER_LIMIT over all its connections here:
   * counted here, at once, so a burst of subscribes cannot pass the limit together.
   */
  add(subscription: LiveSubscription): () => void {
    const { collection, connection } = subscription;
    const { subscriptionLimit, subscriptionUserLimit } = this.deps.config.websockets;
    const owner = connection.ownerKey;
    const held = this.#perConnection.get(connection) ?? 0;
    const owned = owner === undefined ? 0 : (this.#perOwner.get(owner) ?? 0);
    if (held >= subscriptionLimit || owned >= subscriptionUserLimit) throw new LimitExceededError('subscriptions');
    this.#perConnection.set(connection, held + 1);
    if (owner !== undefined) this.#perOwner.set(owner, owned + 1);
    let isStopped = false;
    const uncount = () => {
      if (isStopped) return;
      isStopped = true;
      const left = (this.#perConnection.get(connection) ?? 1) - 1;
      if (left > 0) this.#perConnection.set(connection, left);
      else this.#perConnection.delete(connection);
      if (owner === undefined) return;
      const ownedLeft = (this.#perOwner.get(owner) ?? 1) - 1;
      if (ownedLeft > 0) this.#perOwner.set(owner, ownedLeft);
      else this.#perOwner.delete(owner);
    };
    let connections = this.#byCollection.get(collection);
    if (connections === undefined)
      this.#byCollection.set(collection, (connections = new Map<LiveConnection, Set<Entry>>()));
    let set = connections.get(connection);
    if (set === undefined) connections.set(connection, (set = new Set<Entry>()));
    const entry = entryOf(subscription);
    set.add(entry);
    const isOfItem = subscription.item !== undefined;
    if (isOfItem) this.#ofItems.set(collection, (this.#ofItems.get(collection) ?? 0) + 1);
    return () => {
      if (isOfItem && !entry.isStopped) this.#ofItems.set(collection, (this.#ofItems.get(collection) ?? 1) - 1);
      entry.isStopped = true;
      uncount();
      set.delete(entry);
      if (set.size > 0 || connections.get(connection) !== set) return;
      connections.delete(connection);
      if (connections.size === 0 && this.#byCollection.get(collection) === connections)
        this.#byCollection.delete(collection);
    };
  }

  /** Sends `changes` (a resuming subscriber's gap, from the feed's log) to `subscription` alone, in order, read now. */
  async replay(subscription: LiveSubscription, changes: readonly FeedChange[]): Promise<void> {
    const only = new Map([[subscription.connection, new Set([entryOf(subscription)])]]);
    for (const change of changes) if (change.collection === subscription.collection) await this.#dispatch(change, only);
  }

  async close(): Promise<void> {
    this.#stop();
    this.deps.feed.setWitness(undefined);
    await this.settled();
    this.#outbox.clear();
    this.#byCollection.clear();
    this.#ofItems.clear();
  }

  /**
   * Asked inside a delete's transaction, before the rows go (ItemWriter.delete, through the
   * feed): which of `keys` each local subscriber of the collection's deletes could read then
   * (delete-witness.ts), by its caller as last authenticated. Undefined when no one here listens.
   */
  witnessDelete(trx: Knex.Transaction, collection: string, keys: readonly PrimaryKey[]): Promise<SeenBy | undefined> {
    const subscribed = this.#byCollection.get(collection);
    const viewers = new Map<string, Accountability>();
    for (const [connection, set] of subscribed ?? []) {
      const caller = connection.lastCaller;
      if (caller === undefined) continue;
      for (const { subscription } of set)
        if (subscription.event === undefined || subscription.event === 'delete') {
          viewers.set(viewerOf(caller), caller);
          break;
        }
    }
    if (subscribed === undefined && !this.deps.feed.isShared) return Promise.resolve(undefined);
    return witnessDelete(this.deps, viewers, trx, collection, keys);
  }

  /** The connections a change concerns (of `subscribed`), with their subscriptions to it (as of its arrival). */
  #targetsOf(change: Change, only?: ReadonlyMap<LiveConnection, Set<Entry>>): Target[] {
    const subscribed = only ?? this.#byCollection.get(change.collection) ?? NO_ONE;
    // The items subscriptions name, when any does (most name none: no look through the keys).
    const changed =
      only === undefined && (this.#ofItems.get(change.collection) ?? 0) === 0
        ? NO_ITEM
        : changedItems(change, subscribed.values());
    const targets: Target[] = [];
    for (const [connection, set] of subscribed) {
      const entries: Entry[] = [];
      for (const entry of set) {
        const { event, item } = entry.subscription;
        if ((event === undefined || event === change.action) && (item === undefined || changed.has(String(item))))
          entries.push(entry);
      }
      if (entries.length > 0) targets.push({ connection, entries, groups: [] });
    }
    return targets;
  }

  /**
   * Each target's caller (undefined: the connection was ended), one authentication per caller
   * key; with `recent`, a connection's recent caller where it has one, not asked again
   * (`provisional`: these are authenticated before they are sent anything, #confirmed).
   */
  async #callersOf(
    targets: readonly Target[],
    recent: boolean,
  ): Promise<{ callers: (Accountability | undefined)[]; provisional: Set<Target> }> {
    const byKey = new Map<string, Promise<Accountability>>();
    const provisional = new Set<Target>();
    const standing = new Map<Target, Accountability>();
    const asked = targets.flatMap((target) => {
      const { connection } = target;
      const caller = recent ? connection.recentCaller?.() : undefined;
      if (caller !== undefined) {
        provisional.add(target);
        standing.set(target, caller);
        return [];
      }
      return [{ target, connection, caller: authenticateOnce(connection) }];
    });
    function authenticateOnce(connection: LiveConnection): Promise<Accountability> {
      const key = connection.callerKey;
      let caller = key === undefined ? undefined : byKey.get(key);
      if (caller === undefined) {
        caller = connection.caller();
        if (key !== undefined) byKey.set(key, caller);
      }
      return caller;
    }
    // One wait per distinct authentication (all the connections of a token share one), then a loop.
    const distinct = [...new Set(asked.map((a) => a.caller))];
    const settled = distinct.length === 0 ? [] : await Promise.allSettled(distinct);
    const outcomes = new Map(distinct.map((caller, i) => [caller, settled[i]] as const));
    const authenticated = new Map<Target, Accountability | undefined>();
    for (const { target, connection, caller } of asked) {
      const outcome = outcomes.get(caller);
      if (outcome?.status === 'fulfilled') {
        authenticated.set(target, outcome.value);
        continue;
      }
      const error: unknown = outcome?.reason;
      if (isServiceError(error)) connection.end(error);
      else this.deps.logger.warn({ err: error }, 'live data: caller not authenticated again');
      authenticated.set(target, undefined);
    }
    const callers = targets.map((target) => standing.get(target) ?? authenticated.get(target));
    return { callers, provisional };
  }

  /**
   * The targets of `reached` that may be sent what was read for them: those read for a caller
   * authenticated now, and those read for a recent caller (`provisional`: each with the caller
   * it was read for) once authenticated again, when they are still that caller. One whose
   * authentication fails is ended and sent nothing; one who is now someone else (another role
   * or access) is put in `reread`, to be read again as who they are now. `verdicts` keeps each
   * target's answer across the slices of one change.
   */
  async #confirmed(
    reached: readonly Target[],
    provisional: ReadonlyMap<Target, Accountability>,
    verdicts: Map<Target, boolean>,
    reread: Map<LiveConnection, Set<Entry>>,
  ): Promise<Target[]> {
    const asking = reached.filter(
      (target) => provisional.has(target) && !verdicts.has(target) && target.groups.some((g) => g.batch !== undefined),
    );
    if (asking.length > 0) {
      const { callers } = await this.#callersOf(asking, false);
      asking.forEach((target, i) => {
        const now = callers[i];
        const readFor = provisional.get(target);
        const same = now !== undefined && readFor !== undefined && sameCaller(now, readFor);
        verdicts.set(target, same);
        if (now !== undefined && !same) reread.set(target.connection, new Set(target.entries));
      });
    }
    return reached.filter((target) => !provisional.has(target) || verdicts.get(target) === true);
  }

  /**
   * Reads and sends `change` to its subscribers, or to `only` these: a replay, sent at once,
   * or (`queued`) those to read again as who they are now, queued as any change.
   */
  async #dispatch(
    change: FeedChange,
    only?: Map<LiveConnection, Set<Entry>>,
    queued = only === undefined,
  ): Promise<void> {
    const targets = this.#targetsOf(change, only);
    if (targets.length === 0) return;
    const overview = await this.deps.schema.getOverview();
    const collection = overview.collections[change.collection];
    if (collection === undefined) return;
    // Read for each connection's recent caller where it has one; those sent something are asked again.
    const { callers, provisional: standing } = await this.#callersOf(targets, only === undefined);
    const provisional = new Map<Target, Accountability>();
    const isDelete = change.action === 'delete';
    // Roles whose read rules name $CURRENT_USER: each caller's rules resolved (at one moment for all).
    const views = isDelete
      ? new Map<Accountability, CallerView>()
      : await callerViews(this.deps, overview, change.collection, callers, new Date());
    const userBound = isDelete ? await userBoundRoles(this.deps.permissions, callers, overview) : new Set<string>();
    // What each selection reads, worked out once per schema (an object a kept view's fingerprints are remembered by).
    const reachOf = (entry: Entry) => {
      if (entry.reach?.overview !== overview)
        entry.reach = { overview, value: selectionReach(entry.subscription.query, overview, change.collection) };
      return entry.reach.value;
    };
    // Each caller's group per selection, worked out once for all its subscriptions of that selection.
    const slotsOf = new Map<Accountability, Map<string, Slot>>();
    const groups = new Map<string, Group>();
    const reached: Target[] = [];
    targets.forEach((target, t) => {
      const accountability = callers[t];
      if (accountability === undefined) return;
      if (standing.has(target)) provisional.set(target, accountability);
      const { user, role, admin, app } = accountability;
      const view = views.get(accountability);
      const callerId = `${admin}\n${app}\n${role}\n`;
      let slots = slotsOf.get(accountability);
      if (slots === undefined) slotsOf.set(accountability, (slots = new Map<string, Slot>()));
      for (const entry of target.entries) {
        const { query } = entry.subscription;
        let slot = slots.get(entry.queryKey);
        if (slot === undefined) {
          // Checked in memory: one read for all users of the role alike but for that rule, each given their rows.
          const plan =
            view?.plan !== undefined && !entry.namesUser && selectionFits(query, view.plan) ? view.plan : undefined;
          // Reads alike: the same selection and permission fingerprint (role, rules naming the user as resolved).
          const fingerprint = view?.fingerprint(reachOf(entry), plan !== undefined);
          const id = isDelete
            ? viewerOf(accountability)
            : `${entry.namesUser ? user : ''}\n${plan !== undefined}\n${fingerprint ?? ''}\n${callerId}${entry.queryKey}`;
          slots.set(entry.queryKey, (slot = { id, plan }));
        }
        const { id, plan } = slot;
        const shared = plan !== undefined;
        let group = groups.get(id);
        if (group === undefined) {
          group = {
            accountability,
            query,
            batch: undefined,
            ...(plan === undefined ? {} : { users: { plan, members: new Map() } }),
          };
          // Its own verdict (a subscriber of the deleting instance), else its role's (another's).
          const roleId = `${role}\n${role !== null && app}`;
          if (isDelete)
            group.seen =
              seenFilter(change.seenBy, id) ??
              (userBound.has(roleId) ? undefined : seenFilter(change.seenBy, roleViewerOf(role, app)));
          groups.set(id, group);
        }
        const { userParts, userPartsKey } = view ?? {};
        target.groups.push(
          shared && userParts !== undefined && userPartsKey !== undefined
            ? memberOf(group, userParts, userPartsKey)
            : group,
        );
      }
      reached.push(target);
    });
    const ctx = { db: this.deps.db, overview, limits: queryLimits(this.deps.config) };
    const readers = new Map<Group, Reader>();
    await Promise.all(
      [...groups.values()].map(async (group) => {
        const reader = await groupReader(this.deps, overview, change.collection, group);
        if (reader === undefined) return;
        // A delete no witness speaks for (another instance's subscribers, a path past
        // ItemWriter): only to those who read every row, who could read these.
        if (isDelete && group.seen === undefined && reader.access.rowFilter(change.collection) !== null) return;
        readers.set(group, reader);
      }),
    );
    const verdicts = new Map<Target, boolean>();
    const reread = new Map<LiveConnection, Set<Entry>>();
    // Big batches (an import) are read and delivered a slice of keys at a time: bound parameters are limited.
    for (let at = 0; at < change.keys.length; at += KEYS_PER_READ) {
      const keys = change.keys.slice(at, at + KEYS_PER_READ);
      await Promise.all(
        [...readers].map(async ([group, reader]) => {
          if (isDelete) {
            const seen = group.seen;
            const items = (seen === undefined ? keys : keys.filter(seen)).map((key) => ({ key }));
            group.batch = items.length === 0 ? undefined : new LiveBatch(change.action, items, change.id);
          } else if (!(await readGroup(ctx, collection, group, change, keys, reader))) readers.delete(group);
        }),
      );
      const sendable = await this.#confirmed(reached, provisional, verdicts, reread);
      if (queued) this.#enqueue(sendable);
      else for (const [connection, sends] of sendsOf(sendable)) deliverTo(connection, sends, this.deps.logger);
    }
    if (reread.size > 0) await this.#dispatch(change, reread, true);
  }

  /** Resolves when the deliveries started so far are done. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0 || this.#draining !== undefined) {
      await Promise.allSettled([...this.#pending]);
      await this.#draining;
    }
  }

  /**
   * Queues each connection's share of a change behind its earlier ones (a connection gets its
   * events in order) and starts the sending if it is not running.
   */
  #enqueue(targets: readonly Target[]): void {
    for (const [connection, sends] of sendsOf(targets)) {
      let queue = this.#outbox.get(connection);
      if (queue === undefined) this.#outbox.set(connection, (queue = []));
      queue.push(sends);
    }
    if (this.#draining === undefined && this.#outbox.size > 0) this.#draining = this.#drain();
  }

  /**
   * Fair delivery: round robin over the connections with something to send, one change each
   * per round, the event loop let run every {@link FRAMES_PER_TURN} frames. A socket holding
   * hundreds of subscriptions, or a backlog of changes, does not hold up another's next event.
   */
  async #drain(): Promise<void> {
    // Started from #enqueue: #draining is set before the first round runs.
    await Promise.resolve();
    let frames = 0;
    try {
      while (this.#outbox.size > 0) {
        for (const [connection, queue] of [...this.#outbox]) {
          const sends = queue.shift();
          if (queue.length === 0 && this.#outbox.get(connection) === queue) this.#outbox.delete(connection);
          if (sends !== undefined) frames += deliverTo(connection, sends, this.deps.logger);
          if (frames >= FRAMES_PER_TURN) {
            frames = 0;
            await new Promise<void>((resolve) => setImmediate(resolve));
          }
        }
      }
    } catch (error) {
      this.#outbox.clear();
      this.deps.logger.warn({ err: error }, 'live data: delivery stopped');
    } finally {
      // No await since the last look at the outbox: an #enqueue from now on starts a new round.
      this.#draining = undefined;
    }
  }
}

/**
 * Which of the items subscriptions name (as text) `change` concerns: its keys are looked
 * through a slice at a time, an import's millions never held as one list.
 */
function changedItems(change: Change, sets: Iterable<Set<Entry>>): Set<string> {
  const named = new Set<string>();
  for (const set of sets)
    for (const { subscription } of set) if (subscription.item !== undefined) named.add(String(subscription.item));
  const found = new Set<string>();
  for (let at = 0; at < change.keys.length && named.size > found.size; at += KEYS_PER_READ)
    for (const key of change.keys.slice(at, at + KEYS_PER_READ)) if (named.has(String(key))) found.add(String(key));
  return found;
}

/** The same caller as far as what they may read goes (their origin is their connection's). */
function sameCaller(a: Accountability, b: Accountability): boolean {
  return a.user === b.user && a.role === b.role && a.admin === b.admin && a.app === b.app;
}

/** Frames sent before the delivery loop lets the event loop run (pings, other sockets' messages). */
const FRAMES_PER_TURN = 256;

/** One change's batches for one connection's subscriptions. */
type Sends = readonly (readonly [Entry, LiveBatch])[];

/** What `targets` get of the batches read now (a later slice or change replaces them), per connection. */
function sendsOf(targets: readonly Target[]): [LiveConnection, Sends][] {
  const out: [LiveConnection, Sends][] = [];
  for (const { connection, entries, groups } of targets) {
    const sends: [Entry, LiveBatch][] = [];
    entries.forEach((entry, i) => {
      const batch = groups[i]?.batch;
      if (batch !== undefined) sends.push([entry, batch]);
    });
    if (sends.length > 0) out.push([connection, sends]);
  }
  return out;
}

/** Sends one change's batches to one connection, corked (one socket write); the frames it made. */
function deliverTo(connection: LiveConnection, sends: Sends, logger: LiveReadsDeps['logger']): number {
  let frames = 0;
  connection.cork?.();
  for (const [entry, batch] of sends) {
    if (entry.isStopped) continue;
    frames += batch.event === 'create' ? batch.items.length : 1;
    try {
      entry.subscription.deliver(batch);
    } catch (error) {
      logger.warn({ err: error }, 'live data: a delivery failed');
    }
  }
  connection.uncork?.();
  return frames;
}
