import type { FilterObject } from '../../catalog/overview/types.js';
import { ForbiddenError } from '../errors.js';
import { resolveDynamicValues, type DynamicContext } from './dynamic-values.js';
import type { FieldSet, PermissionAction, PermissionRule, PermissionRules } from './permission-rules.js';

/**
 * The permission hook of the read and write sides: what the caller may do, per collection
 * and action. Filters, validations and presets come
 * with their dynamic variables resolved for this caller. See src/access/README.md.
 */
export interface Permissions {
  /** admin_access: everything is allowed and nothing restricted; rows are ignored. */
  readonly isAdmin: boolean;
  /** Whether any permission allows `action` on `collection` (no → 403 FORBIDDEN). */
  allows(collection: string, action: PermissionAction): boolean;
  /** The fields `action` may touch: `*` or names; empty when the action is not allowed. */
  fields(collection: string, action: PermissionAction): FieldSet;
  /** The item filter (null = every item). FORBIDDEN when the action is not allowed. */
  rowFilter(collection: string, action: PermissionAction): FilterObject | null;
  /** The rule a create/update payload must satisfy (null = none). FORBIDDEN when not allowed. */
  validation(collection: string, action: PermissionAction): FilterObject | null;
  /** Values merged under a create/update payload. FORBIDDEN when not allowed. */
  presets(collection: string, action: PermissionAction): Readonly<Record<string, unknown>>;
  /** The collections with some permission for `action` (`*` for admins). */
  collections(action: PermissionAction): '*' | ReadonlySet<string>;
}

const NO_FIELDS: FieldSet = new Set<string>();
const NO_PRESETS: Readonly<Record<string, unknown>> = Object.freeze({});

/** Admins: permission rows are ignored. */
export const ADMIN_PERMISSIONS: Permissions = Object.freeze({
  isAdmin: true,
  allows: () => true,
  fields: () => '*' as const,
  rowFilter: () => null,
  validation: () => null,
  presets: () => NO_PRESETS,
  collections: () => '*' as const,
});

/**
 * The caller's permissions from their role's compiled rules. Each rule's variables are
 * resolved on first use and kept for the request; `context` must hold every path of
 * `rules.dynamicPaths`.
 */
export function createPermissions(rules: PermissionRules, context: DynamicContext): Permissions {
  const resolved = new Map<PermissionRule, PermissionRule>();
  const find = (collection: string, action: PermissionAction): PermissionRule | undefined =>
    rules.byCollection.get(collection)?.get(action);
  const require = (collection: string, action: PermissionAction): PermissionRule => {
    const rule = find(collection, action);
    if (rule === undefined) throw new ForbiddenError();
    let done = resolved.get(rule);
    if (done === undefined) {
      done = {
        ...rule,
        filter: resolveDynamicValues(rule.filter, context),
        validation: resolveDynamicValues(rule.validation, context),
        presets: resolveDynamicValues(rule.presets, context),
      };
      resolved.set(rule, done);
    }
    return done;
  };
  return Object.freeze({
    isAdmin: false,
    allows: (collection: string, action: PermissionAction) => find(collection, action) !== undefined,
    fields: (collection: string, action: PermissionAction) => find(collection, action)?.fields ?? NO_FIELDS,
    rowFilter: (collection: string, action: PermissionAction) => require(collection, action).filter,
    validation: (collection: string, action: PermissionAction) => require(collection, action).validation,
    presets: (collection: string, action: PermissionAction) => require(collection, action).presets,
    collections: (action: PermissionAction) =>
      new Set([...rules.byCollection].filter(([, byAction]) => byAction.has(action)).map(([c]) => c)),
  });
}
