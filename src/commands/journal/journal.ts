import type { Knex } from 'knex';
import type { CollectionOverview } from '../../../catalog/overview/types.js';
import type { Accountability } from '../../access/accountability.js';
import type { DbClient } from '../../config/index.js';
import { insertReturningKey } from '../../db/insert-returning-key.js';
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

/**
 * Writes svc_activity and svc_revisions rows inside the command's transaction
 * (reference/audit-and-utils.md, "What each write records"): one activity row per item
 * touched, plus a revision for creates and updates when the collection's accountability is
 * `all`; nothing when it is null. Revision values are masked like reads.
 */
export class Journal {
  constructor(
    private readonly trx: Knex.Transaction,
    private readonly dialect: DbClient,
    private readonly accountability: Accountability,
    private readonly now: Date,
  ) {}

  /** Records one touched item; returns the id of its revision when one was written. */
  async record(entry: JournalEntry): Promise<number | null> {
    const { accountability } = entry.collection;
    if (accountability === null) return null;
    const activity = await insertReturningKey(
      this.trx,
      'svc_activity',
      {
        action: entry.action,
        user: this.accountability.user,
        timestamp: toDatabaseTimestamp(this.now, this.dialect),
        ip: this.accountability.ip,
        user_agent: this.accountability.userAgent,
        origin: this.accountability.origin,
        collection: entry.collection.collection,
        item: String(entry.key),
      },
      'id',
    );
    if (accountability !== 'all' || entry.revision === undefined || entry.action === 'delete') return null;
    const revision = await insertReturningKey(
      this.trx,
      'svc_revisions',
      {
        activity,
        collection: entry.collection.collection,
        item: String(entry.key),
        data: JSON.stringify(maskItem(entry.collection, entry.revision.data)),
        delta: JSON.stringify(maskItem(entry.collection, entry.revision.delta)),
        parent: null,
      },
      'id',
    );
    return Number(revision);
  }

  /** Points the revisions of nested writes at the revision of the write that caused them. */
  async linkChildren(children: readonly number[], parent: number): Promise<void> {
    if (children.length === 0) return;
    await this.trx('svc_revisions').whereIn('id', [...children]).update({ parent });
  }
}
