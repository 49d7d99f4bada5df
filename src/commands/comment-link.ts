import type { Knex } from 'knex';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import { InvalidPayloadError, invariant } from '../errors.js';
import { toPrimaryKey } from './primary-key.js';
import type { Item, PrimaryKey } from './types.js';

/** The primary store of comments. */
export const COMMENTS_COLLECTION = 'svc_comments';

export const ACTIVITY_COLLECTION = 'svc_activity';

/**
 * A comment made through /activity/comment is an svc_activity row (action `comment`) and an
 * svc_comments row. Neither table has a column for the other, and the link must not cost a
 * revision, so the svc_comments id is computed from the activity id: an RFC 9562 version-8
 * UUID of this fixed prefix (version 8, variant 10) followed by the activity id as 12 hex
 * digits. Generated ids are version 4, so they never take this form.
 */
const LINKED_PREFIX = 'ac71c0de-0000-8000-8000-';
const LINKED_ID = /^ac71c0de-0000-8000-8000-([0-9a-f]{12})$/i;
const MAX_ACTIVITY_ID = 2 ** 48 - 1;

/** The svc_comments id of the comment whose activity row is `activityId`. */
export function commentIdOf(activityId: number): string {
  invariant(
    Number.isSafeInteger(activityId) && activityId > 0 && activityId <= MAX_ACTIVITY_ID,
    'an activity id fits 48 bits',
  );
  return LINKED_PREFIX + activityId.toString(16).padStart(12, '0');
}

/** The activity id a svc_comments id was computed from; undefined for any other id. */
export function activityIdOf(commentId: unknown): number | undefined {
  if (typeof commentId !== 'string') return undefined;
  const digits = LINKED_ID.exec(commentId)?.[1];
  return digits === undefined ? undefined : Number.parseInt(digits, 16);
}

/**
 * A svc_comments payload written as an item: a linked id is given by /activity/comment only,
 * or a comment of /comments could take over (and later rewrite) another user's activity row.
 */
export function checkCommentPayload(payload: Item): void {
  if (activityIdOf(payload['id']) !== undefined) {
    throw new InvalidPayloadError(
      `"id" ${String(payload['id'])} is reserved for comments made through /activity/comment`,
    );
  }
}

/** What a comment's activity row shares with its svc_comments row. */
const MIRRORED = ['comment', 'collection', 'item'] as const;

/**
 * A svc_comments payload in the form the rows keep: the item's key as the item and the journal
 * store it (a uuid in lower case, an integer without padding), as /activity/comment writes it.
 * Kept as sent, a comment on an upper-case uuid was found by its item's key on MariaDB, whose
 * collation ignores case, and on no other database.
 */
export function normalizeCommentPayload(payload: Item, overview: SchemaOverview): Item {
  const { collection, item } = payload;
  if (typeof collection !== 'string' || (typeof item !== 'string' && typeof item !== 'number')) return payload;
  const target = Object.hasOwn(overview.collections, collection) ? overview.collections[collection] : undefined;
  const key = target === undefined ? undefined : toPrimaryKey(target, item);
  return key === undefined ? payload : { ...payload, item: String(key) };
}

/**
 * A svc_comments row updated as an item: its activity row, if linked, gets the same text,
 * and the same item when the comment is moved to another (the activity row would otherwise
 * still show it on the first). Returns whether an activity row changed.
 */
export async function mirrorComment(trx: Knex.Transaction, key: PrimaryKey, values: Item): Promise<boolean> {
  const activityId = activityIdOf(key);
  const mirrored = Object.fromEntries(MIRRORED.filter((name) => name in values).map((name) => [name, values[name]]));
  if (activityId === undefined || Object.keys(mirrored).length === 0) return false;
  const changed = await commentActivity(trx, activityId).update(mirrored);
  return changed > 0;
}

/** svc_comments rows deleted as items: their linked activity rows go too. Returns whether any did. */
export async function deleteLinkedActivity(trx: Knex.Transaction, keys: readonly PrimaryKey[]): Promise<boolean> {
  const ids = keys.map(activityIdOf).filter((id): id is number => id !== undefined);
  if (ids.length === 0) return false;
  const deleted = await trx(ACTIVITY_COLLECTION).whereIn('id', ids).where('action', 'comment').delete();
  return deleted > 0;
}

/** The activity row of a comment: never another action's row, whatever the id says. */
function commentActivity(trx: Knex.Transaction, activityId: number): Knex.QueryBuilder {
  return trx(ACTIVITY_COLLECTION).where('id', activityId).where('action', 'comment');
}
