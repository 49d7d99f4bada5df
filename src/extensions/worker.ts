import type { PermissionStore } from '../access/permission-store.js';
import type { SchemaCache } from '../cache/schema-cache.js';
import type { Config } from '../config/index.js';
import type { Knex } from 'knex';
import { HookBus } from '../items/hooks.js';
import type { Logger } from '../logger/index.js';
import { loadExtensions, type Extensions } from './index.js';
import { readOnlyItems } from './read-items.js';

/**
 * The operation extensions of a worker process: the flow runs it takes from the queue use them
 * as the API's do. Hooks, endpoints and schedules are the API's alone; services read only, as on
 * the command line (a write there would change data behind the API instances' caches).
 */
export function loadWorkerOperations(deps: {
  readonly config: Config;
  readonly db: Knex;
  readonly schema: Pick<SchemaCache, 'getOverview'>;
  readonly permissions: PermissionStore;
  readonly logger: Logger;
}): Promise<Extensions> {
  const { config, db, schema, permissions, logger } = deps;
  return loadExtensions({
    config,
    db,
    schema,
    logger,
    hooks: new HookBus(),
    schedules: false,
    types: ['operation'],
    items: readOnlyItems({ config, db, schema, permissions }, 'a worker'),
  });
}
