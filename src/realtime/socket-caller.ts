import type { Knex } from 'knex';
import type { Accountability } from '../access/accountability.js';
import { accessTokenExpiresAt, rememberingVerifier, type AccessTokenClaims } from '../auth/access-token.js';
import { authenticate, type AuthLookups, type RequestOrigin } from '../auth/authenticate.js';
import type { ServiceError } from '../errors.js';
import type { LiveConnection } from './live-reads.js';

/**
 * An authentication's start: when, the user lookups' generation then, and the share of their
 * trust it stands for (a half to all of it, drawn at random: the sockets opened together are not
 * all asked again at the same change).
 */
interface Asked {
  readonly ms: number;
  readonly generation: number;
  readonly share: number;
}

export interface SocketCallerDeps {
  readonly db: Knex;
  readonly config: { readonly secret: string };
  readonly auth: { readonly users: AuthLookups };
}

/**
 * Who is on the other end of a socket: a token (or none: the public role, never more) checked
 * again every time it is asked, so an expired token (TOKEN_EXPIRED), a deactivated user or a
 * changed role count from that moment on, as on every HTTP request.
 */
export class SocketCaller implements LiveConnection {
  #token: string | undefined;
  #lastCaller: Accountability | undefined;
  /** When {@link lastCaller} was asked for (before the asking), and the user lookups' generation then. */
  #askedAt: Asked | undefined;
  /** The current token's expiry, decoded once per token. */
  #expiry: { readonly token: string | undefined; readonly at: number | undefined } | undefined;
  /** The token's signature is checked once; its expiry, session and user at every use. */
  readonly #verify: (token: string) => AccessTokenClaims;

  constructor(
    private readonly deps: SocketCallerDeps,
    readonly origin: RequestOrigin,
    token: string | undefined,
    private readonly onEnd: (error: ServiceError) => void,
    private readonly frames?: { cork(): void; uncork(): void },
  ) {
    this.#token = token;
    this.#verify = rememberingVerifier(deps.config.secret);
  }

  get token(): string | undefined {
    return this.#token;
  }

  /** When the current token expires (ms since the epoch); undefined: never (a static token, or none). */
  get expiresAt(): number | undefined {
    const token = this.#token;
    const known = this.#expiry;
    if (known !== undefined && known.token === token) return known.at;
    const at = token === undefined ? undefined : accessTokenExpiresAt(token);
    this.#expiry = { token, at };
    return at;
  }

  /** The same token from the same address is the same caller (the user agent names nothing a permission reads). */
  get callerKey(): string {
    return `${this.origin.ip ?? ''}\n${this.#token ?? ''}`;
  }

  /** The caller as last authenticated (the delete witness of live-reads.ts). */
  get lastCaller(): Accountability | undefined {
    return this.#lastCaller;
  }

  /**
   * The caller as last authenticated, while it may stand for the caller now without asking
   * again: the user lookups trust what they read for AUTH_USER_CACHE_TTL unless a user or role
   * changes meanwhile (user-lookups.ts), and the token has not expired. A delivery reads a
   * change for it; whoever is then sent something is authenticated again first (live-reads.ts),
   * so a revoked token or a suspended user is never sent a change.
   */
  recentCaller(): Accountability | undefined {
    const last = this.#lastCaller;
    const asked = this.#askedAt;
    const trust = this.deps.auth.users.trust;
    if (last === undefined || asked === undefined || trust === undefined) return undefined;
    const now = Date.now();
    if (asked.generation !== trust.generation || now - asked.ms >= trust.ttlMs * asked.share) return undefined;
    const expiresAt = this.expiresAt;
    return expiresAt === undefined || now < expiresAt ? last : undefined;
  }

  /** The user whose subscriptions these are, or for the public role the address (WEBSOCKETS_SUBSCRIPTION_USER_LIMIT). */
  get ownerKey(): string {
    const user = this.#lastCaller?.user;
    return user === null || user === undefined ? `address\n${this.origin.ip ?? ''}` : `user\n${user}`;
  }

  cork(): void {
    this.frames?.cork();
  }

  uncork(): void {
    this.frames?.uncork();
  }

  /** The caller of `token` (checked now: a bad one throws and changes nothing); it replaces the current one. */
  async authenticateWith(token: string): Promise<Accountability> {
    const asked = this.#asking();
    const accountability = await authenticate(
      this.deps.db,
      this.deps.config.secret,
      token,
      this.origin,
      this.deps.auth.users,
      this.#verify,
    );
    this.#token = token;
    this.#lastCaller = accountability;
    this.#askedAt = asked;
    return accountability;
  }

  /** No token any more: the public role from now on. */
  signOut(): void {
    this.#token = undefined;
    this.#lastCaller = undefined;
    this.#askedAt = undefined;
  }

  async caller(): Promise<Accountability> {
    const { db, config, auth } = this.deps;
    const token = this.#token;
    const asked = this.#asking();
    const accountability = await authenticate(db, config.secret, token, this.origin, auth.users, this.#verify);
    // A token replaced meanwhile: the newer caller stays the last known.
    if (this.#token === token) {
      this.#lastCaller = accountability;
      this.#askedAt = asked;
    }
    return accountability;
  }

  /** The moment an authentication starts (what it reads is at least as new). */
  #asking(): Asked {
    return { ms: Date.now(), generation: this.deps.auth.users.trust?.generation ?? 0, share: 0.5 + Math.random() / 2 };
  }

  end(error: ServiceError): void {
    this.onEnd(error);
  }
}
