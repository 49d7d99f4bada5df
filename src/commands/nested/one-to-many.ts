import type { FieldRelation } from '../../../catalog/overview/lookup.js';
import { ForbiddenError, InvalidPayloadError } from '../../errors.js';
import type { RevisionRef } from '../journal/journal.js';
import { requirePrimaryKey, sameKey, toPrimaryKey } from '../primary-key.js';
import type { Item, PrimaryKey } from '../types.js';
import { collectChild, requireObject, type NestedContext } from './types.js';
import { isPlainObject } from '../../is-plain-object.js';

export type OneToMany = Extract<FieldRelation, { kind: 'o2m' }>;

const DETAILED_KEYS = ['create', 'update', 'delete'];

/**
 * o2m (and the junctions of m2m and m2a): written after the parent
 * row `parent`. A basic array (or null) replaces the set; an object of `create`, `update`,
 * `delete` edits it.
 */
export async function writeOneToMany(
  ctx: NestedContext,
  relation: OneToMany,
  parent: PrimaryKey,
  value: unknown,
  children: RevisionRef[],
  alias: string,
): Promise<void> {
  if (Array.isArray(value) || value === null) {
    await replaceSet(ctx, relation, parent, value ?? [], children, alias);
  } else if (isPlainObject(value)) {
    await editSet(ctx, relation, parent, value, children, alias);
  } else {
    throw new InvalidPayloadError(`Field "${alias}" has to be an array or an object with create, update or delete`);
  }
}

/** Basic array: the entries become the whole set; the rows left out are deselected. */
async function replaceSet(
  ctx: NestedContext,
  relation: OneToMany,
  parent: PrimaryKey,
  entries: readonly unknown[],
  children: RevisionRef[],
  alias: string,
): Promise<void> {
  const many = ctx.writer.collection(relation.related);
  const foreignKey = relation.relation.field;
  const kept: PrimaryKey[] = [];
  for (const entry of entries) {
    if (isPlainObject(entry)) {
      kept.push(collectChild(children, await ctx.writer.upsert(many.collection, { ...entry, [foreignKey]: parent })));
    } else if (typeof entry === 'string' || typeof entry === 'number') {
      const key = requirePrimaryKey(many, entry);
      const current = await ctx
        .trx(many.collection)
        .where(many.primary, key)
        .first<Record<string, unknown> | undefined>(foreignKey);
      if (current === undefined) throw new ForbiddenError();
      if (!sameKey(current[foreignKey], parent)) {
        collectChild(children, await ctx.writer.update(many.collection, key, { [foreignKey]: parent }));
      }
      kept.push(key);
    } else {
      throw new InvalidPayloadError(`Field "${alias}" has to contain primary keys or objects`);
    }
  }
  const stale = await ctx
    .trx(many.collection)
    .where(foreignKey, parent)
    .whereNotIn(many.primary, kept)
    .select(many.primary);
  await deselect(
    ctx,
    relation,
    stale.map((row: Record<string, unknown>) => row[many.primary] as PrimaryKey),
  );
}

/** Detailed object: `create`, `update` (rows of this parent only) and `delete` (deselect). */
async function editSet(
  ctx: NestedContext,
  relation: OneToMany,
  parent: PrimaryKey,
  changes: Item,
  children: RevisionRef[],
  alias: string,
): Promise<void> {
  const unknown = Object.keys(changes).find((k) => !DETAILED_KEYS.includes(k));
  if (unknown !== undefined) throw new InvalidPayloadError(`"${alias}.${unknown}" is not allowed`);
  const many = ctx.writer.collection(relation.related);
  const foreignKey = relation.relation.field;
  const creates = listOf(changes, 'create', alias).map((entry) => ({
    ...requireObject(entry),
    [foreignKey]: parent,
  }));
  for (const created of await ctx.writer.createMany(many.collection, creates)) collectChild(children, created);
  const updates = listOf(changes, 'update', alias).map((entry) => {
    const item = requireObject(entry);
    const key = toPrimaryKey(many, item[many.primary]);
    if (key === undefined)
      throw new InvalidPayloadError(`"${alias}.update" entries need the primary key "${many.primary}"`);
    return { key, item };
  });
  const owned = await ownedBy(
    ctx,
    relation,
    parent,
    updates.map((u) => u.key),
  );
  const ownUpdates = new Set(owned.map(String));
  for (const { key, item } of updates) {
    // Rows that do not belong to the parent are ignored.
    if (ownUpdates.has(String(key))) collectChild(children, await ctx.writer.update(many.collection, key, item));
  }
  const deletions = listOf(changes, 'delete', alias)
    .map((entry) => toPrimaryKey(many, entry))
    .filter((key): key is PrimaryKey => key !== undefined);
  await deselect(ctx, relation, await ownedBy(ctx, relation, parent, deletions));
}

/** Of `keys`, those whose row points at `parent`. */
async function ownedBy(
  ctx: NestedContext,
  relation: OneToMany,
  parent: PrimaryKey,
  keys: readonly PrimaryKey[],
): Promise<PrimaryKey[]> {
  if (keys.length === 0) return [];
  const many = ctx.writer.collection(relation.related);
  const rows = await ctx
    .trx(many.collection)
    .where(relation.relation.field, parent)
    .whereIn(many.primary, [...keys])
    .select(many.primary);
  return rows.map((row: Record<string, unknown>) => row[many.primary] as PrimaryKey);
}

/** one_deselect_action: `nullify` unlinks (own revision, no parent), `delete` deletes. */
async function deselect(ctx: NestedContext, relation: OneToMany, keys: readonly PrimaryKey[]): Promise<void> {
  if (keys.length === 0) return;
  if (relation.relation.meta?.oneDeselectAction === 'delete') {
    await ctx.writer.delete(relation.related, keys);
    return;
  }
  for (const key of keys) await ctx.writer.update(relation.related, key, { [relation.relation.field]: null });
}

function listOf(changes: Item, key: string, alias: string): readonly unknown[] {
  const value = changes[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new InvalidPayloadError(`"${alias}.${key}" has to be an array`);
  return value;
}
