import type { Knex } from 'knex';
import type { Readable } from 'node:stream';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import type { ReadAccess } from '../access/read-access.js';
import type { WritePermissions } from '../access/write-permissions.js';
import type { AsOf, ReadContext } from '../query/index.js';
import type { Change, SeenBy } from './change-set.js';
import type { PrimaryKey } from './primary-key.js';

export type { PrimaryKey } from './primary-key.js';

/** An item payload or row: database field names to values. */
export type Item = Readonly<Record<string, unknown>>;

/** A read query object selecting the items of a write by query. */
export type QueryObject = Readonly<Record<string, unknown>>;

/** Which items an update or delete addresses. */
export type Selection = { readonly keys: readonly PrimaryKey[] } | { readonly query: QueryObject };

export interface CreateCommand {
  readonly kind: 'create';
  readonly collection: string;
  readonly data: readonly Item[];
  /**
   * Per item of `data`, values the service sets itself over the client's payload once its
   * server-owned fields are dropped (special-fields.ts `isServerOwned`): the file library's
   * `filename_disk`, `storage`, `filesize`... Never from a request.
   */
  readonly serverValues?: readonly Item[];
}

/**
 * `data` applied to the selected items (with `serverValues` as in {@link CreateCommand});
 * `batch` = one payload per item, each with its primary key; `singleton` = the single row of a
 * singleton collection, created when missing.
 */
export type UpdateCommand = {
  readonly kind: 'update';
  readonly collection: string;
} & (
  | (Selection & { readonly data: Item; readonly serverValues?: Item })
  | { readonly batch: readonly Item[] }
  | { readonly singleton: true; readonly data: Item }
);

/** What a create or update wrote: the keys in input order, and the answer when it was read with them. */
export interface WrittenItems {
  readonly keys: PrimaryKey[];
  readonly answer?: Item | undefined;
}

export type DeleteCommand = { readonly kind: 'delete'; readonly collection: string } & Selection;

/** Manual sort: `item` takes the place of `to`. */
export interface SortCommand {
  readonly kind: 'sort';
  readonly collection: string;
  readonly item: PrimaryKey;
  readonly to: PrimaryKey;
}

/** Revert: apply a revision's `data` back to its item. */
export interface RevertCommand {
  readonly kind: 'revert';
  readonly revision: PrimaryKey;
}

/** Issue 18, Restore: apply the item's revision `data` of a moment back to it. */
export interface RevertAsOfCommand {
  readonly kind: 'revert-as-of';
  readonly collection: string;
  readonly item: PrimaryKey;
  readonly asOf: AsOf;
}

/**
 * Import: the items of a JSON or CSV file, each upserted
 * (created, or updated when its key exists), all in one transaction.
 */
export interface ImportCommand {
  readonly kind: 'import';
  readonly collection: string;
  readonly format: 'csv' | 'json';
  /** The file's bytes, read as they arrive. */
  readonly source: Readable;
}

/**
 * Activity comments: a comment on an item, kept as an svc_activity row
 * (action `comment`) and an svc_comments row with the same text. `collection` is resolved
 * (`svc_` names); update and delete name the activity row.
 */
export interface CreateCommentCommand {
  readonly kind: 'createComment';
  readonly collection: string;
  readonly item: PrimaryKey;
  readonly comment: string;
}

export interface UpdateCommentCommand {
  readonly kind: 'updateComment';
  readonly id: PrimaryKey;
  readonly comment: string;
}

export interface DeleteCommentCommand {
  readonly kind: 'deleteComment';
  readonly id: PrimaryKey;
}

/** Everything a handler needs; built once per request by the caller. */
export interface CommandContext {
  readonly db: Knex;
  readonly overview: SchemaOverview;
  readonly accountability: Accountability;
  readonly permissions: WritePermissions;
  /** MAX_BATCH_MUTATION: items one command may touch, nested ones included. */
  readonly maxBatchMutation: number;
  /** What the caller may read: writes by query select, and reverts read, through it. */
  readonly readAccess: ReadAccess;
  /** QUERY_LIMIT_DEFAULT, QUERY_LIMIT_MAX, MAX_RELATIONAL_DEPTH for those reads. */
  readonly readLimits: ReadContext['limits'];
  /** Purges the data cache of the collections a committed command touched. */
  readonly purgeCache?: (collections: readonly string[]) => Promise<void>;
  /**
   * Told, after the commit, which items the command created, updated or deleted (one change
   * per collection and action): the live-data feed. Must not reject; the write answers once it
   * settles (the change is in the feed's log, ordered before the caller's next write).
   */
  readonly afterCommit?: (changes: readonly Change[]) => Promise<void>;
  /**
   * Asked inside the transaction just before items are deleted: who of the live-data
   * subscribers could read which of them (src/realtime), so a delete event goes only to those.
   * Must not throw.
   */
  readonly witnessDelete?: (
    trx: Knex.Transaction,
    collection: string,
    keys: readonly PrimaryKey[],
  ) => Promise<SeenBy | undefined>;
  /** The clock of date-created/date-updated and the journal; a fake in tests. */
  readonly now?: () => Date;
  /** Debug notes of a write (payload keys dropped as not fields); none when absent. */
  readonly log?: DebugLog;
  /**
   * The requests in flight, which long writes (imports, bulk creates) give way to between
   * steps of a few rows (give-way.ts, http/traffic.ts). Absent: no one to wait for.
   */
  readonly traffic?: Traffic;
}

/** What a long write needs of the requests in flight (http/traffic.ts). */
export interface Traffic {
  /** Requests other than the writer's own are in flight. */
  isBusy(): boolean;
  /** A turn of the event loop, then, while busy, a wait for them (bounded). */
  giveWay(): Promise<void>;
}

/** The part of the logger (pino) commands use. */
export interface DebugLog {
  debug(details: object, message: string): void;
}
