import type { Knex } from 'knex';
import type { FilterObject } from '../../catalog/overview/types.js';
import { ForbiddenError, ServiceErrorList } from '../errors.js';
import type { Permissions } from './permissions.js';
import { validateFilter, type FilterVariables } from './validate-filter.js';

type Payload = Readonly<Record<string, unknown>>;
type Key = string | number;
export type WriteAction = 'create' | 'update' | 'delete';

/**
 * The permission hook of the write side: each nested write
 * is checked against its own collection. Admins get {@link ALLOW_ALL}.
 */
export interface WritePermissions {
  /** Whether any permission allows `action` on `collection` (import needs create and update up front). */
  allows(collection: string, action: WriteAction): boolean;
  /**
   * FORBIDDEN unless the caller may `action` these payload fields of `collection`; returns the
   * payload with the permission's presets merged under it, after its `validation` passed.
   */
  checkPayload(action: 'create' | 'update', collection: string, payload: Payload): Payload;
  /**
   * FORBIDDEN unless every key is within the caller's item filter for `action`: the targets
   * of an update or delete, or an item just created (inside the transaction, so a refused
   * create rolls back).
   */
  checkItems(trx: Knex.Transaction, action: WriteAction, collection: string, keys: readonly Key[]): Promise<void>;
  /** Whether {@link checkItems} reads the items (an item filter applies); false: it reads nothing. */
  checksItems(action: WriteAction, collection: string): boolean;
}

/** Admin: full access, permission rows ignored. */
const ALLOW_ALL: WritePermissions = Object.freeze({
  allows: () => true,
  checkPayload: (_action: 'create' | 'update', _collection: string, payload: Payload) => payload,
  checkItems: () => Promise.resolve(),
  checksItems: () => false,
});

/**
 * Whether every key names a row of `collection` that satisfies `filter` (a permission's item
 * filter, variables resolved), read inside the write's transaction. The write side supplies
 * it: filters are evaluated by the read side, which this layer cannot import.
 */
export type ItemMatcher = (
  trx: Knex.Transaction,
  collection: string,
  filter: FilterObject,
  keys: readonly Key[],
) => Promise<boolean>;

/**
 * The write rules of a non-admin caller's permissions: payload fields within the action's `fields`
 * (else FORBIDDEN), `presets` merged
 * under the payload (the payload wins), the merged item against `validation` (one
 * FAILED_VALIDATION per failing rule), target and created items within the item filter.
 * Payload checks are synchronous, so a caller may check before it stores anything.
 */
export function writePermissionsOf(
  permissions: Permissions,
  matchItems: ItemMatcher,
  variables: FilterVariables,
): WritePermissions {
  if (permissions.isAdmin) return ALLOW_ALL;
  const requireAllowed = (collection: string, action: WriteAction) => {
    if (!permissions.allows(collection, action)) throw new ForbiddenError();
  };
  return Object.freeze({
    allows: (collection: string, action: WriteAction) => permissions.allows(collection, action),
    checkPayload(action: 'create' | 'update', collection: string, payload: Payload): Payload {
      requireAllowed(collection, action);
      const fields = permissions.fields(collection, action);
      if (fields !== '*' && Object.keys(payload).some((name) => !fields.has(name))) throw new ForbiddenError();
      const merged = { ...permissions.presets(collection, action), ...payload };
      const errors = validateFilter(permissions.validation(collection, action), merged, variables);
      const [first, ...rest] = errors;
      if (first !== undefined) throw rest.length === 0 ? first : new ServiceErrorList(errors);
      return merged;
    },
    async checkItems(
      trx: Knex.Transaction,
      action: WriteAction,
      collection: string,
      keys: readonly Key[],
    ): Promise<void> {
      requireAllowed(collection, action);
      const filter = permissions.rowFilter(collection, action);
      if (filter === null || Object.keys(filter).length === 0 || keys.length === 0) return;
      if (!(await matchItems(trx, collection, filter, keys))) throw new ForbiddenError();
    },
    checksItems(action: WriteAction, collection: string): boolean {
      const filter = permissions.allows(collection, action) ? permissions.rowFilter(collection, action) : null;
      return filter !== null && Object.keys(filter).length > 0;
    },
  });
}
