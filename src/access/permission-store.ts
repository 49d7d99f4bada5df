import type { Knex } from 'knex';
import { PermissionModel } from '../db/models/system-models.js';
import {
  compilePermissionRules,
  parsePermissionRow,
  type PermissionRow,
  type PermissionRules,
} from './permission-rules.js';

/**
 * svc_permissions compiled per (role, app_access), cached for one schema version
 * (CACHE_PERMISSIONS). The cache empties when the version moves; writes to svc_permissions
 * or svc_roles must move it (schema invalidation, so every instance rebuilds) or call
 * `invalidate()` here.
 */
export class PermissionStore {
  readonly #db: Knex;
  readonly #isCaching: boolean;
  readonly #cache = new Map<string, Promise<PermissionRules>>();
  #version: number | undefined;

  constructor(db: Knex, options: { readonly enabled: boolean }) {
    this.#db = db;
    this.#isCaching = options.enabled;
  }

  /** The rules of `role` (null: the public rows), with the app_access rows when `app`. */
  rulesFor(role: string | null, app: boolean, schemaVersion: number): Promise<PermissionRules> {
    return this.#cached(this.#cache, `${role ?? ''}:${String(app)}`, schemaVersion, () => this.#load(role, app));
  }

  invalidate(): void {
    this.#cache.clear();
  }

  #cached<T>(cache: Map<string, Promise<T>>, key: string, schemaVersion: number, load: () => Promise<T>): Promise<T> {
    if (!this.#isCaching) return load();
    if (this.#version === undefined || schemaVersion > this.#version) {
      this.invalidate();
      this.#version = schemaVersion;
    } else if (schemaVersion < this.#version) {
      // A request still holding an older overview: answer it without touching the cache.
      return load();
    }
    let value = cache.get(key);
    if (value === undefined) {
      value = load();
      cache.set(key, value);
      value.catch(() => cache.delete(key));
    }
    return value;
  }

  async #load(role: string | null, app: boolean): Promise<PermissionRules> {
    const query = PermissionModel.query(this.#db).select(
      'id',
      'collection',
      'action',
      'permissions',
      'validation',
      'presets',
      'fields',
    );
    const stored = await (role === null ? query.whereNull('role') : query.where('role', role)).orderBy('id');
    const rows = stored.map(parsePermissionRow).filter((r): r is PermissionRow => r !== undefined);
    return compilePermissionRules(rows, { app });
  }
}
