import type { Accountability } from './accountability.js';
import type { Permissions } from './permissions.js';
import { readAccessOf, type ReadAccess } from './read-access.js';

export type WriteAction = 'create' | 'update' | 'delete';

/**
 * What one role may use, as far as its GraphQL schema is concerned
 * (collections, fields and actions the caller may not use do not exist in its schema). Two
 * callers with the same `key` get the same schema.
 */
export interface SchemaAccess {
  readonly key: string;
  /** Admin-only root fields (schema changes, cache clear) exist in admins' schemas only. */
  readonly isAdmin: boolean;
  readonly read: ReadAccess;
  /** The fields the role may write for `action` (`*` = all); empty = the action is not allowed. */
  writableFields(action: Exclude<WriteAction, 'delete'>, collection: string): '*' | ReadonlySet<string>;
  canDelete(collection: string): boolean;
}

const NONE: ReadonlySet<string> = new Set();

/** Admins: everything, one schema for every admin role. */
export function fullSchemaAccess(read: ReadAccess): SchemaAccess {
  return { key: 'admin', isAdmin: true, read, writableFields: () => '*', canDelete: () => true };
}

/** A role that may read what `read` allows and write nothing. */
export function readOnlySchemaAccess(key: string, read: ReadAccess): SchemaAccess {
  return { key, isAdmin: false, read, writableFields: () => NONE, canDelete: () => false };
}

export function canWrite(access: SchemaAccess, action: Exclude<WriteAction, 'delete'>, collection: string): boolean {
  const fields = access.writableFields(action, collection);
  return fields === '*' || fields.size > 0;
}

export function canWriteField(
  access: SchemaAccess,
  action: Exclude<WriteAction, 'delete'>,
  collection: string,
  field: string,
): boolean {
  const fields = access.writableFields(action, collection);
  return fields === '*' || fields.has('*') || fields.has(field);
}

/**
 * The schema a caller's permissions allow (what the role may not use
 * does not exist): the collections and fields of its read, create and update rules, and
 * deletes where a delete rule exists. One schema per role (and app access), as the rules are.
 */
export function schemaAccessOf(accountability: Accountability, permissions: Permissions): SchemaAccess {
  const read = readAccessOf(permissions);
  if (permissions.isAdmin) return fullSchemaAccess(read);
  return {
    key: `role:${accountability.role ?? 'public'}:${String(accountability.role !== null && accountability.app)}`,
    isAdmin: false,
    read,
    writableFields: (action, collection) => permissions.fields(collection, action),
    canDelete: (collection) => permissions.allows(collection, 'delete'),
  };
}
