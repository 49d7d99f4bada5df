import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { findActiveUserByToken, findUserById, type AuthUser } from './auth-user.js';
import type { AuthLookups } from './authenticate.js';

/** Users remembered at most, per kind of key; the least recently used is forgotten first. */
const DEFAULT_MAX_ENTRIES = 1_000;

export interface UserLookupsOptions {
  /** CACHE_PERMISSIONS: false reads the user on every request. */
  readonly enabled: boolean;
  /** AUTH_USER_CACHE_TTL: how long a user read is trusted (0: not remembered). */
  readonly ttlMs: number;
  readonly maxEntries?: number;
}

/**
 * The users behind tokens as authentication needs them (status, role, the role's admin and
 * app access and ip_access), per user id (our JWTs) and per static token, remembered so that
 * a request costs no query: one read per user per `ttlMs` at most (AUTH_USER_CACHE_TTL).
 * {@link clear} runs whenever svc_users or svc_roles change through the service, on every
 * instance (src/cache/data-invalidation.ts, Redis pub/sub); the TTL bounds the rest: changes
 * made outside the service, instances without Redis, a lost message.
 *
 * What is not found is not remembered: a guessed static token costs its query, as it would
 * anyway, and cannot fill the memory.
 */
export class UserLookups implements AuthLookups {
  readonly #byId: RecentLookups;
  readonly #byToken: RecentLookups;

  constructor(db: Knex, options: UserLookupsOptions) {
    this.#byId = new RecentLookups((id) => findUserById(db, id), options);
    this.#byToken = new RecentLookups((token) => findActiveUserByToken(db, token), options);
  }

  userById(id: string): Promise<AuthUser | undefined> {
    return this.#byId.find(id);
  }

  userByStaticToken(token: string): Promise<AuthUser | undefined> {
    return this.#byToken.find(token);
  }

  /** Forgets every user; lookups in flight are not kept either. */
  clear(): void {
    this.#byId.clear();
    this.#byToken.clear();
  }
}

/** Lookups by key, each remembered for `ttlMs` (its promise: concurrent requests share one read). */
class RecentLookups {
  readonly #load: (key: string) => Promise<AuthUser | undefined>;
  readonly #entries: LRUCache<string, Promise<AuthUser | undefined>> | undefined;

  constructor(load: (key: string) => Promise<AuthUser | undefined>, options: UserLookupsOptions) {
    this.#load = load;
    // lru-cache reads a 0 ttl as "forever".
    this.#entries =
      options.enabled && options.ttlMs > 0
        ? new LRUCache({ max: options.maxEntries ?? DEFAULT_MAX_ENTRIES, ttl: options.ttlMs })
        : undefined;
  }

  find(key: string): Promise<AuthUser | undefined> {
    const entries = this.#entries;
    if (entries === undefined) return this.#load(key);
    const known = entries.get(key);
    if (known !== undefined) return known;
    const lookup = this.#load(key);
    entries.set(key, lookup);
    const forget = () => {
      if (entries.peek(key, { allowStale: true }) === lookup) entries.delete(key);
    };
    lookup.then((user) => {
      if (user === undefined) forget();
    }, forget);
    return lookup;
  }

  clear(): void {
    this.#entries?.clear();
  }
}
