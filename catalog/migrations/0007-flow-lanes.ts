import type { Knex } from 'knex';
import type { Migration } from './types.js';

/**
 * Issue 44, deliveries in order per item: a claim of an after-commit item event's run has a
 * `lane` (a hash of its flow, collection and item keys: src/flows/run-lanes.ts) and a `seq`
 * (the event's place among its item's events), so a run finds its lane's earlier runs that have
 * not settled and waits for them (new states `queued` and `waiting`). Other runs have neither.
 */
export const flowLanes: Migration = {
  version: '0007',
  name: 'flow-lanes',
  async up(db: Knex) {
    await db.schema.alterTable('svc_flow_claims', (t) => {
      t.string('lane', 64);
      t.bigInteger('seq');
      t.index(['lane', 'seq'], 'svc_flow_claims_lane_index');
    });
  },
};
