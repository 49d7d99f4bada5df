import type { Knex } from 'knex';
import type { Migration } from './types.js';

/**
 * Issue 44, flows: svc_flows (a trigger and its options) and svc_operations (the chain: each
 * operation's `resolve` and `reject` name the next one), as Directus 10 shapes them
 * (directus_flows, directus_operations). A flow's `operation` is its first step. Runs are
 * logged as svc_activity rows (`run`) with a svc_revisions row holding the steps.
 * svc_flow_claims is internal: one row per queued run's event (`running`, `done`, or `failed`
 * once its retries ran out: the dead letters), so a job delivered twice runs once.
 */
export const flows: Migration = {
  version: '0006',
  name: 'flows',
  async up(db: Knex) {
    const now = db.fn.now();
    await db.schema.createTable('svc_flows', (t) => {
      t.uuid('id').primary().notNullable();
      t.string('name', 255).notNullable();
      t.string('icon', 64);
      t.string('color', 255);
      t.text('description');
      t.string('status', 255).notNullable().defaultTo('active');
      t.string('trigger', 255);
      t.string('accountability', 255).defaultTo('all');
      t.json('options');
      t.uuid('operation');
      t.timestamp('date_created', { useTz: true }).defaultTo(now);
      t.uuid('user_created').references('id').inTable('svc_users').onDelete('SET NULL');
    });
    await db.schema.createTable('svc_operations', (t) => {
      t.uuid('id').primary().notNullable();
      t.string('name', 255);
      t.string('key', 255).notNullable();
      t.string('type', 255).notNullable();
      t.integer('position_x').notNullable().defaultTo(0);
      t.integer('position_y').notNullable().defaultTo(0);
      t.json('options');
      t.uuid('resolve');
      t.uuid('reject');
      t.uuid('flow').notNullable().references('id').inTable('svc_flows').onDelete('CASCADE');
      t.timestamp('date_created', { useTz: true }).defaultTo(now);
      t.uuid('user_created').references('id').inTable('svc_users').onDelete('SET NULL');
      t.unique(['flow', 'key'], { indexName: 'svc_operations_flow_key_unique' });
    });
    await db.schema.createTable('svc_flow_claims', (t) => {
      t.string('key', 255).primary().notNullable();
      t.string('state', 16).notNullable();
      t.bigInteger('created').notNullable();
      // The queued run (flow, trigger, accountability), kept for a replay of a dead letter.
      t.uuid('flow');
      t.text('job');
      t.text('error');
      t.index(['created'], 'svc_flow_claims_created_index');
    });
  },
};
