import type { Knex } from 'knex';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import { PermissionModel } from '../db/models/system-models.js';
import {
  compilePermissionRules,
  parsePermissionRow,
  unusablePermissionRow,
  type PermissionRow,
  type PermissionRules,
  type StoredPermissionRow,
} from './permission-rules.js';

/** Where the store reports rows it leaves out (the service's logger). */
export interface PermissionStoreLog {
  warn(details: object, message: string): void;
}

/**
 * svc_permissions compiled per (role, app_access), cached for one schema version
 * (CACHE_PERMISSIONS). The cache empties when the version moves; writes to svc_permissions
 * or svc_roles must move it (schema invalidation, so every instance rebuilds) or call
 * `invalidate()` here.
 *
 * A stored row the service cannot use (JSON that is not an object, an unknown action, a
 * dynamic variable that cannot be resolved: written around the
 * service's checks, or made stale by a schema change) grants nothing: it is left out, with a
 * warning logged once per row and problem, and the role's other rows keep working.
 */
export class PermissionStore {
  readonly #db: Knex;
  readonly #isCaching: boolean;
  readonly #cache = new Map<string, Promise<PermissionRules>>();
  readonly #log: PermissionStoreLog | undefined;
  /** The problems already logged, so that each is logged once. */
  readonly #warned = new Set<string>();
  #version: number | undefined;

  constructor(db: Knex, options: { readonly enabled: boolean; readonly log?: PermissionStoreLog }) {
    this.#db = db;
    this.#isCaching = options.enabled;
    this.#log = options.log;
  }

  /** The rules of `role` (null: the public rows), with the app_access rows when `app`. */
  rulesFor(role: string | null, app: boolean, overview: SchemaOverview): Promise<PermissionRules> {
    return this.#cached(this.#cache, `${role ?? ''}:${String(app)}`, overview.version, () =>
      this.#load(role, app, overview),
    );
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

  async #load(role: string | null, app: boolean, overview: SchemaOverview): Promise<PermissionRules> {
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
    const rows = stored.flatMap((raw) => {
      const row = this.#usable(raw, overview);
      return row === undefined ? [] : [row];
    });
    return compilePermissionRules(rows, { app });
  }

  /** The row parsed, or undefined (and a warning) when it cannot be used. */
  #usable(raw: StoredPermissionRow, overview: SchemaOverview): PermissionRow | undefined {
    let problem: string | undefined;
    let row: PermissionRow | undefined;
    try {
      row = parsePermissionRow(raw);
      problem =
        row === undefined
          ? `svc_permissions row ${String(raw.id)}: unknown action "${String(raw.action)}"`
          : unusablePermissionRow(row, overview);
      if (row !== undefined && problem !== undefined) problem = `svc_permissions row ${String(raw.id)}: ${problem}`;
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
    }
    if (problem === undefined) return row;
    if (!this.#warned.has(problem)) {
      this.#warned.add(problem);
      this.#log?.warn({ permission: raw.id }, `${problem}: the row grants nothing until it is fixed`);
    }
    return undefined;
  }
}
