import type { Knex } from 'knex';
import type { Config } from '../config/index.js';
import type { Logger } from '../logger/index.js';
import type { CounterStore } from './counter-store.js';

/** The collaborators of the auth flows (login, refresh, logout, TFA, password reset). */
export interface AuthContext {
  readonly db: Knex;
  readonly config: Config;
  readonly logger: Logger;
  /** Login failure counters (memory, or Redis when configured). */
  readonly counters: CounterStore;
}
