import type { Knex } from 'knex';
import type { CollectionOverview, SchemaOverview } from '../../catalog/overview/types.js';
import { ForbiddenError } from '../errors.js';
import {
  ACTIVITY_COLLECTION,
  checkCommentPayload,
  COMMENTS_COLLECTION,
  deleteLinkedActivity,
  mirrorComment,
  normalizeCommentPayload,
} from './comment-link.js';
import { requireCommentTarget, type CommentTargetContext } from './comment-target.js';
import { checkFlowGraphs, FLOWS_COLLECTION, OPERATIONS_COLLECTION } from './flow-rules.js';
import { checkFolderParent, FOLDERS_COLLECTION } from './folder-rules.js';
import { checkSettingsPayload, SETTINGS_COLLECTION } from './settings-rules.js';
import type { Item, PrimaryKey } from './types.js';
import { checkVersionKeyFree, VERSIONS_COLLECTION } from './version-keys.js';
import {
  checkPermissionPayload,
  checkPresetPayload,
  checkRolePayload,
  PERMISSIONS_COLLECTION,
  PRESETS_COLLECTION,
  ROLES_COLLECTION,
} from './system-payloads.js';
import {
  assertAdminRemains,
  checkUserPayload,
  endSessionsOnUserWrite,
  mayRemoveAdmin,
  normalizeUserPayload,
  USERS_COLLECTION,
} from './user-rules.js';

/**
 * The rules of particular system collections, on top of permissions and validation. Each
 * hook runs inside the write's transaction; the after-hooks return the other collections
 * they changed, for the cache purge.
 */
export interface CollectionRules {
  /** Before validation: the payload as the collection stores it (e-mail addresses lower-cased). */
  readonly normalize?: (data: Item, overview: SchemaOverview) => Item;
  /** After validation, before the row is written; `key`: the item updated, undefined for a create. */
  readonly check?: (
    trx: Knex.Transaction,
    ctx: CommentTargetContext,
    collection: CollectionOverview,
    data: Item,
    key: PrimaryKey | undefined,
  ) => Promise<void>;
  /** After an update's row is written: `data` as checked, `values` as written. */
  readonly afterUpdate?: (trx: Knex.Transaction, key: PrimaryKey, data: Item, values: Item) => Promise<string[]>;
  /** After rows are deleted. */
  readonly afterDelete?: (trx: Knex.Transaction, keys: readonly PrimaryKey[]) => Promise<string[]>;
  /**
   * Once every row of the command is written, before the commit: a rule about the rows
   * together (a flow's chain saved nested or operation by operation). Run once per command
   * however many of its collections share it.
   */
  readonly beforeCommit?: (trx: Knex.Transaction) => Promise<void>;
}

const NONE: CollectionRules = {};

const COLLECTION_RULES: Readonly<Record<string, CollectionRules>> = {
  // user-rules.ts: password policy, tfa_secret, e-mail and status, sessions ended on suspension
  // or a new password, the last administrator kept.
  [USERS_COLLECTION]: {
    normalize: normalizeUserPayload,
    check: (trx, ctx, _collection, data, key) => checkUserPayload(trx, ctx.accountability, data, key),
    afterUpdate: async (trx, key, data) => {
      await endSessionsOnUserWrite(trx, key, data);
      if (mayRemoveAdmin(data)) await assertAdminRemains(trx);
      return [];
    },
    afterDelete: async (trx) => {
      await assertAdminRemains(trx);
      return [];
    },
  },
  // user-rules.ts: a role losing admin_access, or deleted (its users' role goes null), keeps an administrator.
  [ROLES_COLLECTION]: {
    check: (_trx, _ctx, _collection, data) => {
      checkRolePayload(data);
      return Promise.resolve();
    },
    afterUpdate: async (trx, _key, data) => {
      if ('admin_access' in data) await assertAdminRemains(trx);
      return [];
    },
    afterDelete: async (trx) => {
      await assertAdminRemains(trx);
      return [];
    },
  },
  // system-payloads.ts: rows every later request reads must be usable.
  [PERMISSIONS_COLLECTION]: { check: checkPermissionPayload },
  [PRESETS_COLLECTION]: { check: checkPresetPayload },
  // comment-link.ts: linked ids reserved, the activity row follows its comment.
  [COMMENTS_COLLECTION]: {
    normalize: normalizeCommentPayload,
    check: async (trx, ctx, collection, data, key) => {
      checkCommentPayload(data);
      await checkCommentTarget(trx, ctx, collection, data, key);
    },
    afterUpdate: async (trx, key, _data, values) =>
      (await mirrorComment(trx, key, values)) ? [ACTIVITY_COLLECTION] : [],
    afterDelete: async (trx, keys) => ((await deleteLinkedActivity(trx, keys)) ? [ACTIVITY_COLLECTION] : []),
  },
  // version-keys.ts: an item's version keys are unique ignoring case.
  [VERSIONS_COLLECTION]: { check: (trx, _ctx, _collection, data, key) => checkVersionKeyFree(trx, data, key) },
  // folder-rules.ts: no folder inside itself.
  [FOLDERS_COLLECTION]: { check: (trx, _ctx, _collection, data, key) => checkFolderParent(trx, data, key) },
  // settings-rules.ts: an export retention the cleanup can read.
  [SETTINGS_COLLECTION]: {
    check: (_trx, _ctx, _collection, data) => {
      checkSettingsPayload(data);
      return Promise.resolve();
    },
  },
  // flow-rules.ts: no chain of operations that loops, no flow triggering itself.
  [FLOWS_COLLECTION]: { beforeCommit: checkFlowGraphs },
  [OPERATIONS_COLLECTION]: { beforeCommit: checkFlowGraphs },
};

/** The rules of a collection; none for most. */
export function rulesOf(collection: string): CollectionRules {
  return COLLECTION_RULES[collection] ?? NONE;
}

/**
 * A comment created, or moved to another item, is on an item the caller may read, in a
 * collection that exists (comment-target.ts); an update leaving `collection` and `item`
 * alone keeps its target. A missing one is left to the database (both are NOT NULL).
 */
async function checkCommentTarget(
  trx: Knex.Transaction,
  ctx: CommentTargetContext,
  collection: CollectionOverview,
  data: Item,
  key: PrimaryKey | undefined,
): Promise<void> {
  if (key !== undefined && data['collection'] === undefined && data['item'] === undefined) return;
  const current =
    key === undefined
      ? undefined
      : await trx(collection.collection)
          .where(collection.primary, key)
          .first<Record<string, unknown> | undefined>('collection', 'item');
  if (key !== undefined && current === undefined) throw new ForbiddenError();
  const target = data['collection'] ?? current?.['collection'];
  const item = data['item'] ?? current?.['item'];
  if (target === undefined || target === null || item === undefined || item === null) return;
  await requireCommentTarget(trx, ctx, target, item);
}
