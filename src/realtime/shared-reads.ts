import type { Knex } from 'knex';
import { getFieldRelation } from '../../catalog/overview/lookup.js';
import type { CollectionOverview, FilterObject, SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import { loadPermissions } from '../access/load-permissions.js';
import type { PermissionStore } from '../access/permission-store.js';
import { canReadCollection } from '../access/read-access.js';
import type { PrimaryKey } from '../commands/types.js';
import type { DbClient } from '../db-client.js';
import { dialectOf } from '../db/index.js';
import { ServiceError } from '../errors.js';
import { readerOf, readItems, type Item, type Query, type ReadContext, type Reader } from '../query/index.js';
import { LiveBatch, type LiveEvent, type LiveItem } from './live-batch.js';
import { conjuncts, matchesRow, mentionsCurrentUser, userRulePlan, type UserRulePlan } from './user-rules.js';

/** What one connection's subscription is sent of a change: the batch of its read, or of its user's share of one. */
export interface Share {
  batch: LiveBatch | undefined;
}

/** One user's share of a read checked in memory: their part of the rule, resolved. */
interface Member extends Share {
  readonly parts: readonly FilterObject[];
}

/** Subscriptions that read alike (one permission fingerprint, one selection): one read, one batch per slice of keys. */
export interface Group extends Share {
  readonly accountability: Accountability;
  readonly query: Query;
  /** Deletes: the keys this group may be told of (the witness's verdict); undefined: every key. */
  seen?: ((key: PrimaryKey) => boolean) | undefined;
  /** A rule naming the user, checked in memory: the one read's rows go to each member its part lets see. */
  readonly users?: { readonly plan: UserRulePlan; readonly members: Map<string, Member> };
}

/** What a caller's permissions make of a change's read, apart from the role. */
export interface CallerView {
  /**
   * The caller's read filters (variables resolved) of the collections a selection reaching
   * `reach` reads whose rule names `$CURRENT_USER` (undefined reach: any collection), the
   * parts of the changed collection's rule checked in memory left out when `inMemory`: callers
   * of one role with equal fingerprints read alike.
   */
  fingerprint(reach: ReadonlySet<string> | undefined, inMemory: boolean): string;
  /** The changed collection's rule parts checked in memory, resolved for this caller; with `plan`. */
  readonly userParts?: readonly FilterObject[];
  /** The caller's rules could not be resolved (its own read, which fails as its requests would): not kept. */
  readonly isUnresolved?: true;
  /** userParts as JSON: callers with equal parts share a batch. */
  readonly userPartsKey?: string;
  readonly plan?: UserRulePlan;
}

export interface SharedReadDeps {
  readonly db: Knex;
  readonly permissions: PermissionStore;
}

/**
 * Each caller's view of a change to `collection` (admins and roles whose rules do not name the
 * user: none, they read alike per role). The variables of all are resolved at one `now`. A
 * caller whose rules cannot be resolved gets its own read (its user id as fingerprint), which
 * fails as its requests would.
 */
export async function callerViews(
  deps: SharedReadDeps,
  overview: SchemaOverview,
  collection: string,
  callers: readonly (Accountability | undefined)[],
  now: Date,
): Promise<Map<Accountability, CallerView>> {
  const client = dialectOf(deps.db);
  const roleKeyOf = ({ role, app }: Accountability) => `${role}\n${role !== null && app}`;
  // First each role's rules (a few), then each caller (thousands), awaiting only the views not kept.
  const roles = new Map<string, Promise<RoleView>>();
  for (const accountability of callers) {
    if (accountability === undefined || accountability.admin) continue;
    const key = roleKeyOf(accountability);
    if (!roles.has(key)) roles.set(key, roleViewOf(deps, overview, collection, client, accountability));
  }
  const roleViews = new Map<string, RoleView>();
  for (const [key, view] of roles) roleViews.set(key, await view);
  const views = new Map<Accountability, CallerView>();
  const byUser = new Map<string, Promise<CallerView>>();
  const making: Promise<void>[] = [];
  for (const accountability of callers) {
    if (accountability === undefined || accountability.admin || views.has(accountability)) continue;
    const roleKey = roleKeyOf(accountability);
    const roleView = roleViews.get(roleKey);
    if (roleView === undefined || roleView.bound.length === 0) continue;
    const { rules, bound, plan, stable } = roleView;
    const kept = stable ? keptViews.get(rules)?.get(accountability)?.get(collection) : undefined;
    if (kept !== undefined) {
      views.set(accountability, kept);
      continue;
    }
    const userKey = `${accountability.user ?? ''}\n${roleKey}`;
    let view = byUser.get(userKey);
    if (view === undefined) {
      byUser.set(userKey, (view = viewOf(deps, overview, accountability, collection, bound, plan, now)));
    }
    making.push(
      view.then((made) => {
        views.set(accountability, made);
        if (stable && made.isUnresolved !== true) keep(rules, accountability, collection, made);
      }),
    );
  }
  await Promise.all(making);
  return views;
}

/** What `accountability`'s role's rules make of a change to `collection` (RoleView). */
async function roleViewOf(
  deps: SharedReadDeps,
  overview: SchemaOverview,
  collection: string,
  client: DbClient,
  { role, app }: Accountability,
): Promise<RoleView> {
  const rules = await deps.permissions.rulesFor(role, role !== null && app, overview);
  const bound: string[] = [];
  let stable = true;
  for (const [name, byAction] of rules.byCollection) {
    const filter = byAction.get('read')?.filter;
    if (!mentionsCurrentUser(filter)) continue;
    bound.push(name);
    stable &&= !/\$NOW|\$CURRENT_(USER|ROLE)\./.test(JSON.stringify(filter));
  }
  const rule = rules.byCollection.get(collection)?.get('read');
  let plan = rule === undefined ? undefined : userRulePlan(rule.filter, overview, collection, client);
  // The rule's fields are read with the rows: only when the role may read them.
  const readable = rule?.fields ?? new Set<string>();
  if (plan !== undefined && readable !== '*' && !plan.fields.every((f) => readable.has(f) || readable.has('*')))
    plan = undefined;
  return { rules, bound: bound.sort(), plan, stable };
}

/** A role's rules as a change's read needs them: the collections whose read rule names the user, and the changed one's plan. */
interface RoleView {
  readonly rules: object;
  readonly bound: readonly string[];
  readonly plan: UserRulePlan | undefined;
  /** The rules name the user and role by id alone: a caller's view depends on nothing else (not on `$NOW`, nor on user data). */
  readonly stable: boolean;
}

/**
 * Views kept from one change to the next, per rules (a role's, as cached for one schema
 * version: new rules, new views) and caller (a socket's recent caller is the same object until
 * it is authenticated again), for rules whose view depends on nothing else (RoleView.stable).
 */
const keptViews = new WeakMap<object, WeakMap<Accountability, Map<string, CallerView>>>();

function keep(rules: object, accountability: Accountability, collection: string, view: CallerView): void {
  let byCaller = keptViews.get(rules);
  if (byCaller === undefined) keptViews.set(rules, (byCaller = new WeakMap()));
  let byCollection = byCaller.get(accountability);
  if (byCollection === undefined) byCaller.set(accountability, (byCollection = new Map<string, CallerView>()));
  byCollection.set(collection, view);
}

async function viewOf(
  deps: SharedReadDeps,
  overview: SchemaOverview,
  accountability: Accountability,
  collection: string,
  bound: readonly string[],
  plan: UserRulePlan | undefined,
  now: Date,
): Promise<CallerView> {
  const filters = new Map<string, unknown>();
  let userParts: FilterObject[] | undefined;
  let sharedParts: FilterObject[] | undefined;
  try {
    const permissions = await loadPermissions({ db: deps.db, store: deps.permissions, overview }, accountability, now);
    for (const name of bound) {
      const filter = permissions.rowFilter(name, 'read');
      filters.set(name, filter);
      if (name !== collection || plan === undefined || filter === null) continue;
      const parts = conjuncts(filter);
      userParts = parts.filter((_, i) => plan.inMemory.has(i));
      sharedParts = parts.filter((_, i) => !plan.inMemory.has(i));
    }
  } catch {
    const own = `user\n${accountability.user ?? ''}`;
    return { fingerprint: () => own, isUnresolved: true };
  }
  // Per reach (one object per selection: weakly, the view may be kept from change to change) and mode.
  const memos = {
    shared: new WeakMap<ReadonlySet<string>, string>(),
    inMemory: new WeakMap<ReadonlySet<string>, string>(),
  };
  const anyReach: { shared?: string; inMemory?: string } = {};
  const fingerprint = (reach: ReadonlySet<string> | undefined, inMemory: boolean) => {
    const mode = inMemory ? 'inMemory' : 'shared';
    let known = reach === undefined ? anyReach[mode] : memos[mode].get(reach);
    if (known === undefined) {
      const named = bound.filter((name) => reach === undefined || reach.has(name));
      known = JSON.stringify(
        named.map((name) => [name, inMemory && name === collection ? sharedParts : filters.get(name)]),
      );
      if (reach === undefined) anyReach[mode] = known;
      else memos[mode].set(reach, known);
    }
    return known;
  };
  return userParts === undefined || plan === undefined
    ? { fingerprint }
    : { fingerprint, userParts, userPartsKey: JSON.stringify(userParts), plan };
}

/** Query keys that read the changed collection alone (with `fields` and `filter` looked into). */
const ROOT_ONLY_KEYS = new Set(['fields', 'filter', 'search', 'sort', 'limit', 'offset', 'page', 'meta']);

/**
 * The collections a live read of `query` on `collection` reads (the keys of its one-to-many
 * fields are read under the related collection's rule); undefined when it may read others
 * (a dotted field, a relational filter, `deep`, `alias`...).
 */
export function selectionReach(query: Query, overview: SchemaOverview, collection: string): Set<string> | undefined {
  if (Object.keys(query).some((key) => !ROOT_ONLY_KEYS.has(key))) return undefined;
  if ((query.sort ?? []).some((s) => s.includes('.'))) return undefined;
  if (query.filter !== undefined && !ownFieldsOnly(query.filter, overview, collection)) return undefined;
  const info = overview.collections[collection];
  if (info === undefined) return undefined;
  const asked = query.fields ?? ['*'];
  if (asked.some((f) => f.includes('.'))) return undefined;
  const reach = new Set([collection]);
  const names = asked.includes('*') ? Object.keys(info.fields) : asked;
  for (const name of names) {
    const field = Object.hasOwn(info.fields, name) ? info.fields[name] : undefined;
    if (field?.isAlias !== true) continue;
    const relation = getFieldRelation(overview, collection, name);
    if (relation === undefined) continue;
    if (relation.kind === 'a2o') return undefined;
    reach.add(relation.related);
  }
  return reach;
}

/** A filter comparing the collection's own non-relational fields only. */
function ownFieldsOnly(filter: unknown, overview: SchemaOverview, collection: string): boolean {
  if (typeof filter !== 'object' || filter === null) return true;
  if (Array.isArray(filter)) return filter.every((part) => ownFieldsOnly(part, overview, collection));
  return Object.entries(filter as Record<string, unknown>).every(([key, value]) => {
    if (key === '_and' || key === '_or') return ownFieldsOnly(value, overview, collection);
    if (key.startsWith('_')) return true;
    if (getFieldRelation(overview, collection, key) !== undefined) return false;
    if (!Object.hasOwn(overview.collections[collection]?.fields ?? {}, key)) return false;
    return typeof value !== 'object' || value === null || Object.keys(value).every((op) => op.startsWith('_'));
  });
}

/** The member of `group` for `parts` (callers with equal parts, `key`, share it); the group checks in memory. */
export function memberOf(group: Group, parts: readonly FilterObject[], key: string): Share {
  const members = group.users?.members;
  if (members === undefined) return group;
  let member = members.get(key);
  if (member === undefined) members.set(key, (member = { parts, batch: undefined }));
  return member;
}

/**
 * The reader of a group: its caller's, but for a group checking in memory, the changed
 * collection read under the parts of its rule that do not name the user (the same for every
 * member); undefined when the collection is not readable.
 */
export async function groupReader(
  deps: SharedReadDeps,
  overview: SchemaOverview,
  collection: string,
  group: Group,
): Promise<Reader | undefined> {
  const reader = await readerOf(deps, overview, group.accountability);
  if (!canReadCollection(reader.access, collection)) return undefined;
  const plan = group.users?.plan;
  if (plan === undefined) return reader;
  const filter = reader.access.rowFilter(collection);
  const shared = filter === null ? [] : conjuncts(filter).filter((_, i) => !plan.inMemory.has(i));
  const sharedFilter = shared.length === 0 ? null : { _and: shared };
  const { access } = reader;
  return {
    accountability: reader.accountability,
    access: {
      rowFilter: (name) => (name === collection ? sharedFilter : access.rowFilter(name)),
      readableFields: (name) => access.readableFields(name),
    },
  };
}

/**
 * Reads `keys` for `group` and sets its batch (or each member's): false when its selection is
 * no longer valid for it (nothing now nor for the next slices).
 */
export async function readGroup(
  ctx: ReadContext,
  collection: CollectionOverview,
  group: Group,
  change: { readonly action: LiveEvent; readonly id?: string },
  keys: readonly PrimaryKey[],
  reader: Reader,
): Promise<boolean> {
  const batchOf = (items: readonly LiveItem[] | undefined): LiveBatch | undefined =>
    items === undefined || items.length === 0 ? undefined : new LiveBatch(change.action, items, change.id);
  const users = group.users;
  const extra = users === undefined ? [] : missingFields(group.query, users.plan.fields);
  const query =
    extra.length === 0 ? group.query : { ...group.query, fields: [...(group.query.fields ?? []), ...extra] };
  const items = await readKeys(ctx, collection, query, keys, reader);
  if (users === undefined) {
    group.batch = batchOf(items);
    return items !== undefined;
  }
  // Each row as the rule sees it, made once for every member.
  const rows = items?.map((item) => ({ item, row: { ...item.data, [collection.primary]: item.key } }));
  for (const member of users.members.values()) {
    const mine = rows?.filter(({ row }) => matchesRow(member.parts, row));
    member.batch = batchOf(
      mine?.map(({ item }) => (item.data === undefined ? item : { key: item.key, data: without(item.data, extra) })),
    );
  }
  return items !== undefined;
}

/** The rule's fields a selection does not give (with `*` it gives them all: the role may read them). */
function missingFields(query: Query, fields: readonly string[]): string[] {
  const asked = query.fields;
  if (asked === undefined || asked.includes('*')) return [];
  return fields.filter((f) => !asked.includes(f));
}

function without(data: Item, fields: readonly string[]): Item {
  if (fields.length === 0) return data;
  return Object.fromEntries(Object.entries(data).filter(([name]) => !fields.includes(name)));
}

/** The items of `keys` the reader may see, with its selection; undefined when the selection is no longer valid for it. */
async function readKeys(
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
    ...(withKey ? {} : { fields: [...asked, primary] }),
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
