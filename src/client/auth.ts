import type { IStorage } from './storage.js';
import type { ITransport } from './transport.js';

export type AuthMode = 'json' | 'cookie';

export interface AuthCredentials {
  readonly email: string;
  readonly password: string;
  readonly otp?: string;
}

/** What login and refresh answer. */
export interface AuthResult {
  readonly access_token: string;
  readonly expires: number;
  readonly refresh_token?: string;
}

export interface AuthOptions {
  /** `json` (default outside browsers) or `cookie` (refresh token in an httpOnly cookie). */
  readonly mode?: AuthMode;
  /** Refresh before requests when the access token is about to expire (default true). */
  readonly autoRefresh?: boolean;
  /** How long before expiry "about to expire" starts (default 30000 ms). */
  readonly msRefreshBeforeExpires?: number;
  /** A static token: stored as the access token, never refreshed. */
  readonly staticToken?: string;
}

/** A single sign-on provider, as GET /auth lists it. */
export interface AuthProvider {
  readonly name: string;
  readonly driver: string;
  readonly icon?: string;
  readonly label?: string;
}

/** GET /auth: the providers, and whether e-mail/password login is off. */
export interface AuthProviders {
  readonly data: readonly AuthProvider[];
  readonly disableDefault: boolean;
}

/** Password reset e-mails and the reset itself. */
export class PasswordsHandler {
  constructor(private readonly transport: ITransport) {}

  async request(email: string, reset_url?: string): Promise<void> {
    await this.transport.post('/auth/password/request', { email, reset_url });
  }

  async reset(token: string, password: string): Promise<void> {
    await this.transport.post('/auth/password/reset', { token, password });
  }
}

/** The client's authentication; replace it with your own implementation. */
export abstract class IAuth {
  abstract readonly mode: AuthMode;
  abstract get token(): Promise<string | null>;
  abstract get password(): PasswordsHandler;
  abstract login(credentials: AuthCredentials): Promise<AuthResult>;
  abstract providers(): Promise<AuthProviders>;
  abstract loginUrl(provider: string, redirect?: string): string;
  abstract refresh(): Promise<AuthResult>;
  abstract refreshIfExpired(): Promise<void>;
  abstract static(token: string): Promise<boolean>;
  abstract logout(): Promise<void>;
}

/**
 * Login, refresh, static tokens and logout, keeping tokens in the storage. "autoRefresh" has no
 * timer: the client calls refreshIfExpired before requests, and concurrent callers share one
 * refresh.
 */
export class Auth extends IAuth {
  readonly mode: AuthMode;
  readonly autoRefresh: boolean;
  readonly msRefreshBeforeExpires: number;
  readonly staticToken: string;
  readonly #transport: ITransport;
  readonly #storage: IStorage;
  readonly #password: PasswordsHandler;
  #refreshing: Promise<AuthResult> | undefined;

  /** The service's URL, for the single sign-on links. */
  readonly #url: string | undefined;

  constructor(options: AuthOptions & { transport: ITransport; storage: IStorage; url?: string }) {
    super();
    this.#url = options.url?.replace(/\/+$/, '');
    this.mode =
      options.mode ?? (typeof (globalThis as { window?: unknown }).window === 'undefined' ? 'json' : 'cookie');
    this.autoRefresh = options.autoRefresh ?? true;
    this.msRefreshBeforeExpires = options.msRefreshBeforeExpires ?? 30000;
    this.staticToken = options.staticToken ?? '';
    this.#transport = options.transport;
    this.#storage = options.storage;
    this.#password = new PasswordsHandler(options.transport);
    if (this.staticToken !== '') this.storeStatic(this.staticToken);
  }

  get password(): PasswordsHandler {
    return this.#password;
  }

  get token(): Promise<string | null> {
    return (this.#refreshing ?? Promise.resolve()).then(
      () => this.#storage.auth_token,
      () => this.#storage.auth_token,
    );
  }

  async login(credentials: AuthCredentials): Promise<AuthResult> {
    this.resetStorage();
    const response = await this.#transport.post<AuthResult>(
      '/auth/login',
      { mode: this.mode, ...credentials },
      { headers: { Authorization: null } },
    );
    return this.store(response.data);
  }

  refresh(): Promise<AuthResult> {
    this.#refreshing ??= this.runRefresh().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /**
   * Refreshes when the token expires within msRefreshBeforeExpires, or waits for a refresh under
   * way. A refused refresh rejects with its TransportError: the request waiting on it is not
   * sent without the token it was meant to carry.
   */
  async refreshIfExpired(): Promise<void> {
    if (this.staticToken !== '' || !this.autoRefresh) return;
    const expiresAt = this.#storage.auth_expires_at;
    if (this.#refreshing === undefined && expiresAt !== null && expiresAt < Date.now() + this.msRefreshBeforeExpires) {
      await this.refresh();
      return;
    }
    await this.#refreshing;
  }

  /** GET /auth: the single sign-on providers, and `disableDefault`. */
  async providers(): Promise<AuthProviders> {
    const response = await this.#transport.get<unknown, AuthProviders>('/auth', { headers: { Authorization: null } });
    return response.raw;
  }

  /**
   * Where to send the browser to log in with `provider` (GET /auth/login/:provider). With a
   * `redirect` (on the provider's REDIRECT_ALLOW_LIST) the browser comes back there with the
   * refresh cookie: then `refresh()` in cookie mode gets the tokens. Without one, the callback
   * answers the tokens as JSON.
   */
  loginUrl(provider: string, redirect?: string): string {
    if (this.#url === undefined) throw new Error('The client was built without the service URL');
    const query = redirect === undefined ? '' : `?redirect=${encodeURIComponent(redirect)}`;
    return `${this.#url}/auth/login/${encodeURIComponent(provider)}${query}`;
  }

  async static(token: string): Promise<boolean> {
    await this.#transport.get('/users/me', { params: { access_token: token }, headers: { Authorization: null } });
    this.storeStatic(token);
    return true;
  }

  /**
   * Ends the session (POST /auth/logout) and clears the stored tokens. In json mode without a
   * refresh token (a static token) there is no session: the server would answer 400, so the
   * token is only forgotten.
   */
  async logout(): Promise<void> {
    const refresh_token = this.mode === 'json' ? this.#storage.auth_refresh_token : undefined;
    if (refresh_token !== null) await this.#transport.post('/auth/logout', { refresh_token });
    this.resetStorage();
  }

  private async runRefresh(): Promise<AuthResult> {
    const refresh_token = this.#storage.auth_refresh_token;
    this.resetStorage();
    const response = await this.#transport.post<AuthResult>(
      '/auth/refresh',
      this.mode === 'json' ? { refresh_token, mode: 'json' } : { mode: 'cookie' },
    );
    return this.store(response.data);
  }

  private store(data: AuthResult | undefined): AuthResult {
    if (data === undefined) throw new Error('The server answered without a token');
    const storage = this.#storage;
    storage.auth_token = data.access_token;
    storage.auth_expires = data.expires;
    storage.auth_expires_at = Date.now() + data.expires;
    if (this.mode === 'json' && data.refresh_token !== undefined) storage.auth_refresh_token = data.refresh_token;
    return data;
  }

  private storeStatic(token: string): void {
    this.resetStorage();
    this.#storage.auth_token = token;
  }

  private resetStorage(): void {
    const storage = this.#storage;
    storage.auth_token = null;
    storage.auth_refresh_token = null;
    storage.auth_expires = null;
    storage.auth_expires_at = null;
  }
}
