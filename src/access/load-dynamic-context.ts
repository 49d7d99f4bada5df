import type { Knex } from 'knex';
import { findField, getFieldRelation } from '../../catalog/overview/lookup.js';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from './accountability.js';
import type { DynamicContext, DynamicPaths } from './dynamic-values.js';

/**
 * Loads what the caller's `$CURRENT_USER.<path>` and `$CURRENT_ROLE.<path>` stand for:
 * one query per collection along the paths, following many-to-one fields (`role.name`).
 * Without a user (or role) every path is null. A path naming no field, or crossing a field
 * that is not many-to-one, is a misconfigured permission and throws.
 */
export async function loadDynamicContext(
  db: Knex,
  overview: SchemaOverview,
  accountability: Pick<Accountability, 'user' | 'role'>,
  paths: DynamicPaths,
  now: Date = new Date(),
): Promise<DynamicContext> {
  const [userValues, roleValues] = await Promise.all([
    loadPaths(db, overview, 'svc_users', accountability.user, [...paths.user]),
    loadPaths(db, overview, 'svc_roles', accountability.role, [...paths.role]),
  ]);
  return { user: accountability.user, role: accountability.role, now, userValues, roleValues };
}

async function loadPaths(
  db: Knex,
  overview: SchemaOverview,
  collection: string,
  key: unknown,
  paths: readonly string[],
): Promise<Map<string, unknown>> {
  const values = new Map<string, unknown>();
  if (paths.length === 0) return values;
  const heads = new Map<string, string[]>();
  for (const path of paths) {
    const [head = '', ...rest] = path.split('.');
    const field = findField(overview, collection, head);
    if (field === undefined || field.isAlias) {
      throw new Error(`Permission variable path "${path}" names no field of ${collection}`);
    }
    const tails = heads.get(head) ?? [];
    if (rest.length > 0) tails.push(rest.join('.'));
    heads.set(head, tails);
  }
  const primary = overview.collections[collection]?.primary;
  const row =
    key === null || key === undefined || primary === undefined
      ? undefined
      : await db(collection)
          .where(primary, key)
          .first<Record<string, unknown> | undefined>([...heads.keys()]);
  for (const [head, tails] of heads) {
    const value = row?.[head] ?? null;
    if (paths.includes(head)) values.set(head, value);
    if (tails.length === 0) continue;
    const relation = getFieldRelation(overview, collection, head);
    if (relation?.kind !== 'm2o') {
      throw new Error(
        `Permission variable path "${head}.${tails[0] ?? ''}" crosses ${collection}.${head}, which is not many-to-one`,
      );
    }
    const nested = await loadPaths(db, overview, relation.related, value, tails);
    for (const [tail, nestedValue] of nested) values.set(`${head}.${tail}`, nestedValue);
  }
  return values;
}
