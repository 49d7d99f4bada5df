import type { Knex } from 'knex';
import type { Config } from '../config/index.js';
import type { Logger } from '../logger/index.js';
import { MemoryCounterStore, type CounterStore } from './counter-store.js';
import { createMailer, type Mailer } from './mailer.js';

/** The collaborators of the auth flows (login, refresh, logout, TFA, password reset). */
export interface AuthContext {
  readonly db: Knex;
  readonly config: Config;
  readonly logger: Logger;
  /** Login failure counters (memory, or Redis when configured). */
  readonly counters: CounterStore;
  readonly mailer: Mailer;
}

export interface AuthServices extends AuthContext {
  /** Releases what the services hold open (mail transport); the database is not theirs. */
  close(): Promise<void>;
}

/**
 * Builds the auth collaborators from the config. The mail transport is checked when
 * EMAIL_VERIFY_SETUP is on; a failure is logged (mail is not needed to serve the API).
 */
export function createAuthServices(deps: Pick<AuthContext, 'db' | 'config' | 'logger'>): AuthServices {
  const { config, logger } = deps;
  const mailer = createMailer(config.email);
  if (config.email.verifySetup) {
    mailer.verify().catch((error: unknown) => {
      logger.warn({ err: error, transport: config.email.transport }, 'e-mail transport is not usable');
    });
  }
  return {
    ...deps,
    counters: new MemoryCounterStore(),
    mailer,
    close() {
      mailer.close();
      return Promise.resolve();
    },
  };
}
