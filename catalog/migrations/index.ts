import type { Migration } from './types.js';
import { systemTables } from './0001-system-tables.js';
import { journalIndexes } from './0002-journal-indexes.js';
import { contentVersions } from './0003-versions.js';
import { exactCredentials } from './0004-exact-credentials.js';
import { idempotencyKeys } from './0005-idempotency-keys.js';
import { flows } from './0006-flows.js';
import { flowLanes } from './0007-flow-lanes.js';
import { exportRetention } from './0008-export-retention.js';

export type { Migration } from './types.js';

/** Every migration, oldest first. Append only. */
export const MIGRATIONS: readonly Migration[] = [
  systemTables,
  journalIndexes,
  contentVersions,
  exactCredentials,
  idempotencyKeys,
  flows,
  flowLanes,
  exportRetention,
];
