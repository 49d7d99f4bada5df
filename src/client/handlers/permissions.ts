import { pathSegment } from '../errors.js';
import { ItemsHandler, requestWith } from '../items.js';
import type { ITransport } from '../transport.js';
import type { AnyItem, ID, ManyItems, PermissionType, QueryMany } from '../types.js';

/** One action on one collection as GET /permissions/me reports it. */
export interface ActionAccess {
  access: 'none' | 'partial' | 'full';
  fields?: string[];
  presets?: Record<string, unknown>;
}

/** GET /permissions/me: per collection, what each action allows the caller. */
export type CollectionAccess = Record<string, Record<'create' | 'read' | 'update' | 'delete' | 'share', ActionAccess>>;

/** GET /permissions/me/{collection}/{id}: what the caller may do with one item. */
export interface ItemPermissions {
  update: { access: boolean; presets?: Record<string, unknown> | null; fields?: string[] | null };
  delete: { access: boolean };
  share: { access: boolean };
}

/** svc_permissions items plus the caller's own permissions (the SDK's readUserPermissions / readItemPermissions). */
export class PermissionsHandler<T = PermissionType> extends ItemsHandler<T> {
  constructor(transport: ITransport) {
    super('svc_permissions', transport);
  }

  /** The caller's access per collection and action. */
  async readUserPermissions(): Promise<CollectionAccess | undefined> {
    return (await this.transport.get<CollectionAccess>('/permissions/me')).data;
  }

  /** Whether the caller may update, delete and share the item (without `id`: items of the collection). */
  async readItemPermissions(collection: string, id?: ID): Promise<ItemPermissions | undefined> {
    const path = `/permissions/me/${pathSegment('collection', collection)}${id === undefined ? '' : `/${pathSegment('id', id)}`}`;
    return (await this.transport.get<ItemPermissions>(path)).data;
  }

  /**
   * View as role (administrators only): what `role` (its id, or `public`) may do per collection
   * and action, as GET /permissions/me answers its members; `user`, one of the role's users,
   * stands for `$CURRENT_USER`.
   */
  async readRolePermissions(role: string, user?: string): Promise<CollectionAccess | undefined> {
    const path = `/permissions/preview/${pathSegment('role', role)}`;
    return (await this.transport.get<CollectionAccess>(path, requestWith(user === undefined ? undefined : { user })))
      .data;
  }

  /** View as role (administrators only): the items of `collection` as `role` reads them. */
  async readRoleItems(
    role: string,
    collection: string,
    query: QueryMany = {},
    user?: string,
  ): Promise<ManyItems<AnyItem>> {
    const path = `/permissions/preview/${pathSegment('role', role)}/items/${pathSegment('collection', collection)}`;
    const res = await this.transport.get<AnyItem[]>(path, requestWith(user === undefined ? query : { ...query, user }));
    return { data: res.data, ...(res.meta === undefined ? {} : { meta: res.meta }) } as ManyItems<AnyItem>;
  }
}
