import type { Knex } from 'knex';
import type { Migration } from './types.js';

/**
 * Issue 18, content versions (drafts): svc_versions, the named versions of items of
 * collections with `meta.versioning`, as Directus 10.7+ shapes them. `hash` is the live
 * item's hash when the version began (compare's `outdated`), `delta` the values saved into
 * the version so far; each save is also a svc_revisions row whose `version` is the id.
 */
export const contentVersions: Migration = {
  version: '0003',
  name: 'versions',
  async up(db: Knex) {
    const now = db.fn.now();
    await db.schema.createTable('svc_versions', (t) => {
      t.uuid('id').primary().notNullable();
      t.string('key', 64).notNullable();
      t.string('name', 255);
      t.string('collection', 64).notNullable();
      t.string('item', 255).notNullable();
      t.string('hash', 255);
      t.timestamp('date_created', { useTz: true }).defaultTo(now);
      t.timestamp('date_updated', { useTz: true }).defaultTo(now);
      t.uuid('user_created').references('id').inTable('svc_users').onDelete('SET NULL');
      t.uuid('user_updated').references('id').inTable('svc_users').onDelete('SET NULL');
      t.json('delta');
      t.unique(['collection', 'item', 'key'], { indexName: 'svc_versions_collection_item_key_unique' });
    });
    // History reads take an item's revisions newest first (history pages, as-of reads, the
    // previous revision of a diff): with the id in the index that is an ordered index scan
    // instead of a walk back through the primary key (bench/history.ts, 10M rows).
    await db.schema.alterTable('svc_revisions', (t) => {
      t.dropIndex(['collection', 'item']);
      t.index(['collection', 'item', 'id'], 'svc_revisions_collection_item_id_index');
      t.index(['version'], 'svc_revisions_version_index');
    });
  },
};
