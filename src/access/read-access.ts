import type { FilterObject } from '../../catalog/overview/types.js';
import type { Permissions } from './permissions.js';

/**
 * What the read side asks about the caller: the row
 * filter AND-ed into every level of a read, and the fields that may be read, filtered,
 * sorted, searched or aggregated. An empty field set means the collection is not readable.
 */
export interface ReadAccess {
  /** The read permission's item filter on `collection`; null = every row. */
  rowFilter(collection: string): FilterObject | null;
  /** `*` = every field. */
  readableFields(collection: string): '*' | ReadonlySet<string>;
}

/** Admins: every row and field of every collection. */
export const FULL_READ_ACCESS: ReadAccess = Object.freeze({
  rowFilter: () => null,
  readableFields: () => '*' as const,
});

/**
 * The read side's view of the caller's permissions: the `read` rule's item filter and
 * fields. A collection without read permission has no fields (so it is not readable) and
 * no filter.
 */
export function readAccessOf(permissions: Permissions): ReadAccess {
  if (permissions.isAdmin) return FULL_READ_ACCESS;
  return Object.freeze({
    rowFilter: (collection: string) =>
      permissions.allows(collection, 'read') ? permissions.rowFilter(collection, 'read') : null,
    readableFields: (collection: string) => permissions.fields(collection, 'read'),
  });
}

export function canReadCollection(access: ReadAccess, collection: string): boolean {
  const fields = access.readableFields(collection);
  return fields === '*' || fields.size > 0;
}

export function canReadField(access: ReadAccess, collection: string, field: string): boolean {
  const fields = access.readableFields(collection);
  return fields === '*' || fields.has(field) || fields.has('*');
}
