import type { Knex } from 'knex';
import { loadConfig } from '../../../src/config/index.js';
import { createDatabase } from '../../../src/db/index.js';

/** A knex instance on a test database from its environment, as the service would open it. */
export function knexOf(env: Readonly<Record<string, string>>): Knex {
  return createDatabase(loadConfig({ SECRET: 'x', ...env }, { defaultConfigPath: '/nonexistent/.env' }).db);
}
