import type { Knex } from 'knex';
import type { CollectionOverview, SchemaOverview } from '../../catalog/overview/types.js';
import { ownAccountability, type Accountability } from '../access/accountability.js';
import type { PermissionStore } from '../access/permission-store.js';
import type { WriteAction } from '../access/write-permissions.js';
import { commandContext, type CommandContextDeps } from '../commands/command-context.js';
import { handleCreate } from '../commands/create.js';
import { handleDelete } from '../commands/delete.js';
import { handleRevertAsOf } from '../commands/revert.js';
import { selectByQuery } from '../commands/select-by-query.js';
import { handleSort } from '../commands/sort.js';
import type { CommandContext, Item, PrimaryKey, QueryObject, UpdateCommand, WrittenItems } from '../commands/types.js';
import { handleUpdate } from '../commands/update.js';
import { ForbiddenError, InvalidPayloadError } from '../errors.js';
import { FILES_COLLECTION, type FileLibrary } from '../files/file-library.js';
import {
  isAggregateQuery,
  isUnlimited,
  queryLimits,
  readerOf,
  readItemAsOf,
  readItemByKey,
  readItemJsonByKey,
  readItems,
  readItemsByKeys,
  readItemsJson,
  readItemVersion,
  readMeta,
  readSingleton,
  streamItems,
  type AsOf,
  type Meta,
  type Query,
  type ReadContext,
  type Reader,
} from '../query/index.js';
import type { HookBus, HookContext } from './hooks.js';
import { answerFields, createOne, updateOne } from './one-statement.js';
import { ReadEvents } from './read-events.js';
import { readCommitted, type ReReadLog, type Shape, type WrittenAnswer } from './read-written.js';
import { requirePermitted } from './permission-first.js';
import { requireWritable } from './writable.js';

/** What the service works with: the app's deps (src/http/app.ts AppDeps has them all). */
export interface ItemsDeps extends CommandContextDeps {
  readonly db: Knex;
  /** The schema overview, and its invalidation after writes that change permissions. */
  readonly schema: { getOverview(): Promise<SchemaOverview>; invalidate(): Promise<void> };
  readonly permissions: PermissionStore;
  /** Debug notes of writes, and the warning of a failed re-read. */
  readonly logger?: CommandContextDeps['logger'] & Partial<ReReadLog>;
  /** Filters before writes and actions after their commit (extensions register into it). */
  readonly hooks?: HookBus | undefined;
  /** svc_files rows and their contents: a file's delete removes its contents too. */
  readonly files?: FileLibrary;
}

export interface ItemsServiceOptions {
  /** Who calls; null (the default) is the service's own admin work. */
  readonly accountability?: Accountability | null;
  /** The overview the door already holds for this request: no second lookup. */
  readonly schema?: SchemaOverview;
  /** The caller's command context the door already built (GraphQL: one per request). */
  readonly commands?: CommandContext;
  /** Where reads go (the WebSocket's: committed data; REST and GraphQL: a replica); the primary by default. */
  readonly reads?: ReadContext['db'];
  /** The caller's read access the door already loaded for this request (GraphQL: one per request). */
  readonly reader?: Reader;
  /** Other limits than the configured ones (exports: no QUERY_LIMIT_MAX). */
  readonly limits?: ReadContext['limits'];
}

/** What an update of the doors applies to (Directus's updateMany / updateByQuery / updateBatch / upsertSingleton). */
export type UpdateTarget =
  | { readonly keys: readonly PrimaryKey[]; readonly data: Item }
  | { readonly query: QueryObject; readonly data: Item }
  | { readonly batch: readonly Item[] }
  | { readonly singleton: Item };

/** What a delete of the doors applies to. */
export type DeleteTarget = { readonly keys: readonly PrimaryKey[] } | { readonly query: QueryObject };

/** The service's own admin work (accountability null, as Directus's services take it). */
const SERVICE_ACCOUNTABILITY = ownAccountability();

/**
 * The item operations of one collection for one caller, with Directus 10's ItemsService
 * method names and semantics: every door (REST, GraphQL, the WebSocket, the fast door,
 * imports, the CLI, the workers, extensions) reads and writes items through it, and only
 * parses and shapes. A write checks, in this order: the collection is written as items
 * (writable.ts), the caller may write it at all (permission first: FORBIDDEN, never more),
 * the `items.*` filters (hooks.ts: they may change or refuse the payload), then the command
 * runs (one transaction: validation, nested writes, journal; after the commit the cache
 * purge, the change feed and replica stickiness: commands/run-write.ts), then the actions.
 * The overview and the command context are loaded once per service (it is made per
 * request), and not at all when the door hands them over.
 */
export class ItemsService {
  readonly collection: string;
  /** Null: the service's own admin work. */
  readonly accountability: Accountability | null;
  readonly #deps: ItemsDeps;
  #overview: SchemaOverview | undefined;
  #commands: CommandContext | undefined;
  #reader: Promise<Reader> | undefined;
  readonly #reads: ReadContext['db'];
  readonly #limits: ReadContext['limits'];
  readonly #readEvents: ReadEvents;
  /** The collection once found writable, and the actions found allowed: each checked once per service. */
  #writable: CollectionOverview | undefined;
  readonly #allowed = new Set<string>();

  constructor(collection: string, deps: ItemsDeps, options: ItemsServiceOptions = {}) {
    this.collection = collection;
    this.#deps = deps;
    this.accountability = options.accountability ?? null;
    this.#overview = options.commands?.overview ?? options.schema;
    this.#commands = options.commands;
    this.#reads = options.reads ?? deps.db;
    this.#reader = options.reader === undefined ? undefined : Promise.resolve(options.reader);
    this.#limits = options.limits ?? queryLimits(deps.config);
    this.#readEvents = new ReadEvents(deps.hooks, collection, () => ({
      database: deps.db,
      schema: this.#overview ?? null,
      accountability: this.accountability,
    }));
  }

  /** The caller as the commands and reads take it (the service's own when null). */
  get caller(): Accountability {
    return this.accountability ?? SERVICE_ACCOUNTABILITY;
  }

  async schemaOverview(): Promise<SchemaOverview> {
    return (this.#overview ??= await this.#deps.schema.getOverview());
  }

  /** The caller's command context (permissions loaded once), as the commands take it. */
  async commandContext(): Promise<CommandContext> {
    return (this.#commands ??= await commandContext(this.#deps, this.caller, await this.schemaOverview()));
  }

  /**
   * Permission first: the collection, when it is written as items and the caller may do one
   * of `actions` on it (admins: always); FORBIDDEN otherwise, before anything else of the
   * request is looked at (spec, Errors, rule 1: a forbidden collection reads like a missing one).
   */
  async requireAllowed(actions: readonly WriteAction[]): Promise<CollectionOverview> {
    const collection = await this.requireWritable();
    const id = actions.join();
    if (this.#allowed.has(id)) return collection;
    requirePermitted(await this.commandContext(), collection, actions);
    this.#allowed.add(id);
    return collection;
  }

  /** The collection, when it is written as items (FORBIDDEN otherwise); no permission asked yet. */
  async requireWritable(): Promise<CollectionOverview> {
    return (this.#writable ??= requireWritable(await this.schemaOverview(), this.collection, this.caller.admin));
  }

  // Reads ----------------------------------------------------------------------------------

  /**
   * Where reads go, and who reads: the caller's read access, loaded once for this service's
   * reads (or the door's, given), and again (`isFresh`) for the re-read after a write, which
   * may have changed it.
   */
  async readSide(isFresh = false): Promise<{ ctx: ReadContext; reader: Reader }> {
    const overview = await this.schemaOverview();
    const ctx = { db: this.#reads, overview, limits: this.#limits };
    const load = () => readerOf(this.#deps, overview, this.caller);
    return { ctx, reader: await (isFresh ? load() : (this.#reader ??= load())) };
  }

  // Every read below but the meta, history and version ones runs Directus's read events
  // (read-events.ts): the `items.query` filters on the query, the `items.read` filters and
  // actions on the items. The service is thin over the read side: its prepared statements,
  // PostgreSQL's JSON text and the cursor streams are the read side's, unwrapped.

  /** The items of a query (aggregate rows when it aggregates). */
  async readByQuery(query: Query): Promise<Item[]> {
    const { ctx, reader } = await this.readSide();
    const read = await this.#readEvents.query(query);
    return this.#readEvents.read(await readItems(ctx, this.collection, read, reader), read);
  }

  /** One item; FORBIDDEN when missing or unreadable. */
  async readOne(key: PrimaryKey, query: Query = {}): Promise<Item> {
    const { ctx, reader } = await this.readSide();
    const read = await this.#readEvents.query(query);
    return this.#one(await readItemByKey(ctx, this.collection, key, read, reader), read);
  }

  /** The items of `keys`, in key order; those the caller cannot read are left out. */
  async readMany(keys: readonly PrimaryKey[], query: Query = {}): Promise<Item[]> {
    const { ctx, reader } = await this.readSide();
    const read = await this.#readEvents.query(query);
    return this.#readEvents.read(await readItemsByKeys(ctx, this.collection, keys, read, reader), read);
  }

  /** A singleton's item (its defaults when it has no row yet). */
  async readSingleton(query: Query = {}): Promise<Item> {
    const { ctx, reader } = await this.readSide();
    const read = await this.#readEvents.query(query);
    return this.#one(await readSingleton(ctx, this.collection, read, reader), read);
  }

  /**
   * A plain list read's items as JSON text: written by the database where it can
   * (PostgreSQL: readItemsJson) and no `items.read` handler wants the items, else the items
   * read and stringified. Null, before any event, when the read is not plain (an export, a
   * singleton, an aggregate, an unlimited read): the door reads those otherwise.
   */
  async readByQueryText(query: Query): Promise<string | null> {
    const { ctx, reader } = await this.readSide();
    if (!this.#isPlainList(ctx, query)) return null;
    const read = await this.#readEvents.query(query);
    const json = this.#readEvents.wantsItems ? null : await readItemsJson(ctx, this.collection, read, reader);
    return (
      json ?? JSON.stringify(await this.#readEvents.read(await readItems(ctx, this.collection, read, reader), read))
    );
  }

  /** {@link readOne}'s item as JSON text ({@link readByQueryText}); FORBIDDEN when missing or unreadable. */
  async readOneText(key: PrimaryKey, query: Query = {}): Promise<string> {
    const { ctx, reader } = await this.readSide();
    const read = await this.#readEvents.query(query);
    const json = this.#readEvents.wantsItems ? null : await readItemJsonByKey(ctx, this.collection, key, read, reader);
    return json ?? JSON.stringify(await this.#one(await readItemByKey(ctx, this.collection, key, read, reader), read));
  }

  /**
   * GraphQL's answer to a list read, or to a read by key (`key`: the item, FORBIDDEN when
   * missing or unreadable), as JSON text written by the database in GraphQL's form
   * (readItemsJson). Null, before anything runs, where the database does not write it, the read
   * is not plain ({@link readByQueryText}), or a read handler listens: graphql-js executes the
   * field then, with its events.
   */
  async readGraphqlText(query: Query, key?: PrimaryKey): Promise<string | null> {
    if (this.#readEvents.listens) return null;
    const { ctx, reader } = await this.readSide();
    if (key !== undefined) return readItemJsonByKey(ctx, this.collection, key, query, reader, 'graphql');
    if (!this.#isPlainList(ctx, query)) return null;
    return readItemsJson(ctx, this.collection, query, reader, 'graphql');
  }

  /** A read of items that is neither an export, a singleton's, an aggregate nor unlimited. */
  #isPlainList(ctx: ReadContext, query: Query): boolean {
    const target = this.#collectionOf(ctx.overview);
    return !(
      query.export !== undefined ||
      target.singleton ||
      isAggregateQuery(query) ||
      isUnlimited(query, ctx.limits)
    );
  }

  /**
   * The items of a query one at a time with flat memory (`limit=-1`, exports: the read side's
   * cursor or key-ordered batches of `batchSize`); the `items.read` events run per batch.
   */
  async stream(query: Query, batchSize: number): Promise<AsyncGenerator<Item>> {
    const { ctx, reader } = await this.readSide();
    const read = await this.#readEvents.query(query);
    return this.#readEvents.stream(streamItems(ctx, this.collection, read, reader, { batchSize }), read, batchSize);
  }

  /** The `meta` a query asks for (total_count, filter_count; Directus counts the query as given, no events). */
  async readMeta(query: Query): Promise<Meta> {
    const { ctx, reader } = await this.readSide();
    return readMeta(ctx, this.collection, query, reader);
  }

  /** An item as it was at a moment or revision (issue 18). */
  async readAsOf(key: PrimaryKey, query: Query, asOf: AsOf): Promise<Item> {
    const { ctx, reader } = await this.readSide();
    return readItemAsOf(ctx, reader, this.collection, String(key), query, asOf);
  }

  /** An item as a content version has it. */
  async readVersion(key: PrimaryKey, query: Query, version: string): Promise<Item> {
    const { ctx, reader } = await this.readSide();
    return readItemVersion(ctx, reader, this.collection, String(key), query, version);
  }

  /**
   * Written items re-read after the commit with the caller's read access and `query`: one
   * item or the items in key order; null when the caller may not read them. The rule of
   * read-written.ts: a committed write is never answered with an error.
   */
  async readWritten(keys: readonly PrimaryKey[], query: Query, shape: Shape): Promise<WrittenAnswer | null> {
    const collection = this.#collectionOf(await this.schemaOverview());
    const [first] = keys;
    if (shape === 'one' && first === undefined) return null;
    return readCommitted(
      async () => {
        const { ctx, reader } = await this.readSide(true);
        if (shape === 'many') return readItemsByKeys(ctx, this.collection, keys, query, reader);
        return readItemByKey(ctx, this.collection, first as PrimaryKey, query, reader);
      },
      collection,
      keys,
      shape,
      this.#reReadLog(),
    );
  }

  // Writes, Directus 10's names -------------------------------------------------------------

  async createOne(data: Item): Promise<PrimaryKey> {
    const [key] = await this.createMany([data]);
    return key as PrimaryKey;
  }

  /** Every item (and its nested writes) in one transaction; their keys in input order. */
  async createMany(data: readonly Item[]): Promise<PrimaryKey[]> {
    return (await this.#create(data, undefined)).keys;
  }

  async updateOne(key: PrimaryKey, data: Item): Promise<PrimaryKey> {
    const [written] = await this.update({ keys: [key], data });
    return written ?? key;
  }

  async updateMany(keys: readonly PrimaryKey[], data: Item): Promise<PrimaryKey[]> {
    return this.update({ keys, data });
  }

  /** Each item carries its primary key. */
  async updateBatch(data: readonly Item[]): Promise<PrimaryKey[]> {
    return this.update({ batch: data });
  }

  async updateByQuery(query: QueryObject, data: Item): Promise<PrimaryKey[]> {
    return this.update({ query, data });
  }

  /** The singleton's row, created when missing. */
  async upsertSingleton(data: Item): Promise<PrimaryKey> {
    const [key] = await this.update({ singleton: data });
    return key as PrimaryKey;
  }

  /** Updates the item `data`'s primary key names when it exists, else creates it. */
  async upsertOne(data: Item): Promise<PrimaryKey> {
    const collection = await this.requireAllowed(['create', 'update']);
    const key = data[collection.primary];
    if (typeof key === 'string' || typeof key === 'number') {
      const found = await this.#deps
        .db(collection.collection)
        .where(collection.primary, key)
        .first<Item | undefined>(collection.primary);
      if (found !== undefined) return this.updateOne(key, data);
    }
    return this.createOne(data);
  }

  async upsertMany(data: readonly Item[]): Promise<PrimaryKey[]> {
    const keys: PrimaryKey[] = [];
    for (const item of data) keys.push(await this.upsertOne(item));
    return keys;
  }

  async deleteOne(key: PrimaryKey): Promise<PrimaryKey> {
    await this.delete({ keys: [key] });
    return key;
  }

  /** Every key or none (a missing one is FORBIDDEN, nothing deleted). */
  async deleteMany(keys: readonly PrimaryKey[]): Promise<PrimaryKey[]> {
    return this.delete({ keys });
  }

  async deleteByQuery(query: QueryObject): Promise<PrimaryKey[]> {
    return this.delete({ query });
  }

  // Writes, as the doors address them --------------------------------------------------------

  /** Any update of {@link UpdateTarget}; the keys written, in input order. */
  async update(target: UpdateTarget): Promise<PrimaryKey[]> {
    return (await this.#update(target, undefined)).keys;
  }

  /** Any delete of {@link DeleteTarget}; svc_files rows lose their contents too. */
  async delete(target: DeleteTarget): Promise<PrimaryKey[]> {
    const collection = await this.requireAllowed(['delete']);
    const ctx = await this.commandContext();
    const selected = 'keys' in target ? target.keys : await this.#keysOfQuery(collection, target.query, ctx, 'delete');
    const keys = selected === undefined ? undefined : await this.#filter('delete', selected, {}, ctx);
    const selection = keys === undefined ? target : { keys };
    const deleted =
      collection.collection === FILES_COLLECTION && this.#deps.files !== undefined
        ? await this.#deps.files.delete(ctx, selection)
        : await handleDelete({ kind: 'delete', collection: collection.collection, ...selection }, ctx);
    this.#action('delete', { keys: deleted, payload: deleted }, ctx);
    return deleted;
  }

  /**
   * Creates `data` and answers what the caller may read of it with `query` (null: nothing).
   * One plain item may be answered by its own statement (one-statement.ts).
   */
  async createAndRead(data: readonly Item[], query: Query, shape: Shape): Promise<WrittenAnswer | null> {
    const collection = await this.requireAllowed(['create']);
    const ctx = await this.commandContext();
    const written = await this.#create(data, shape === 'one' ? answerFields(ctx, collection, query) : undefined);
    return written.answer ?? this.readWritten(written.keys, query, shape);
  }

  /** {@link createAndRead} for an update. */
  async updateAndRead(target: UpdateTarget, query: Query, shape: Shape): Promise<WrittenAnswer | null> {
    const collection = await this.requireAllowed('singleton' in target ? ['update', 'create'] : ['update']);
    const ctx = await this.commandContext();
    const isOne = 'keys' in target && target.keys.length === 1 && shape === 'one';
    const written = await this.#update(target, isOne ? answerFields(ctx, collection, query) : undefined);
    return written.answer ?? this.readWritten(written.keys, query, shape);
  }

  // Other item operations ------------------------------------------------------------------

  /** Manual sort: `item` takes the place of `to` (POST /utils/sort). */
  async sort(item: PrimaryKey, to: PrimaryKey): Promise<void> {
    await this.requireAllowed(['update']);
    await handleSort({ kind: 'sort', collection: this.collection, item, to }, await this.commandContext());
  }

  /** The item back to how it was at a moment or revision (POST /utils/revert, issue 18). */
  async revert(item: PrimaryKey, asOf: AsOf): Promise<void> {
    await handleRevertAsOf(
      { kind: 'revert-as-of', collection: this.collection, item, asOf },
      await this.commandContext(),
    );
  }

  // The steps ------------------------------------------------------------------------------

  async #create(data: readonly Item[], answer: readonly string[] | undefined) {
    const collection = await this.requireAllowed(['create']);
    const ctx = await this.commandContext();
    const hooks = this.#deps.hooks;
    const events = this.#events('create');
    let items = data;
    if (hooks?.listens(events) === true) {
      // Directus runs the filter per created item, in order; what it returns is written.
      const filtered: Item[] = [];
      for (const item of data)
        filtered.push(
          await hooks.runFilter(events, item, { collection: collection.collection }, this.#hookContext(ctx)),
        );
      items = filtered;
    }
    const [only] = items;
    const written = (items.length === 1 ? await createOne(ctx, collection.collection, only, answer) : undefined) ?? {
      keys: await handleCreate({ kind: 'create', collection: collection.collection, data: items }, ctx),
    };
    if (hooks?.listens(events) === true) {
      written.keys.forEach((key, i) => {
        hooks.runAction(events, { payload: items[i], key, collection: collection.collection }, this.#hookContext(ctx));
      });
    }
    return written;
  }

  async #update(target: UpdateTarget, answer: readonly string[] | undefined) {
    const collection = await this.requireAllowed('singleton' in target ? ['update', 'create'] : ['update']);
    const ctx = await this.commandContext();
    const name = collection.collection;
    let command: UpdateCommand;
    let payload: unknown;
    if ('batch' in target) {
      // Directus's updateBatch is updateOne per item: a filter per item, with its key.
      const batch: Item[] = [];
      for (const item of target.batch) {
        const key = item[collection.primary];
        if (key === undefined || key === null)
          throw new InvalidPayloadError(`Every item of a batch update needs its primary key "${collection.primary}"`);
        batch.push(await this.#filter('update', item, { keys: [key] }, ctx));
      }
      command = { kind: 'update', collection: name, batch };
      const written = await this.#runUpdate(command, ctx, answer);
      written.keys.forEach((key, i) => {
        this.#action('update', { payload: batch[i], keys: [key] }, ctx);
      });
      return written;
    } else if ('singleton' in target) {
      const data = await this.#filter('update', target.singleton, {}, ctx);
      command = { kind: 'update', collection: name, singleton: true, data };
      payload = data;
    } else {
      const keys = 'keys' in target ? target.keys : await this.#keysOfQuery(collection, target.query, ctx, 'update');
      const data = await this.#filter('update', target.data, { keys }, ctx);
      command =
        keys === undefined && 'query' in target
          ? { kind: 'update', collection: name, query: target.query, data }
          : { kind: 'update', collection: name, keys: keys ?? [], data };
      payload = data;
    }
    const written = await this.#runUpdate(command, ctx, answer);
    this.#action('update', { payload, keys: written.keys }, ctx);
    return written;
  }

  /** The update command, or one plain item's update as one statement where it can be (one-statement.ts). */
  async #runUpdate(
    command: UpdateCommand,
    ctx: CommandContext,
    answer: readonly string[] | undefined,
  ): Promise<WrittenItems> {
    if ('keys' in command && command.keys.length === 1) {
      const one = await updateOne(ctx, command.collection, command.keys[0], command.data, answer);
      if (one !== undefined) return one;
    }
    return { keys: await handleUpdate(command, ctx) };
  }

  /**
   * The keys a query selects, when a filter or action wants them (Directus's updateByQuery
   * is updateMany of the query's keys); undefined when no hook listens: the command selects
   * them in its own transaction.
   */
  async #keysOfQuery(
    collection: CollectionOverview,
    query: QueryObject,
    ctx: CommandContext,
    event: 'update' | 'delete',
  ): Promise<readonly PrimaryKey[] | undefined> {
    if (this.#deps.hooks?.listens(this.#events(event)) !== true) return undefined;
    return ctx.db.transaction((trx) => selectByQuery(ctx, trx, collection, query));
  }

  /** Runs the `items.<event>` filters on `payload` (nothing to do when none listens). */
  async #filter<T>(event: 'update' | 'delete', payload: T, meta: object, ctx: CommandContext): Promise<T> {
    const hooks = this.#deps.hooks;
    const events = this.#events(event);
    if (hooks?.listens(events) !== true) return payload;
    return hooks.runFilter(events, payload, { ...meta, collection: this.collection }, this.#hookContext(ctx));
  }

  #action(event: 'update' | 'delete', meta: object, ctx: CommandContext): void {
    const hooks = this.#deps.hooks;
    const events = this.#events(event);
    if (hooks?.listens(events) !== true) return;
    hooks.runAction(events, { ...meta, collection: this.collection }, this.#hookContext(ctx));
  }

  #events(event: 'create' | 'update' | 'delete'): readonly string[] {
    return [`items.${event}`, `${this.collection}.items.${event}`];
  }

  #hookContext(ctx: CommandContext): HookContext {
    return { database: this.#deps.db, schema: ctx.overview, accountability: this.accountability };
  }

  /** One item through the `items.read` events (Directus reads one as a list of one). */
  async #one(item: Item, query: Query): Promise<Item> {
    if (!this.#readEvents.wantsItems) return item;
    const [read] = await this.#readEvents.read([item], query);
    if (read === undefined) throw new ForbiddenError();
    return read;
  }

  #collectionOf(overview: SchemaOverview): CollectionOverview {
    const found = Object.hasOwn(overview.collections, this.collection)
      ? overview.collections[this.collection]
      : undefined;
    if (found === undefined) throw new ForbiddenError();
    return found;
  }

  #reReadLog(): ReReadLog | undefined {
    const logger = this.#deps.logger;
    return logger?.warn === undefined ? undefined : { warn: (details, message) => logger.warn?.(details, message) };
  }
}

/** One caller's items services over one command context: a request that writes to several collections. */
export interface ItemServices {
  /** The caller's command context, loaded once (permissions) for every service below. */
  readonly commands: CommandContext;
  /** The items service of `collection` for this caller. */
  readonly of: (collection: string) => ItemsService;
}

/**
 * {@link ItemServices} for `accountability` (null: the service's own admin work) on `overview`;
 * `reads`: where their reads go and with what read access, when the door holds them already.
 */
export async function itemServices(
  deps: ItemsDeps,
  accountability: Accountability | null,
  overview: SchemaOverview,
  reads: Pick<ItemsServiceOptions, 'reads' | 'reader'> = {},
): Promise<ItemServices> {
  const commands = await new ItemsService('', deps, { accountability, schema: overview }).commandContext();
  return { commands, of: (collection) => new ItemsService(collection, deps, { ...reads, accountability, commands }) };
}
