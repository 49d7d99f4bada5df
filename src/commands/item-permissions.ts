import type { Knex } from 'knex';
import { requireCollection } from '../../catalog/overview/lookup.js';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import { fieldList } from '../access/collection-access.js';
import type { Permissions } from '../access/permissions.js';
import type { ReadContext } from '../query/index.js';
import { itemsMatch } from './match-items.js';
import { toPrimaryKey } from './primary-key.js';

/**
 * `GET /permissions/me/:collection/:id?` (Directus
 * 10.10's ItemPermissions): whether the caller may update, delete and share the item (or,
 * without an id, items of the collection). Singletons: update means create while their row
 * doesn't exist yet, and comes with the permission's presets and fields.
 */
export interface ItemPermissions {
  readonly update: {
    readonly access: boolean;
    readonly presets?: Readonly<Record<string, unknown>>;
    readonly fields?: readonly string[];
  };
  readonly delete: { readonly access: boolean };
  readonly share: { readonly access: boolean };
}

export interface ItemPermissionsContext {
  readonly db: Knex;
  readonly overview: SchemaOverview;
  readonly limits: ReadContext['limits'];
  readonly accountability: Accountability;
  readonly permissions: Permissions;
}

export async function readItemPermissions(
  ctx: ItemPermissionsContext,
  collection: string,
  id: string | undefined,
): Promise<ItemPermissions> {
  const target = requireCollection(ctx.overview, collection);
  if (ctx.permissions.isAdmin) return { update: { access: true }, delete: { access: true }, share: { access: true } };
  const key = id === undefined ? undefined : toPrimaryKey(target, id);
  const may = async (action: 'create' | 'update' | 'delete' | 'share'): Promise<boolean> => {
    if (!ctx.permissions.allows(collection, action)) return false;
    if (id === undefined || action === 'create') return true;
    // A key no row can have names no item: nothing is allowed on it.
    if (key === undefined) return false;
    return itemsMatch(ctx, collection, ctx.permissions.rowFilter(collection, action), [key]);
  };
  const updateAction = target.singleton && !(await hasRow(ctx, collection)) ? 'create' : 'update';
  const [update, remove, share] = await Promise.all([may(updateAction), may('delete'), may('share')]);
  const singletonExtras =
    target.singleton && update
      ? {
          presets: ctx.permissions.presets(collection, updateAction),
          fields: fieldList(ctx.permissions.fields(collection, updateAction)),
        }
      : {};
  return { update: { access: update, ...singletonExtras }, delete: { access: remove }, share: { access: share } };
}

/** Whether the collection has any row (a singleton's row exists). */
async function hasRow(ctx: ItemPermissionsContext, collection: string): Promise<boolean> {
  const row: unknown = await ctx.db(collection).first(ctx.db.raw('1 as found'));
  return row !== undefined;
}
