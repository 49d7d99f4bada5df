import type { Item, Query } from '../query/index.js';
import type { HookBus, HookContext } from './hooks.js';

/**
 * Directus 10's read events of one collection's items service, with its payloads: the
 * `items.query` filter (and `<collection>.items.query`) on the query before the read (meta
 * `{collection}`), the `items.read` filter on the items read (meta `{query, collection}`, the
 * query the filters returned), then the `items.read` action (`{payload, query, collection}`).
 * Nothing is built when no handler listens (the usual case: a read costs a Map lookup more).
 */
export class ReadEvents {
  readonly #queryEvents: readonly string[];
  readonly #readEvents: readonly string[];
  readonly #anyEvents: readonly string[];

  constructor(
    private readonly hooks: HookBus | undefined,
    private readonly collection: string,
    private readonly context: () => HookContext,
  ) {
    this.#queryEvents = ['items.query', `${collection}.items.query`];
    this.#readEvents = ['items.read', `${collection}.items.read`];
    this.#anyEvents = [...this.#queryEvents, ...this.#readEvents];
  }

  /**
   * Whether an `items.read` handler wants the items as rows: the reads the database writes
   * as JSON text (PostgreSQL) are read as items instead, so that the filters may change them.
   */
  get wantsItems(): boolean {
    return this.hooks?.listens(this.#readEvents) === true;
  }

  /** Whether any read handler listens (`items.query` or `items.read`). */
  get listens(): boolean {
    return this.hooks?.listens(this.#anyEvents) === true;
  }

  /** The query the `items.query` filters return (the same object when none listens). */
  async query(query: Query): Promise<Query> {
    const hooks = this.hooks;
    if (hooks?.listens(this.#queryEvents) !== true) return query;
    return hooks.runFilter(this.#queryEvents, query, { collection: this.collection }, this.context());
  }

  /** The items the `items.read` filters return, told to the `items.read` actions. */
  async read(items: Item[], query: Query): Promise<Item[]> {
    const hooks = this.hooks;
    if (hooks?.listens(this.#readEvents) !== true) return items;
    const context = this.context();
    const read = await hooks.runFilter(this.#readEvents, items, { query, collection: this.collection }, context);
    hooks.runAction(this.#readEvents, { payload: read, query, collection: this.collection }, context);
    return read;
  }

  /**
   * A stream's items with the `items.read` events per batch of `batchSize` (Directus reads an
   * export batch by batch through readByQuery, each batch an `items.read`); `items` itself
   * when none listens, so a stream without hooks is not wrapped.
   */
  stream(items: AsyncGenerator<Item>, query: Query, batchSize: number): AsyncGenerator<Item> {
    if (!this.wantsItems) return items;
    return this.#batches(items, query, Math.max(1, batchSize));
  }

  async *#batches(items: AsyncGenerator<Item>, query: Query, batchSize: number): AsyncGenerator<Item> {
    let batch: Item[] = [];
    try {
      for await (const item of items) {
        batch.push(item);
        if (batch.length < batchSize) continue;
        yield* await this.read(batch, query);
        batch = [];
      }
      if (batch.length > 0) yield* await this.read(batch, query);
    } finally {
      await items.return(undefined);
    }
  }
}
