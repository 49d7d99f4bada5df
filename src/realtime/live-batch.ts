import type { Change } from '../commands/change-set.js';
import type { PrimaryKey } from '../commands/types.js';
import type { Item } from '../query/index.js';

export type LiveEvent = Change['action'];

/** An item delivered: its key, and its values as the subscriber selected and may read them (none when deleted). */
export interface LiveItem {
  readonly key: PrimaryKey;
  readonly data?: Item;
}

/** What one read of a change gives every subscription of its group: the same items, serialized once. */
export class LiveBatch {
  #dataJson: string | undefined;
  #itemJson: (string | undefined)[] = [];

  constructor(
    readonly event: LiveEvent,
    readonly items: readonly LiveItem[],
    /** The change's id in the feed's log (with Redis): where its subscribers may resume after. */
    readonly change?: string,
  ) {}

  /** The delivery's `data` as JSON (the keys of deleted items, else the items), made at the first use. */
  get dataJson(): string {
    if (this.#dataJson === undefined) {
      const values = this.event === 'delete' ? this.items.map((item) => item.key) : this.items.map((item) => item.data);
      this.#dataJson = JSON.stringify(values);
    }
    return this.#dataJson;
  }

  /** The `data` of item `i` alone, as a list (Directus 10 sends one `create` per created item). */
  itemJson(i: number): string {
    let json = this.#itemJson[i];
    if (json === undefined) {
      const item = this.items[i];
      json = JSON.stringify([this.event === 'delete' ? item?.key : item?.data]);
      this.#itemJson[i] = json;
    }
    return json;
  }
}
