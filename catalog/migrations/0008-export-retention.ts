import type { Knex } from 'knex';
import type { Migration } from './types.js';

/**
 * How long exports are kept, a project setting the administrator edits (the Studio's settings):
 * svc_settings.export_retention, read by the export cleanup at each run
 * (src/files/export/export-retention.ts). Null: EXPORT_RETENTION applies.
 */
export const exportRetention: Migration = {
  version: '0008',
  name: 'export-retention',
  async up(db: Knex) {
    await db.schema.alterTable('svc_settings', (t) => {
      t.string('export_retention', 32);
    });
  },
};
