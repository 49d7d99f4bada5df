import type { SchemaOverview } from '../../catalog/overview/types.js';
import { buildSchemas, type BuildOptions, type ScopedSchemas } from './build-schema.js';
import type { SchemaAccess } from '../access/role-schema-access.js';

/**
 * The schemas per (role, schema version): built on a role's first
 * request, kept until the overview's version moves, then all rebuilt on demand.
 */
export class SchemaStore {
  #version: number | undefined;
  readonly #byRole = new Map<string, ScopedSchemas>();

  /** `options`: what every schema of this store has (subscriptions: the WebSocket endpoint's). */
  constructor(private readonly options: BuildOptions = {}) {}

  get(overview: SchemaOverview, access: SchemaAccess): ScopedSchemas {
    if (overview.version !== this.#version) {
      this.#byRole.clear();
      this.#version = overview.version;
    }
    let schemas = this.#byRole.get(access.key);
    if (schemas === undefined) {
      schemas = buildSchemas(overview, access, this.options);
      this.#byRole.set(access.key, schemas);
    }
    return schemas;
  }
}
