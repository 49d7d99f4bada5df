import type { Accountability } from './accountability.js';

/**
 * Which collections' schema (collection, field and relation objects) the caller may read.
 * reference/routes.md: schema reads need read permission on the collection; admins see all.
 *
 * The hook for permissions: until role permissions are evaluated, only admins read schema
 * (everybody else gets empty lists and FORBIDDEN for single objects). Replace the body with
 * the role's read permissions; the schema routes already call it once per request.
 */
export function schemaReadFilter(accountability: Accountability): Promise<(collection: string) => boolean> {
  const isAdmin = accountability.admin;
  return Promise.resolve(() => isAdmin);
}
