import type { ITransport } from '../transport.js';
import type { RelationType } from '../types.js';
import { collectionPath, fieldPath } from './fields.js';

/** Relations through /relations/{collection}/{field}. */
export class RelationsHandler<T = RelationType> {
  constructor(private readonly transport: ITransport) {}

  async readOne(collection: string, field: string): Promise<T | undefined> {
    return (await this.transport.get<T>(fieldPath('relations', collection, field))).data;
  }

  async readMany(collection: string): Promise<T[] | undefined> {
    return (await this.transport.get<T[]>(collectionPath('relations', collection))).data;
  }

  async readAll(): Promise<T[] | undefined> {
    return (await this.transport.get<T[]>('/relations')).data;
  }

  async createOne(item: Partial<T>): Promise<T | undefined> {
    return (await this.transport.post<T>('/relations', item)).data;
  }

  async updateOne(collection: string, field: string, item: Partial<T>): Promise<T | undefined> {
    return (await this.transport.patch<T>(fieldPath('relations', collection, field), item)).data;
  }

  async deleteOne(collection: string, field: string): Promise<void> {
    await this.transport.delete(fieldPath('relations', collection, field));
  }
}
