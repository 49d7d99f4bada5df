import { pathSegment } from '../errors.js';
import { ItemsHandler } from '../items.js';
import type { ITransport } from '../transport.js';
import type { HistoryEntry, ID, RevisionDiff, RevisionType } from '../types.js';

/** svc_revisions items plus what changed between revisions and an item's history. */
export class RevisionsHandler<T = RevisionType> extends ItemsHandler<T> {
  constructor(transport: ITransport) {
    super('svc_revisions', transport);
  }

  /** Per field `{before, after}` between revision `id` and `to` (default: the previous one). */
  async diff(id: ID, to?: ID): Promise<RevisionDiff | undefined> {
    const params = to === undefined ? {} : { params: { to } };
    return (await this.transport.get<RevisionDiff>(`/revisions/${pathSegment('id', id)}/diff`, params)).data;
  }

  /** An item's revisions, newest first; with `field`, that field's values over time. */
  async history(
    collection: string,
    id: ID,
    query: { limit?: number; page?: number; field?: string } = {},
  ): Promise<HistoryEntry[] | undefined> {
    const path = `/items/${pathSegment('collection', collection)}/${pathSegment('id', id)}/history`;
    return (await this.transport.get<HistoryEntry[]>(path, { params: query })).data;
  }
}
