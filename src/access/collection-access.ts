import { nameMap } from '../../catalog/overview/name-map.js';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { Permissions } from './permissions.js';
import { PERMISSION_ACTIONS, type FieldSet, type PermissionAction } from './permission-rules.js';

/** What one action allows on one collection (`GET /permissions/me`, Directus's CollectionAccess). */
interface ActionAccess {
  /** none: no permission; full: every item; partial: the items its filter lets through. */
  readonly access: 'none' | 'partial' | 'full';
  readonly fields?: readonly string[];
  readonly presets?: Readonly<Record<string, unknown>>;
}

export type CollectionAccess = Readonly<Record<string, Readonly<Record<PermissionAction, ActionAccess>>>>;

/**
 * The caller's effective permissions per collection and action: every collection for admins
 * (full, every field); otherwise the collections some permission names (the role's own rows,
 * the app-access rows with them), each action none, partial (an item filter) or full, with
 * its fields and presets.
 */
export function collectionAccessOf(permissions: Permissions, overview: SchemaOverview): CollectionAccess {
  // Keyed by collection names: a table named `__proto__` is an entry, not the prototype.
  const result = nameMap<Record<PermissionAction, ActionAccess>>();
  for (const collection of namedCollections(permissions, overview)) {
    const entry = {} as Record<PermissionAction, ActionAccess>;
    for (const action of PERMISSION_ACTIONS) entry[action] = actionAccess(permissions, collection, action);
    result[collection] = entry;
  }
  return result;
}

function namedCollections(permissions: Permissions, overview: SchemaOverview): string[] {
  const names = new Set<string>();
  for (const action of PERMISSION_ACTIONS) {
    const collections = permissions.collections(action);
    for (const name of collections === '*' ? Object.keys(overview.collections) : collections) {
      if (overview.collections[name] !== undefined) names.add(name);
    }
  }
  return [...names].sort();
}

function actionAccess(permissions: Permissions, collection: string, action: PermissionAction): ActionAccess {
  if (!permissions.allows(collection, action)) return { access: 'none' };
  const filter = permissions.rowFilter(collection, action);
  const presets = permissions.presets(collection, action);
  return {
    access: filter === null || Object.keys(filter).length === 0 ? 'full' : 'partial',
    fields: fieldList(permissions.fields(collection, action)),
    ...(Object.keys(presets).length > 0 ? { presets } : {}),
  };
}

/** A field set as the API lists it: `['*']` or the names, sorted. */
export function fieldList(fields: FieldSet): string[] {
  return fields === '*' ? ['*'] : [...fields].sort();
}
