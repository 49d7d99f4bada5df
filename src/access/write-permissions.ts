import type { Knex } from 'knex';
import { ForbiddenError } from '../errors.js';

type Payload = Readonly<Record<string, unknown>>;
type Key = string | number;

/**
 * The permission hook of the write side (reference/auth.md, "Permissions"): each nested write
 * is checked against its own collection. Admins get {@link ALLOW_ALL}.
 */
export interface WritePermissions {
  /**
   * FORBIDDEN unless the caller may `action` these payload fields of `collection`; returns the
   * payload with the permission's presets merged under it, after its `validation` passed.
   */
  checkPayload(action: 'create' | 'update', collection: string, payload: Payload): Payload | Promise<Payload>;
  /** FORBIDDEN unless every key is within the caller's item filter for `action`. */
  checkItems(trx: Knex.Transaction, action: 'update' | 'delete', collection: string, keys: readonly Key[]): Promise<void>;
}

/** Admin: full access, permission rows ignored (reference/auth.md). */
export const ALLOW_ALL: WritePermissions = Object.freeze({
  checkPayload: (_action: 'create' | 'update', _collection: string, payload: Payload) => payload,
  checkItems: () => Promise.resolve(),
});

/** No write permission at all: every write is FORBIDDEN. */
export const DENY_ALL: WritePermissions = Object.freeze({
  checkPayload: (): Payload => {
    throw new ForbiddenError();
  },
  checkItems: () => Promise.reject(new ForbiddenError()),
});
