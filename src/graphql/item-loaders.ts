import DataLoader from 'dataloader';
import { requireCollection } from '../../catalog/overview/lookup.js';
import { readItemsByKeys, type Item, type Query, type ReadContext, type Reader } from '../query/index.js';
import { KEY_FIELD } from './item-values.js';

type Key = string | number;

/**
 * By-key reads of one request, batched by a dataloader: every `C_by_id` root field and every item a mutation reads back that asks for
 * the same collection and selection is read in one statement.
 */
export class ItemLoaders {
  readonly #loaders = new Map<string, DataLoader<Key, Item | null, string>>();

  constructor(
    private readonly ctx: ReadContext,
    private readonly reader: Reader,
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
    const target = requireCollection(this.ctx.overview, collection);
    const isUuid = target.fields[target.primary]?.type === 'uuid';
    const normalize = (key: unknown): string => (isUuid ? String(key).toLowerCase() : String(key));
    const withKey: Query = {
      ...query,
      fields: [...(query.fields ?? []), KEY_FIELD],
      alias: { ...query.alias, [KEY_FIELD]: target.primary },
    };
    return new DataLoader<Key, Item | null, string>(
      async (keys) => {
        const items = await readItemsByKeys(this.ctx, collection, keys, withKey, this.reader);
        const byKey = new Map(items.map((item) => [normalize(item[KEY_FIELD]), item]));
        return keys.map((key) => byKey.get(normalize(key)) ?? null);
      },
      { cacheKeyFn: normalize },
    );
  }
}
