import type { Knex } from 'knex';
import type { DataInvalidation } from '../cache/data-invalidation.js';
import type { RedisBus } from '../cache/redis-bus.js';
import type { Config } from '../config/index.js';
import { committedReadDatabase } from '../db/replicas.js';
import type { Logger } from '../logger/index.js';
import { RedisGuard } from '../cache/redis-guard.js';
import { FallbackCounterStore, MemoryCounterStore, RedisCounterStore, type CounterStore } from './counter-store.js';
import { createMailer, NOT_CONFIGURED, type Mailer } from './mailer.js';
import { UserLookups } from './user-lookups.js';

/** The collaborators of the auth flows (login, refresh, logout, TFA, password reset). */
export interface AuthContext {
  readonly db: Knex;
  readonly config: Config;
  readonly logger: Logger;
  /** Login failure counters (memory, or Redis when configured). */
  readonly counters: CounterStore;
  readonly mailer: Mailer;
  /** Told when an auth flow changes svc_users rows (a suspension). */
  readonly invalidation: DataInvalidation;
  /** The process's filter and action events (`auth.login`): extensions' hooks; none when absent. */
  readonly hooks?: AuthHooks | undefined;
}

/** What a login event's handlers are given besides payload and meta, as Directus 10 passes it. */
interface AuthHookContext {
  readonly database: Knex;
  readonly schema: null;
  readonly accountability: null;
}

/**
 * The part of the items floor's HookBus auth runs (items/hooks.ts; auth sits below items, so
 * it names the shape, never the class): filters that may change or refuse a payload, actions after.
 */
interface AuthHooks {
  runFilter<T>(
    events: readonly string[],
    payload: T,
    meta: Readonly<Record<string, unknown>>,
    context: AuthHookContext,
  ): Promise<T>;
  runAction(events: readonly string[], meta: Readonly<Record<string, unknown>>, context: AuthHookContext): void;
}

export interface AuthServices extends AuthContext {
  /** The users of tokens (by id, by static token), forgotten when svc_users or svc_roles change. */
  readonly users: UserLookups;
  /** Releases what the services hold open (the mail transport); the database and the Redis bus are not theirs. */
  close(): Promise<void>;
}

/**
 * Builds the auth collaborators from the config: login counters in Redis, on the process's bus,
 * when REDIS is set (shared by every instance; counted in this process while Redis fails), else
 * in memory. The mail transport is checked when EMAIL_VERIFY_SETUP is on; a failure is one
 * warning line (mail is not needed to serve the API) and `/server/health` reports it.
 */
export function createAuthServices(
  deps: Pick<AuthContext, 'db' | 'config' | 'logger' | 'invalidation' | 'hooks'>,
  bus: RedisBus | undefined,
): AuthServices {
  const { config, logger } = deps;
  const mailer = createMailer(config.email);
  if (config.email.verifySetup) {
    const { transport } = config.email;
    mailer.verify().catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      if (!config.email.isConfigured) {
        logger.info(`${NOT_CONFIGURED}: set EMAIL_TRANSPORT=smtp and EMAIL_SMTP_HOST to send them`);
        return;
      }
      logger.warn(
        `e-mail cannot be sent: the ${transport} transport is not usable (${reason}); invites, password resets and registration mails are not delivered. Set EMAIL_TRANSPORT=smtp with EMAIL_SMTP_HOST, or EMAIL_SENDMAIL_PATH`,
      );
    });
  }
  // A login is never let through unchecked: without Redis its counters are this instance's.
  const guard = new RedisGuard('login counters', 'counted in this instance only', logger);
  const unwatch = bus?.watch(guard, { isSubscriber: false });
  const users = new UserLookups(committedReadDatabase(deps.db), {
    enabled: config.cache.permissions,
    ttlMs: config.authUserCacheTtlMs,
  });
  const unsubscribe = deps.invalidation.onChange(['svc_users', 'svc_roles'], () => {
    users.clear();
  });
  return {
    ...deps,
    users,
    counters:
      bus === undefined
        ? new MemoryCounterStore()
        : // Under CACHE_NAMESPACE, as every key: deployments sharing a Redis count apart.
          new FallbackCounterStore(
            new RedisCounterStore(bus.commands, `${config.cache.namespace}:auth:`),
            guard,
            'memory',
          ),
    mailer,
    // The Redis connection is the bus's, closed with it.
    close() {
      unsubscribe();
      unwatch?.();
      mailer.close();
      return Promise.resolve();
    },
  };
}
