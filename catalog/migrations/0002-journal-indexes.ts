import type { Knex } from 'knex';
import { databaseDialectOf } from '../../src/db/dialects/index.js';
import type { Migration } from './types.js';

/**
 * Issue 18, history at scale: the retention pruner selects svc_activity rows by `timestamp`
 * and their revisions by `activity` (PostgreSQL and SQLite do not index foreign keys by
 * themselves; MariaDB's own FK index is reused). History, diffs and as-of reads use the
 * (collection, item) indexes of 0001.
 */
export const journalIndexes: Migration = {
  version: '0002',
  name: 'journal-indexes',
  async up(db: Knex) {
    await db.schema.alterTable('svc_activity', (t) => {
      t.index(['timestamp'], 'svc_activity_timestamp_index');
    });
    if (!databaseDialectOf(db).indexesForeignKeys) {
      await db.schema.alterTable('svc_revisions', (t) => {
        t.index(['activity'], 'svc_revisions_activity_index');
      });
    }
  },
};
