import type { Knex } from 'knex';
import { findActiveUserByToken, type AuthUser } from './auth-user.js';

/** Static tokens remembered at most; the least recently used is forgotten first. */
const DEFAULT_MAX_ENTRIES = 1_000;

/**
 * The active user behind each static token (reference/auth.md, Static tokens), remembered so
 * that authenticating a request costs no query. What is remembered comes from svc_users and
 * svc_roles (status, role, admin and app access, ip_access): {@link clear} runs whenever one
 * of them changes (src/cache/data-invalidation.ts, on every instance). Unknown tokens are not
 * remembered: a guess costs its query, as before, and cannot fill the memory.
 */
export class StaticTokenUsers {
  readonly #db: Knex;
  readonly #isCaching: boolean;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, Promise<AuthUser | undefined>>();

  constructor(db: Knex, options: { readonly enabled: boolean; readonly maxEntries?: number }) {
    this.#db = db;
    this.#isCaching = options.enabled;
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  }

  find(token: string): Promise<AuthUser | undefined> {
    if (!this.#isCaching) return findActiveUserByToken(this.#db, token);
    const known = this.#entries.get(token);
    if (known !== undefined) {
      // Map order is insertion order: re-inserting makes it the most recently used.
      this.#entries.delete(token);
      this.#entries.set(token, known);
      return known;
    }
    const lookup = findActiveUserByToken(this.#db, token);
    this.#entries.set(token, lookup);
    if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    const forget = () => {
      if (this.#entries.get(token) === lookup) this.#entries.delete(token);
    };
    lookup.then((user) => {
      if (user === undefined) forget();
    }, forget);
    return lookup;
  }

  /** Forgets every token; lookups in flight are not kept either. */
  clear(): void {
    this.#entries.clear();
  }
}
