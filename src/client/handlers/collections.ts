import { pathSegment } from '../errors.js';
import { requestWith } from '../items.js';
import type { ITransport } from '../transport.js';
import type { CollectionType, ManyItems, QueryOne } from '../types.js';

/** Collections through /collections (the collection name is the key). */
export class CollectionsHandler<T = CollectionType> {
  constructor(private readonly transport: ITransport) {}

  async readOne(collection: string): Promise<T | undefined> {
    return (await this.transport.get<T>(pathOf(collection))).data;
  }

  async readAll(): Promise<ManyItems<T>> {
    const { data, meta } = await this.transport.get<T[]>('/collections');
    return { data: data ?? null, ...(meta === undefined ? {} : { meta }) };
  }

  async createOne(collection: Partial<T>): Promise<T | undefined> {
    return (await this.transport.post<T>('/collections', collection)).data;
  }

  async createMany(collections: readonly Partial<T>[]): Promise<ManyItems<T>> {
    const { data, meta } = await this.transport.post<T[]>('/collections', collections);
    return { data: data ?? null, ...(meta === undefined ? {} : { meta }) };
  }

  async updateOne(collection: string, item: Partial<T>, query?: QueryOne): Promise<T | undefined> {
    return (await this.transport.patch<T>(pathOf(collection), item, requestWith(query))).data;
  }

  async deleteOne(collection: string): Promise<void> {
    await this.transport.delete(pathOf(collection));
  }
}

function pathOf(collection: string): string {
  return `/collections/${pathSegment('collection', collection)}`;
}
