/** Where the client keeps its tokens. */
export abstract class IStorage {
  abstract get auth_token(): string | null;
  abstract set auth_token(value: string | null);
  abstract get auth_expires(): number | null;
  abstract set auth_expires(value: number | null);
  abstract get auth_expires_at(): number | null;
  abstract set auth_expires_at(value: number | null);
  abstract get auth_refresh_token(): string | null;
  abstract set auth_refresh_token(value: string | null);
  abstract get(key: string): string | null;
  abstract set(key: string, value: string): string;
  abstract delete(key: string): string | null;
}

export interface StorageOptions {
  /** Prepended to every key: different prefixes keep several clients apart. */
  readonly prefix?: string;
  readonly mode?: 'LocalStorage' | 'MemoryStorage';
}

/**
 * The four auth keys (`auth_token`, `auth_refresh_token`, `auth_expires`, `auth_expires_at`) on
 * top of a prefixed key-value store; subclasses supply the store.
 */
export abstract class BaseStorage extends IStorage {
  protected readonly prefix: string;

  constructor(options: StorageOptions = {}) {
    super();
    this.prefix = options.prefix ?? '';
  }

  protected abstract read(key: string): string | null;
  protected abstract write(key: string, value: string): void;
  protected abstract remove(key: string): void;

  get(key: string): string | null {
    return this.read(this.prefix + key);
  }

  set(key: string, value: string): string {
    this.write(this.prefix + key, value);
    return value;
  }

  delete(key: string): string | null {
    const value = this.get(key);
    this.remove(this.prefix + key);
    return value;
  }

  get auth_token(): string | null {
    return this.get('auth_token');
  }
  set auth_token(value: string | null) {
    this.put('auth_token', value);
  }

  get auth_refresh_token(): string | null {
    return this.get('auth_refresh_token');
  }
  set auth_refresh_token(value: string | null) {
    this.put('auth_refresh_token', value);
  }

  get auth_expires(): number | null {
    return this.getNumber('auth_expires');
  }
  set auth_expires(value: number | null) {
    this.put('auth_expires', value === null ? null : String(value));
  }

  get auth_expires_at(): number | null {
    return this.getNumber('auth_expires_at');
  }
  set auth_expires_at(value: number | null) {
    this.put('auth_expires_at', value === null ? null : String(value));
  }

  private getNumber(key: string): number | null {
    const value = this.get(key);
    return value === null ? null : Number(value);
  }

  private put(key: string, value: string | null): void {
    if (value === null) this.delete(key);
    else this.set(key, value);
  }
}

/** Tokens in process memory: the default outside browsers; gone when the process ends. */
export class MemoryStorage extends BaseStorage {
  readonly #values = new Map<string, string>();

  protected read(key: string): string | null {
    return this.#values.get(key) ?? null;
  }
  protected write(key: string, value: string): void {
    this.#values.set(key, value);
  }
  protected remove(key: string): void {
    this.#values.delete(key);
  }
}

/** The Web Storage API as the client needs it (browsers' `localStorage`). */
export interface WebStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** Tokens in the browser's `localStorage` (or another Web Storage), which persists them. */
export class LocalStorage extends BaseStorage {
  readonly #store: WebStorage;

  constructor(options: StorageOptions & { store?: WebStorage } = {}) {
    super(options);
    const store = options.store ?? (globalThis as { localStorage?: WebStorage }).localStorage;
    if (store === undefined) throw new Error('LocalStorage needs a browser localStorage; use MemoryStorage here');
    this.#store = store;
  }

  protected read(key: string): string | null {
    return this.#store.getItem(key);
  }
  protected write(key: string, value: string): void {
    this.#store.setItem(key, value);
  }
  protected remove(key: string): void {
    this.#store.removeItem(key);
  }
}
