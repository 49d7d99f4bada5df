import { findField, getFieldRelation } from '../../catalog/overview/lookup.js';
import type { FilterObject, SchemaOverview } from '../../catalog/overview/types.js';
import {
  adjustNow,
  claimsDynamicValue,
  collectDynamicPaths,
  parseDynamicValue,
  type DynamicPaths,
} from './dynamic-values.js';

/** svc_permissions.action values; `share` is unused. */
export const PERMISSION_ACTIONS = ['create', 'read', 'update', 'delete', 'share'] as const;
export type PermissionAction = (typeof PERMISSION_ACTIONS)[number];

/** `*` = every field; a set of names otherwise (empty: none). */
export type FieldSet = '*' | ReadonlySet<string>;

/** One svc_permissions row, parsed. */
export interface PermissionRow {
  readonly collection: string;
  readonly action: PermissionAction;
  /** Item filter; null or `{}` = every item. */
  readonly permissions: FilterObject | null;
  readonly validation: FilterObject | null;
  readonly presets: Readonly<Record<string, unknown>> | null;
  /** Field names, `*` among them meaning all; null = none. */
  readonly fields: readonly string[] | null;
}

/** What a role may do with one collection and action: its rows merged, variables unresolved. */
export interface PermissionRule {
  readonly collection: string;
  readonly action: PermissionAction;
  /** Null = every item. */
  readonly filter: FilterObject | null;
  /** Null = no rule to satisfy. */
  readonly validation: FilterObject | null;
  readonly presets: Readonly<Record<string, unknown>>;
  readonly fields: FieldSet;
}

/** A role's rules by collection and action, and the variable paths they refer to. */
export interface PermissionRules {
  readonly byCollection: ReadonlyMap<string, ReadonlyMap<PermissionAction, PermissionRule>>;
  readonly dynamicPaths: DynamicPaths;
}

const CURRENT_USER = '$CURRENT_USER';
const CURRENT_ROLE = '$CURRENT_ROLE';

const appRow = (
  collection: string,
  action: PermissionAction,
  permissions: FilterObject | null = null,
  extra: Partial<Pick<PermissionRow, 'validation' | 'presets'>> = {},
): PermissionRow => ({
  collection,
  action,
  permissions,
  validation: extra.validation ?? null,
  presets: extra.presets ?? null,
  fields: ['*'],
});

/**
 * The implicit rows of a role with app_access, merged
 * with its own. Own presets default to the current user, so a preset cannot be made global.
 */
export const APP_ACCESS_PERMISSIONS: readonly PermissionRow[] = Object.freeze([
  appRow('svc_collections', 'read'),
  appRow('svc_fields', 'read'),
  appRow('svc_relations', 'read'),
  appRow('svc_settings', 'read'),
  appRow('svc_permissions', 'read', { role: { _eq: CURRENT_ROLE } }),
  appRow('svc_roles', 'read', { id: { _eq: CURRENT_ROLE } }),
  appRow('svc_users', 'read', { id: { _eq: CURRENT_USER } }),
  appRow('svc_activity', 'read', { user: { _eq: CURRENT_USER } }),
  appRow('svc_activity', 'create', null, { validation: { comment: { _nnull: true } } }),
  appRow('svc_presets', 'read', {
    _or: [
      { user: { _eq: CURRENT_USER } },
      { _and: [{ user: { _null: true } }, { role: { _eq: CURRENT_ROLE } }] },
      { _and: [{ user: { _null: true } }, { role: { _null: true } }] },
    ],
  }),
  appRow('svc_presets', 'create', null, {
    validation: { user: { _eq: CURRENT_USER } },
    presets: { user: CURRENT_USER },
  }),
  appRow('svc_presets', 'update', { user: { _eq: CURRENT_USER } }, { validation: { user: { _eq: CURRENT_USER } } }),
  appRow('svc_presets', 'delete', { user: { _eq: CURRENT_USER } }),
  appRow('svc_comments', 'read', { user_created: { _eq: CURRENT_USER } }),
  appRow('svc_comments', 'create'),
  appRow('svc_comments', 'update', { user_created: { _eq: CURRENT_USER } }),
  appRow('svc_comments', 'delete', { user_created: { _eq: CURRENT_USER } }),
]);

/**
 * A svc_permissions row as the database returns it: json columns are objects (PostgreSQL)
 * or JSON text (SQLite, MySQL), `fields` is CSV text. Undefined for an action we do not
 * know. Unreadable JSON throws, never widening a permission: the store (permission-store.ts)
 * then leaves the row out, with a warning.
 */
export function parsePermissionRow(raw: StoredPermissionRow): PermissionRow | undefined {
  const action = raw.action;
  if (!(PERMISSION_ACTIONS as readonly unknown[]).includes(action)) return undefined;
  const where = `svc_permissions row ${String(raw.id)}`;
  return {
    collection: String(raw.collection),
    action: action as PermissionAction,
    permissions: parseJsonObject(raw.permissions, `${where}: permissions`),
    validation: parseJsonObject(raw.validation, `${where}: validation`),
    presets: parseJsonObject(raw.presets, `${where}: presets`),
    fields: parseFields(raw.fields),
  };
}

/**
 * Why a parsed row cannot be used with this schema, or undefined when it can: a dynamic
 * variable in it cannot be resolved (`$NOW(soon)`, `$CURRENT_USER.<path>` naming no field).
 * Writes refuse such rows (commands/system-payloads.ts); this finds the ones written around
 * the service or made stale by a schema change, which the store then leaves out instead of
 * failing every request of the role. (A row of a collection that is gone is harmless: it
 * grants access to nothing that exists, as in Directus.)
 */
export function unusablePermissionRow(row: PermissionRow, overview: SchemaOverview): string | undefined {
  const texts: string[] = [];
  const visit = (value: unknown): void => {
    if (claimsDynamicValue(value)) texts.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(visit);
  };
  visit([row.permissions, row.validation, row.presets]);
  for (const text of texts) {
    const variable = parseDynamicValue(text);
    const usable =
      variable === undefined
        ? false
        : variable.kind === 'now'
          ? variable.adjustment === undefined || adjustNow(new Date(), variable.adjustment) !== undefined
          : variable.path === undefined ||
            hasPath(overview, variable.kind === 'user' ? 'svc_users' : 'svc_roles', variable.path);
    if (!usable) return `invalid dynamic variable "${text}"`;
  }
  return undefined;
}

/** `role.name` from svc_users: each step a field, every step but the last many-to-one. */
function hasPath(overview: SchemaOverview, start: string, path: string): boolean {
  let collection = start;
  const segments = path.split('.');
  for (const [i, segment] of segments.entries()) {
    const field = findField(overview, collection, segment);
    if (field === undefined || field.isAlias) return false;
    if (i === segments.length - 1) break;
    const relation = getFieldRelation(overview, collection, segment);
    if (relation?.kind !== 'm2o') return false;
    collection = relation.related;
  }
  return true;
}

/** The columns of a stored svc_permissions row that {@link parsePermissionRow} reads. */
export interface StoredPermissionRow {
  readonly id: unknown;
  readonly collection: unknown;
  readonly action: unknown;
  readonly permissions?: unknown;
  readonly validation?: unknown;
  readonly presets?: unknown;
  readonly fields?: unknown;
}

/**
 * Merges a role's rows per (collection, action), the app_access rows first when `app`:
 * a rule allows what any of its rows allows. Item filters and validations are OR-ed (a row
 * without one makes the rule unrestricted), field lists united, presets laid over each other
 * in row order (own rows win over the implicit ones).
 */
export function compilePermissionRules(
  rows: readonly PermissionRow[],
  options: { readonly app: boolean },
): PermissionRules {
  const all = options.app ? [...APP_ACCESS_PERMISSIONS, ...rows] : rows;
  const grouped = new Map<string, Map<PermissionAction, PermissionRow[]>>();
  for (const row of all) {
    const byAction = grouped.get(row.collection) ?? new Map<PermissionAction, PermissionRow[]>();
    grouped.set(row.collection, byAction);
    byAction.set(row.action, [...(byAction.get(row.action) ?? []), row]);
  }
  const byCollection = new Map<string, Map<PermissionAction, PermissionRule>>();
  for (const [collection, byAction] of grouped) {
    const rules = new Map<PermissionAction, PermissionRule>();
    for (const [action, group] of byAction) rules.set(action, mergeRows(collection, action, group));
    byCollection.set(collection, rules);
  }
  const paths = collectDynamicPaths(all.map((r) => [r.permissions, r.validation, r.presets]));
  return { byCollection, dynamicPaths: paths };
}

function mergeRows(collection: string, action: PermissionAction, rows: readonly PermissionRow[]): PermissionRule {
  return {
    collection,
    action,
    filter: anyOf(rows.map((r) => r.permissions)),
    validation: anyOf(rows.map((r) => r.validation)),
    presets: Object.assign({}, ...rows.map((r) => r.presets ?? {})) as Record<string, unknown>,
    fields: unionOfFields(rows.map((r) => r.fields)),
  };
}

/** OR of filters; null (unrestricted) as soon as one is null or empty. */
function anyOf(filters: readonly (FilterObject | null)[]): FilterObject | null {
  if (filters.some((f) => f === null || Object.keys(f).length === 0)) return null;
  const [only, ...rest] = filters as readonly FilterObject[];
  if (only === undefined) return null;
  return rest.length === 0 ? only : { _or: [only, ...rest] };
}

function unionOfFields(lists: readonly (readonly string[] | null)[]): FieldSet {
  const names = new Set<string>();
  for (const list of lists) {
    for (const name of list ?? []) {
      if (name === '*') return '*';
      names.add(name);
    }
  }
  return names;
}

function parseJsonObject(value: unknown, where: string): Readonly<Record<string, unknown>> | null {
  if (value === null || value === undefined || value === '') return null;
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new Error(`${where} is not valid JSON`);
    }
  }
  if (parsed === null) return null;
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${where} is not a JSON object`);
  return parsed as Record<string, unknown>;
}

function parseFields(value: unknown): readonly string[] | null {
  if (value === null || value === undefined) return null;
  const list = Array.isArray(value)
    ? value.map(String)
    : (typeof value === 'string' ? value : JSON.stringify(value)).split(',');
  const names = list.map((f) => f.trim()).filter((f) => f !== '');
  return names.length === 0 ? null : names;
}
