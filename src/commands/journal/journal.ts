import type { Knex } from 'knex';
import type { CollectionOverview } from '../../../catalog/overview/types.js';
import type { Accountability } from '../../access/accountability.js';
import type { DbClient } from '../../db-client.js';
import { databaseDialect, databaseDialectOf } from '../../db/dialects/index.js';
import { insertReturningKeys } from '../../db/insert-returning-keys.js';
import { insertObjects } from '../../db/insert-rows.js';
import { noteChange } from '../change-set.js';
import { toDatabaseTimestamp } from '../to-database-value.js';
import type { Item, PrimaryKey } from '../types.js';
import { maskItem } from './mask.js';

export interface JournalEntry {
  readonly action: 'create' | 'update' | 'delete';
  readonly collection: CollectionOverview;
  readonly key: PrimaryKey;
  /** create/update: the item after the write and the values the write set (unmasked). */
  readonly revision?: { readonly data: Item; readonly delta: Item };
}

/** A revision recorded in the journal; `id` is known once the journal has been flushed. */
export interface RevisionRef {
  readonly id: number | undefined;
}

interface PendingRevision extends RevisionRef {
  id: number | undefined;
  readonly row: Record<string, unknown>;
}

const REVISION_JSON_COLUMNS: ReadonlySet<string> = new Set(['data', 'delta']);

interface PendingEntry {
  readonly activity: Record<string, unknown>;
  readonly revision: PendingRevision | undefined;
}

/**
 * A svc_activity row: what was done to which item, by whom, when and from where.
 * Comments (commands/comments.ts) add their `comment`;
 * saves into content versions (commands/versions.ts) are `version_save`.
 */
export function activityRow(
  action: JournalEntry['action'] | 'comment' | 'version_save',
  collection: string,
  key: PrimaryKey,
  accountability: Accountability,
  now: Date,
  dialect: DbClient,
): Record<string, unknown> {
  return activityRowAt(action, collection, key, accountability, toDatabaseTimestamp(now, dialect));
}

/** {@link activityRow} with its time already as the database stores it (converted once per journal). */
function activityRowAt(
  action: Parameters<typeof activityRow>[0],
  collection: string,
  key: PrimaryKey,
  accountability: Accountability,
  timestamp: Date | string,
): Record<string, unknown> {
  return {
    action,
    user: accountability.user,
    timestamp,
    ip: accountability.ip,
    user_agent: accountability.userAgent,
    origin: accountability.origin,
    collection,
    item: String(key),
  };
}

/**
 * Writes svc_activity and svc_revisions rows inside the command's transaction:
 * one activity row per item
 * touched, plus a revision for creates and updates when the collection's accountability is
 * `all`; nothing when it is null. Revision values are masked like reads.
 *
 * Entries are kept until {@link flush} (before the command commits), which writes all of
 * them in a few statements (the activity rows, then the revisions, then the parent links)
 * instead of two per item; rows get their ids in the order they were recorded.
 */
export class Journal {
  #pending: PendingEntry[] = [];
  #links: { readonly children: readonly RevisionRef[]; readonly parent: RevisionRef }[] = [];
  /** The time of every row of this journal, as the database stores it. */
  readonly #timestamp: Date | string;

  constructor(
    private readonly trx: Knex.Transaction,
    private readonly dialect: DbClient,
    private readonly accountability: Accountability,
    now: Date,
  ) {
    this.#timestamp = toDatabaseTimestamp(now, dialect);
  }

  /** Records one touched item; returns its revision when one will be written. */
  record(entry: JournalEntry): RevisionRef | null {
    noteChange(this.trx, entry.action, entry.collection.collection, entry.key);
    const { accountability } = entry.collection;
    if (accountability === null) return null;
    const activity = activityRowAt(
      entry.action,
      entry.collection.collection,
      entry.key,
      this.accountability,
      this.#timestamp,
    );
    const hasRevision = accountability === 'all' && entry.revision !== undefined && entry.action !== 'delete';
    const revision: PendingRevision | undefined = hasRevision
      ? {
          id: undefined,
          row: {
            collection: entry.collection.collection,
            item: String(entry.key),
            data: JSON.stringify(maskItem(entry.collection, entry.revision.data)),
            delta: JSON.stringify(maskItem(entry.collection, entry.revision.delta)),
            parent: null,
          },
        }
      : undefined;
    this.#pending.push({ activity, revision });
    return revision ?? null;
  }

  /** Points the revisions of nested writes at the revision of the write that caused them. */
  linkChildren(children: readonly RevisionRef[], parent: RevisionRef): void {
    if (children.length > 0) this.#links.push({ children, parent });
  }

  /** Writes every entry recorded since the last flush, and the links between their revisions. */
  async flush(): Promise<void> {
    const pending = this.#pending;
    this.#pending = [];
    const [single] = pending;
    if (pending.length === 1 && single?.revision !== undefined && databaseDialect(this.dialect).insertsThroughWith) {
      await this.#writeOne(single.activity, single.revision);
    } else if (pending.length > 0) {
      const activityIds = await this.#insert(
        'svc_activity',
        pending.map((p) => p.activity),
      );
      const revisions = pending.flatMap((p, i) =>
        p.revision === undefined ? [] : [{ revision: p.revision, activity: activityIds[i] }],
      );
      const revisionIds = await this.#insert(
        'svc_revisions',
        revisions.map((r) => ({ activity: r.activity, ...r.revision.row })),
      );
      revisions.forEach((r, i) => {
        r.revision.id = Number(revisionIds[i]);
      });
    }
    await this.#writeLinks();
  }

  /**
   * Journal rows, their ids in order: where many rows go as one JSON recordset (PostgreSQL)
   * or one row alone, through insert-returning-keys.ts; MariaDB's and SQLite's batches by
   * insertObjects (db/insert-rows.ts), which binds what the rows share once (their user,
   * time, origin and, mostly, action and collection).
   */
  async #insert(table: string, rows: readonly Record<string, unknown>[]): Promise<(string | number)[]> {
    if (rows.length > 1 && !databaseDialectOf(this.trx).insertsRecordset)
      return (await insertObjects(this.trx, table, rows, 'id')) as (string | number)[];
    const jsonColumns = table === 'svc_revisions' ? REVISION_JSON_COLUMNS : undefined;
    return insertReturningKeys(this.trx, table, rows, 'id', {
      hasIncreasingKeys: true,
      ...(jsonColumns === undefined ? {} : { jsonColumns }),
    });
  }

  /**
   * Where the dialect inserts through WITH (PostgreSQL), one item (a single create or update): its activity and its revision in one
   * statement, a round trip less than two inserts.
   */
  async #writeOne(activity: Readonly<Record<string, unknown>>, revision: PendingRevision): Promise<void> {
    const activityColumns = Object.keys(activity);
    const { row } = revision;
    const sql =
      `with "a" as (insert into "svc_activity" (${activityColumns.map((c) => `"${c}"`).join(', ')}) ` +
      `values (${activityColumns.map(() => '?').join(', ')}) returning "id") ` +
      'insert into "svc_revisions" ("activity", "collection", "item", "data", "delta", "parent") ' +
      'select "a"."id", ?, ?, cast(? as json), cast(? as json), cast(? as integer) from "a" returning "id"';
    const values = [
      ...Object.values(activity),
      row['collection'],
      row['item'],
      row['data'],
      row['delta'],
      row['parent'],
    ];
    const result = await this.trx.raw<{ rows: { id: number }[] }>(sql, values as Knex.RawBinding[]);
    revision.id = Number(result.rows[0]?.id);
  }

  async #writeLinks(): Promise<void> {
    const links = this.#links;
    this.#links = [];
    for (const link of links) {
      const { id } = link.parent;
      const children = link.children.flatMap((c) => (c.id === undefined ? [] : [c.id]));
      if (id === undefined || children.length < link.children.length) {
        this.#links.push(link);
        continue;
      }
      await this.trx('svc_revisions').whereIn('id', children).update({ parent: id });
    }
  }
}
