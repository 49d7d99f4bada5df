import { pathSegment, requireParam } from '../errors.js';
import type { ITransport } from '../transport.js';
import type { ID } from '../types.js';

/** /utils: random strings, hashes, manual sort, revert (also to a moment), bulk undo, cache clear. */
export class UtilsHandler {
  readonly random: { string: (length?: number) => Promise<string | undefined> };
  readonly hash: {
    generate: (string: string) => Promise<string | undefined>;
    verify: (string: string, hash: string) => Promise<boolean | undefined>;
  };
  readonly cache: { clear: () => Promise<void> };

  constructor(private readonly transport: ITransport) {
    this.random = {
      string: async (length = 32) => (await transport.get<string>('/utils/random/string', { params: { length } })).data,
    };
    this.hash = {
      generate: async (string) => (await transport.post<string>('/utils/hash/generate', { string })).data,
      verify: async (string, hash) => (await transport.post<boolean>('/utils/hash/verify', { string, hash })).data,
    };
    this.cache = {
      clear: async () => {
        await transport.post('/utils/cache/clear');
      },
    };
  }

  /** Moves `item` of `collection` to the position of `to`. */
  async sort(collection: string, item: ID, to: ID): Promise<void> {
    await this.transport.post(`/utils/sort/${pathSegment('collection', collection)}`, { item, to });
  }

  async revert(revision: ID): Promise<void> {
    await this.transport.post(`/utils/revert/${pathSegment('revision', revision)}`);
  }

  /** Restores an item to how it was at `asOf` (an ISO 8601 timestamp or a revision id). */
  async revertAsOf(collection: string, item: ID, asOf: string | number): Promise<void> {
    requireParam('collection', collection);
    await this.transport.post('/utils/revert', { collection, item, as_of: asOf });
  }

  /**
   * Undoes the writes of the svc_activity rows `filter` selects; `dryRun` answers the plan
   * only, `force` undoes fields later changed by others too.
   */
  async undo(
    filter: Record<string, unknown>,
    options: { dryRun?: boolean; force?: boolean } = {},
  ): Promise<Record<string, unknown>[] | undefined> {
    const body = { filter, dry_run: options.dryRun ?? false, force: options.force ?? false };
    return (await this.transport.post<Record<string, unknown>[]>('/utils/undo', body)).data;
  }
}
