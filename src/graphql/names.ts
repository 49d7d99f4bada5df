import { SYSTEM_PREFIX } from '../../catalog/system/definitions.js';

/**
 * Names: a collection or field name as a GraphQL name. Characters
 * GraphQL names cannot hold become `_`, a leading digit gets a `_` in front, and a leading
 * `__` (reserved for introspection) becomes `_x_`.
 */
export function toGraphqlName(name: string): string {
  let sanitized = name.replace(/[^_0-9A-Za-z]/g, '_');
  if (sanitized === '') return '_';
  if (/^[0-9]/.test(sanitized)) sanitized = `_${sanitized}`;
  if (sanitized.startsWith('__')) sanitized = `_x${sanitized.slice(1)}`;
  return sanitized;
}

/** Root fields of system collections drop the prefix: `svc_users` → `users`. */
export function rootName(collection: string, isSystem: boolean): string {
  const name = isSystem && collection.startsWith(SYSTEM_PREFIX) ? collection.slice(SYSTEM_PREFIX.length) : collection;
  return toGraphqlName(name);
}
