import type { Knex } from 'knex';
import { databaseDialectOf } from '../../src/db/dialects/index.js';
import type { Migration } from './types.js';

/**
 * Issue 36: writes may carry an `Idempotency-Key` header (src/commands/idempotency.ts). A key
 * is recorded per caller in the write's own transaction, with the hash of its request
 * (`fingerprint`), and the answer once given (`status`, `content_type`, `body`), so a retry
 * after an answer lost to a failure finds the committed write instead of repeating it. Keys
 * live a day (`created`, epoch milliseconds). The key compares exactly on MariaDB too.
 */
export const idempotencyKeys: Migration = {
  version: '0005',
  name: 'idempotency-keys',
  async up(db: Knex) {
    const exact = databaseDialectOf(db).exactStringType;
    const mysql = databaseDialectOf(db).vendor === 'mysql';
    await db.schema.createTable('svc_idempotency', (t) => {
      t.increments('id');
      if (exact === undefined) t.string('key', 255).notNullable();
      else t.specificType('key', exact(255)).notNullable();
      t.string('caller', 64).notNullable();
      t.string('fingerprint', 64).notNullable();
      t.bigInteger('created').notNullable();
      t.integer('status');
      t.string('content_type', 255);
      if (mysql) t.text('body', 'longtext');
      else t.text('body');
      t.unique(['caller', 'key'], { indexName: 'svc_idempotency_caller_key_unique' });
      t.index(['created'], 'svc_idempotency_created_index');
    });
  },
};
