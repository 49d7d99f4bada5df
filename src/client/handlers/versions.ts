import { pathSegment } from '../errors.js';
import { ItemsHandler } from '../items.js';
import type { ITransport } from '../transport.js';
import type { AnyItem, ID, VersionComparison, VersionType } from '../types.js';

/**
 * Content versions (drafts) through /versions: svc_versions items plus the Directus SDK's
 * version commands. The item as a version has it: `items(c).readOne(id, { version: key })`.
 */
export class VersionsHandler<T = VersionType> extends ItemsHandler<T> {
  constructor(transport: ITransport) {
    super('svc_versions', transport);
  }

  /** A named version of an item: `{key, name?, collection, item}`. */
  async createContentVersion(version: {
    key: string;
    name?: string | null;
    collection: string;
    item: ID;
  }): Promise<T | undefined> {
    return (await this.transport.post<T>('/versions', version)).data;
  }

  /** Saves `delta` into the version (the live item untouched); answers the item as the version has it. */
  async saveToContentVersion<I = AnyItem>(id: ID, delta: Partial<I>): Promise<I | undefined> {
    return (await this.transport.post<I>(`/versions/${pathSegment('id', id)}/save`, delta)).data;
  }

  /** outdated, mainHash, current, main, and which fields differ or conflict. */
  async compareContentVersion<I = AnyItem>(id: ID): Promise<VersionComparison<I> | undefined> {
    return (await this.transport.get<VersionComparison<I>>(`/versions/${pathSegment('id', id)}/compare`)).data;
  }

  /**
   * Writes the version's values (or `fields` of them) to the live item; `mainHash` from
   * {@link compareContentVersion}; `keep` decides fields both sides changed. Answers the item's key.
   */
  async promoteContentVersion(
    id: ID,
    mainHash: string,
    fields?: readonly string[],
    keep?: 'version' | 'main',
  ): Promise<ID | undefined> {
    const body = { mainHash, ...(fields === undefined ? {} : { fields }), ...(keep === undefined ? {} : { keep }) };
    return (await this.transport.post<ID>(`/versions/${pathSegment('id', id)}/promote`, body)).data;
  }
}
