import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import { findActiveUserByToken, findUserById, findUsersByIds, type AuthUser } from './auth-user.js';
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
 * anyway, and cannot fill the memory. Users asked for by id in one turn of the event loop are
 * read in one query: a live delivery checks the tokens of a thousand subscribers at once, and
 * their reads expire together.
 */
export class UserLookups implements AuthLookups {
  readonly #byId: RecentLookups;
  readonly #byToken: RecentLookups;
  readonly #ttlMs: number;
  #generation = 0;

  constructor(db: Knex, options: UserLookupsOptions) {
    this.#byId = new RecentLookups(batched(db), options);
    this.#byToken = new RecentLookups((token) => findActiveUserByToken(db, token), options);
    this.#ttlMs = options.enabled ? options.ttlMs : 0;
  }

  get trust(): { readonly ttlMs: number; readonly generation: number } {
    return { ttlMs: this.#ttlMs, generation: this.#generation };
  }

  userById(id: string): Promise<AuthUser | undefined> {
    return this.#byId.find(id);
  }

  userByStaticToken(token: string): Promise<AuthUser | undefined> {
    return this.#byToken.find(token);
  }

  /** Forgets every user; lookups in flight are not kept either. */
  clear(): void {
    this.#generation += 1;
    this.#byId.clear();
    this.#byToken.clear();
  }
}

interface Waiter {
  readonly promise: Promise<AuthUser | undefined>;
  readonly resolve: (user: AuthUser | undefined) => void;
  readonly reject: (error: unknown) => void;
}

function waiter(): Waiter {
  let resolve: Waiter['resolve'] = () => undefined;
  let reject: Waiter['reject'] = () => undefined;
  const promise = new Promise<AuthUser | undefined>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/**
 * Users per id: the ids asked for in one synchronous run (every subscriber of a delivery),
 * read in one query once it ends.
 */
function batched(db: Knex): (id: string) => Promise<AuthUser | undefined> {
  let pending: Map<string, Waiter> | undefined;
  const flush = async (asked: Map<string, Waiter>) => {
    try {
      const found = asked.size === 1 ? undefined : await findUsersByIds(db, [...asked.keys()]);
      for (const [id, one] of asked) {
        const user = found?.get(id);
        // One alone, or not found as written (a uuid in capitals on PostgreSQL): the single lookup.
        if (user === undefined) findUserById(db, id).then(one.resolve, one.reject);
        else one.resolve(user);
      }
    } catch (error) {
      for (const one of asked.values()) one.reject(error);
    }
  };
  return (id) => {
    if (pending === undefined) {
      const asked = (pending = new Map<string, Waiter>());
      queueMicrotask(() => {
        pending = undefined;
        void flush(asked);
      });
    }
    let asked = pending.get(id);
    if (asked === undefined) pending.set(id, (asked = waiter()));
    return asked.promise;
  };
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
