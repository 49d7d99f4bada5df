import type { Knex } from 'knex';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import type { PermissionStore } from '../access/permission-store.js';
import { canReadCollection } from '../access/read-access.js';
import type { SeenBy } from '../commands/change-set.js';
import type { PrimaryKey } from '../commands/types.js';
import type { Config } from '../config/index.js';
import { ServiceError } from '../errors.js';
import { queryLimits, readerOf, readItems, type Query } from '../query/index.js';
import { mentionsCurrentUser } from './user-rules.js';

/** Keys per read of a delivery or a witness (and per message): under every dialect's bound-parameter limit. */
export const KEYS_PER_READ = 5000;

export interface WitnessDeps {
  readonly config: Config;
  readonly schema: { getOverview(): Promise<SchemaOverview> };
  readonly permissions: PermissionStore;
  readonly feed: { readonly isShared: boolean };
  readonly logger: { warn(details: object, message: string): void };
}

/**
 * Who a delete's witness names: the admin, else (user, role, app access): the row filter of a
 * read rule may name the user. Never a prototype key (`__proto__`): always holds a newline.
 */
export function viewerOf(accountability: Accountability): string {
  const { admin, user, role, app } = accountability;
  return admin ? 'admin\n' : `${user ?? ''}\n${role ?? ''}\n${role !== null && app}`;
}

/** A role's users, for a delete's witness across instances (roles whose read rule does not name the user). */
export function roleViewerOf(role: string | null, app: boolean): string {
  return `role\n${role ?? ''}\n${role !== null && app}`;
}

/** The keys of a delete `viewer` may be told of, by the witness; undefined: no verdict for it. */
export function seenFilter(seenBy: SeenBy | undefined, viewer: string): ((key: PrimaryKey) => boolean) | undefined {
  if (seenBy === undefined || !Object.hasOwn(seenBy, viewer)) return undefined;
  const seen = new Set((seenBy[viewer] ?? []).map(String));
  return (key) => seen.has(String(key));
}

/**
 * Inside a delete's transaction, before the rows go: which of `keys` each of `viewers` (the
 * local subscribers' callers, by {@link viewerOf}) could read then. A delete event then goes
 * only to those who could read the item (live-reads.ts). With a shared feed, also per role
 * (other instances' subscribers are not known here). Undefined when no one is asked. Each
 * viewer is read under a savepoint: a failed read (that viewer: nothing) never aborts the delete.
 */
export async function witnessDelete(
  deps: WitnessDeps,
  viewers: Map<string, Accountability>,
  trx: Knex.Transaction,
  collectionName: string,
  keys: readonly PrimaryKey[],
): Promise<SeenBy | undefined> {
  if (keys.length === 0) return undefined;
  const overview = await deps.schema.getOverview();
  const collection = overview.collections[collectionName];
  if (collection === undefined) return undefined;
  // Other instances' subscribers are not known here: with a shared feed the verdict is also
  // taken per role, for the roles whose read rule of the collection has a row filter that
  // does not name the user (no filter: they read every row; naming the user: not told).
  if (deps.feed.isShared) {
    try {
      for (const { role, app } of await rolesOf(trx)) {
        const rules = await deps.permissions.rulesFor(role, app, overview);
        const filter = rules.byCollection.get(collectionName)?.get('read')?.filter;
        if (filter === undefined || filter === null || Object.keys(filter).length === 0) continue;
        if (mentionsCurrentUser(filter)) continue;
        const accountability = { user: null, role, admin: false, app, ip: null, userAgent: null, origin: null };
        viewers.set(roleViewerOf(role, app), accountability);
      }
    } catch (error) {
      deps.logger.warn({ err: error, collection: collectionName }, 'live data: roles for a delete witness');
    }
  }
  if (viewers.size === 0) return undefined;
  const primary = collection.primary;
  const seenBy: Record<string, PrimaryKey[]> = {};
  for (const [viewer, accountability] of viewers) {
    try {
      seenBy[viewer] = await trx.transaction(async (savepoint) => {
        const reader = await readerOf({ db: savepoint, permissions: deps.permissions }, overview, accountability);
        if (!canReadCollection(reader.access, collectionName)) return [];
        if (reader.access.rowFilter(collectionName) === null) return [...keys];
        const ctx = { db: savepoint, overview, limits: queryLimits(deps.config) };
        const seen: PrimaryKey[] = [];
        for (let at = 0; at < keys.length; at += KEYS_PER_READ) {
          const byKeys = { [primary]: { _in: keys.slice(at, at + KEYS_PER_READ) } };
          const query: Query = { fields: [primary], filter: byKeys, limit: -1, offset: 0 };
          for (const row of await readItems(ctx, collectionName, query, reader)) seen.push(row[primary] as PrimaryKey);
        }
        return seen;
      });
    } catch (error) {
      if (!(error instanceof ServiceError))
        deps.logger.warn({ err: error, collection: collectionName }, 'live data: a delete witness failed');
      seenBy[viewer] = [];
    }
  }
  return seenBy;
}

/** The roles (`role\napp`) of `callers` a read rule of which names $CURRENT_USER: their users do not read alike. */
export async function userBoundRoles(
  permissions: PermissionStore,
  callers: readonly (Accountability | undefined)[],
  overview: SchemaOverview,
): Promise<Set<string>> {
  const roles = new Map<string, { role: string | null; app: boolean }>();
  for (const accountability of callers) {
    if (accountability === undefined || accountability.admin) continue;
    const { role } = accountability;
    const app = role !== null && accountability.app;
    roles.set(`${role}\n${app}`, { role, app });
  }
  const bound = new Set<string>();
  await Promise.all(
    [...roles].map(async ([id, { role, app }]) => {
      const rules = await permissions.rulesFor(role, app, overview);
      if ([...rules.byCollection.values()].some((rule) => mentionsCurrentUser(rule.get('read')?.filter))) bound.add(id);
    }),
  );
  return bound;
}

/** The roles a user may have (each with its app access) and the public role. */
async function rolesOf(trx: Knex.Transaction): Promise<{ role: string | null; app: boolean }[]> {
  const rows = await trx('svc_roles').select<{ id: string; admin_access: unknown; app_access: unknown }[]>(
    'id',
    'admin_access',
    'app_access',
  );
  const roles: { role: string | null; app: boolean }[] = [{ role: null, app: false }];
  for (const row of rows) if (!isTrue(row.admin_access)) roles.push({ role: row.id, app: isTrue(row.app_access) });
  return roles;
}

/** A boolean column as the dialects return it (true, 1, '1'). */
function isTrue(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}
