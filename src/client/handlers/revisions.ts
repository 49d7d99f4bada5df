import { requireParam } from '../errors.js';
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
    requireParam('id', id);
    const params = to === undefined ? {} : { params: { to } };
    return (await this.transport.get<RevisionDiff>(`/revisions/${encodeURI(String(id))}/diff`, params)).data;
  }

  /** An item's revisions, newest first; with `field`, that field's values over time. */
  async history(
    collection: string,
    id: ID,
    query: { limit?: number; page?: number; field?: string } = {},
  ): Promise<HistoryEntry[] | undefined> {
    requireParam('collection', collection);
    requireParam('id', id);
    const path = `/items/${encodeURI(collection)}/${encodeURI(String(id))}/history`;
    return (await this.transport.get<HistoryEntry[]>(path, { params: query })).data;
  }
}
