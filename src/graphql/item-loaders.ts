import DataLoader from 'dataloader';
import type { SchemaOverview } from '../../catalog/overview/types.js';
import { requireCollection } from '../../catalog/overview/lookup.js';
import type { ItemsService } from '../items/items-service.js';
import type { Item, Query } from '../query/index.js';
import { KEY_FIELD } from './item-values.js';

type Key = string | number;

/**
 * By-key reads of one request, batched by a dataloader: every `C_by_id` root field and every item a mutation reads back that asks for
 * the same collection and selection is read in one statement, through the items service's
 * readMany (one `items.query` and one `items.read` per batch).
 */
export class ItemLoaders {
  readonly #loaders = new Map<string, DataLoader<Key, Item | null, string>>();

  constructor(
    private readonly overview: SchemaOverview,
    private readonly items: (collection: string) => ItemsService,
  ) {}

  /** The item with this key as `query` selects it; null when it does not exist or cannot be read. */
  load(collection: string, query: Query, key: Key): Promise<Item | null> {
    const id = `${collection}\u0000${JSON.stringify(query)}`;
    let loader = this.#loaders.get(id);
    if (loader === undefined) {
      loader = this.#create(collection, query);
      this.#loaders.set(id, loader);
    }
    return loader.load(key);
  }

  /** After a write, earlier reads are stale. */
  clear(): void {
    this.#loaders.clear();
  }

  #create(collection: string, query: Query): DataLoader<Key, Item | null, string> {
    const target = requireCollection(this.overview, collection);
    const isUuid = target.fields[target.primary]?.type === 'uuid';
    const normalize = (key: unknown): string => (isUuid ? String(key).toLowerCase() : String(key));
    const withKey: Query = {
      ...query,
      fields: [...(query.fields ?? []), KEY_FIELD],
      alias: { ...query.alias, [KEY_FIELD]: target.primary },
    };
    return new DataLoader<Key, Item | null, string>(
      async (keys) => {
        const items = await this.items(collection).readMany(keys, withKey);
        const byKey = new Map(items.map((item) => [normalize(item[KEY_FIELD]), item]));
        return keys.map((key) => byKey.get(normalize(key)) ?? null);
      },
      { cacheKeyFn: normalize },
    );
  }
}
