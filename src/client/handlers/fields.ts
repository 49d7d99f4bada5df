import { pathSegment } from '../errors.js';
import type { ITransport } from '../transport.js';
import type { FieldType, ManyItems } from '../types.js';

/** Fields through /fields/{collection}/{field}. */
export class FieldsHandler<T = FieldType> {
  constructor(private readonly transport: ITransport) {}

  async readOne(collection: string, field: string): Promise<T | undefined> {
    return (await this.transport.get<T>(fieldPath('fields', collection, field))).data;
  }

  async readMany(collection: string): Promise<ManyItems<T>> {
    const { data } = await this.transport.get<T[]>(collectionPath('fields', collection));
    return { data: data ?? null };
  }

  async readAll(): Promise<T[] | undefined> {
    return (await this.transport.get<T[]>('/fields')).data;
  }

  async createOne(collection: string, item: Partial<T>): Promise<T | undefined> {
    return (await this.transport.post<T>(collectionPath('fields', collection), item)).data;
  }

  /** `allowDestructive`: a new type, precision or scale that changes stored values (refused otherwise). */
  async updateOne(
    collection: string,
    field: string,
    item: Partial<T>,
    options: { allowDestructive?: boolean } = {},
  ): Promise<T | undefined> {
    const params = options.allowDestructive === true ? { params: { allow_destructive: true } } : {};
    return (await this.transport.patch<T>(fieldPath('fields', collection, field), item, params)).data;
  }

  /** Updates several fields of `collection` at once (their meta.sort, for one). */
  async updateMany(collection: string, items: readonly Partial<T>[]): Promise<T[] | undefined> {
    return (await this.transport.patch<T[]>(collectionPath('fields', collection), items)).data;
  }

  async deleteOne(collection: string, field: string): Promise<void> {
    await this.transport.delete(fieldPath('fields', collection, field));
  }
}

/** `/<root>/<collection>`, refusing an empty name. */
export function collectionPath(root: string, collection: string): string {
  return `/${root}/${pathSegment('collection', collection)}`;
}

/** `/<root>/<collection>/<field>`, refusing empty names. */
export function fieldPath(root: string, collection: string, field: string): string {
  return `${collectionPath(root, collection)}/${pathSegment('field', field)}`;
}
