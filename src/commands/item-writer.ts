import type { Knex } from 'knex';
import { getFieldRelation, requireCollection } from '../../catalog/overview/lookup.js';
import type { CollectionOverview } from '../../catalog/overview/types.js';
import type { DbClient } from '../db-client.js';
import { dialectOf } from '../db/index.js';
import { databaseDialectOf } from '../db/dialects/index.js';
import { insertReturningKeys } from '../db/insert-returning-keys.js';
import { SerialSequences } from '../db/serial-sequences.js';
import { runWriteStatement, type WriteTarget } from '../db/write-statement.js';
import { ForbiddenError, InvalidPayloadError, invariant } from '../errors.js';
import { noteSeenBy } from './change-set.js';
import { checkWritePayload, type PayloadCheckContext } from './check-payload.js';
import { rulesOf } from './collection-rules.js';
import { existsUnlessAborted, filterExisting, itemExists, keyId, requireExisting } from './existing-items.js';
import { Journal, type RevisionRef } from './journal/journal.js';
import { hasNestedWrites, hasRelatedObjects, writeRelatedAfter, writeRelatedFirst } from './nested/nested-writes.js';
import { requireObject, type ItemWrites, type NestedContext, type WriteResult } from './nested/types.js';
import { requirePrimaryKey, toPrimaryKey } from './primary-key.js';
import { readSnapshot, readSnapshots } from './read-snapshot.js';
import { hashSpecialFields, isHashField } from './special-fields.js';
import { columnsOf, insertOptionsOf, toDatabaseRow } from './to-database-value.js';
import { ROWS_PER_STEP, giveWay } from './give-way.js';
import type { CommandContext, Item, PrimaryKey } from './types.js';
import { isPlainObject } from '../is-plain-object.js';

export type { WriteResult } from './nested/types.js';

/** A create checked, its many-to-one items written: its row is ready to be inserted. */
interface PreparedCreate {
  /** The payload with presets and specials. */
  readonly data: Item;
  /** `data` with the keys of many-to-one items written first, hashes applied. */
  readonly values: Item;
  readonly row: Record<string, unknown>;
  /** Revisions of the nested writes, to point at this item's revision. */
  readonly children: RevisionRef[];
}

/** The caller's context (check-payload.ts) and MAX_BATCH_MUTATION. */
export interface ItemWriterContext extends PayloadCheckContext, Pick<CommandContext, 'traffic' | 'witnessDelete'> {
  readonly maxBatchMutation: number;
}

/**
 * Writes items and their nested relational payloads
 * inside one transaction, depth-first: many-to-one items before the row that points at
 * them, one-to-many rows after it. Every item touched is permission checked against its own
 * collection, validated before it is written and journaled; the revisions of nested writes
 * point at the revision of the write that caused them.
 */
export class ItemWriter implements ItemWrites {
  /** Collections written to, for the cache purge after commit. */
  readonly touched = new Set<string>();
  readonly #trx: Knex.Transaction;
  readonly #context: ItemWriterContext;
  readonly #dialect: DbClient;
  readonly #journal: Journal;
  readonly #now: Date;
  /** PostgreSQL: sequences to move past the integer keys creates gave. */
  readonly #sequences: SerialSequences | undefined;
  /** What the nested writers (nested/) work with. */
  readonly #nested: NestedContext;
  #mutations = 0;

  constructor(trx: Knex.Transaction, context: ItemWriterContext, now: Date) {
    this.#trx = trx;
    this.#context = context;
    this.#dialect = dialectOf(trx);
    this.#journal = new Journal(trx, this.#dialect, context.accountability, now);
    this.#now = now;
    this.#sequences = databaseDialectOf(trx).sequencesLagGivenKeys ? new SerialSequences() : undefined;
    this.#nested = { trx, overview: context.overview, writer: this };
  }

  collection(name: string): CollectionOverview {
    return requireCollection(this.#context.overview, name);
  }

  async create(collectionName: string, payload: unknown): Promise<WriteResult> {
    const [result] = await this.createMany(collectionName, [payload]);
    invariant(result !== undefined, 'one result per created item');
    return result;
  }

  /**
   * Creates items of one collection, results in payload order. Items without nested writes
   * are inserted together (a statement for many rows, the journal written in bulk at the
   * end); an item with nested writes has the items before it inserted first, then is
   * written alone, depth-first, as the algorithm of commands/README.md says. `serverValues`:
   * per payload, the service's own values (types.ts, CreateCommand).
   */
  async createMany(
    collectionName: string,
    payloads: readonly unknown[],
    serverValues: readonly Item[] = [],
  ): Promise<WriteResult[]> {
    const collection = this.collection(collectionName);
    const results: WriteResult[] = [];
    let batch: PreparedCreate[] = [];
    for (const [index, payload] of payloads.entries()) {
      // Checks are CPU only: other requests (reads during an import) go first between steps.
      if (index % ROWS_PER_STEP === ROWS_PER_STEP - 1) await giveWay(this.#context);
      const data = await this.#checkCreate(collection, payload, serverValues[index]);
      // A hash is salted per item: each item hashes its own (item by item).
      const hashes = Object.keys(data).some((name) => isHashField(collection, name));
      if (hashes || hasNestedWrites(this.#context, collection, data)) {
        results.push(...(await this.#insertCreated(collection, batch)));
        batch = [];
        results.push(...(await this.#insertCreated(collection, [await this.#prepareCreate(collection, data)])));
      } else {
        batch.push(await this.#prepareCreate(collection, data));
      }
    }
    results.push(...(await this.#insertCreated(collection, batch)));
    return results;
  }

  /** Steps 1–2 of one create (check-payload.ts): its data, or the error. */
  async #checkCreate(collection: CollectionOverview, payload: unknown, serverValues: Item = {}): Promise<Item> {
    this.#count(1);
    const toCheck = { action: 'create', payload: requireObject(payload), serverValues } as const;
    return checkWritePayload(this.#trx, this.#context, collection, toCheck, this.#now);
  }

  async #prepareCreate(collection: CollectionOverview, data: Item): Promise<PreparedCreate> {
    const children: RevisionRef[] = [];
    const values = await hashSpecialFields(
      collection,
      await writeRelatedFirst(this.#nested, collection, data, children),
    );
    return { data, values, row: toDatabaseRow(collection, values, this.#dialect), children };
  }

  /** Inserts the rows, then each item's one-to-many payloads, permission check, journal. */
  async #insertCreated(collection: CollectionOverview, batch: readonly PreparedCreate[]): Promise<WriteResult[]> {
    if (batch.length === 0) return [];
    const rows = batch.map((p) => p.row);
    const keys = await this.#statement(collection, rows, () =>
      insertReturningKeys(
        this.#trx,
        collection.collection,
        rows,
        collection.primary,
        insertOptionsOf(collection, this.#sequences),
      ),
    );
    const created = batch.map((prepared, i) => {
      const key = keys[i];
      invariant(key !== undefined, 'a key per inserted row');
      return { prepared, key };
    });
    const aliases: string[][] = [];
    for (const { prepared, key } of created)
      aliases.push(await writeRelatedAfter(this.#nested, collection, key, prepared.data, prepared.children));
    // An item created outside what the caller may create is refused.
    await this.#context.permissions.checkItems(this.#trx, 'create', collection.collection, keys);
    const results: WriteResult[] = [];
    for (const [i, { prepared, key }] of created.entries()) {
      const relatedKeys =
        collection.accountability === 'all' ? await this.#snapshot(collection, key, aliases[i] ?? []) : {};
      const written = { ...columnsOf(collection, prepared.values), [collection.primary]: key, ...relatedKeys };
      const revision = this.#journal.record({
        action: 'create',
        collection,
        key,
        revision: { data: written, delta: written },
      });
      if (revision !== null) this.#journal.linkChildren(prepared.children, revision);
      results.push({ key, revision });
    }
    this.touched.add(collection.collection);
    return results;
  }

  /** Writes the journal recorded so far. */
  async flush(): Promise<void> {
    await this.#journal.flush();
  }

  /**
   * The journal written, sequences moved past given keys, the collections' rules about their
   * rows together checked (collection-rules.ts `beforeCommit`); runWrite calls it before the commit.
   */
  async finish(): Promise<void> {
    await this.flush();
    await this.#sequences?.moveAll(this.#trx);
    const checks = new Set([...this.touched].map((name) => rulesOf(name).beforeCommit));
    for (const check of checks) await check?.(this.#trx);
  }

  /**
   * `payload` on every item of `keys` (PATCH by keys or query), results in key order. A
   * many-to-one (or many-to-any) object in it is written once, before the items, and every
   * item gets its key, as Directus 10 does (its revision is a child of the first item's).
   * Without one-to-many writes, on a collection without rules of its own
   * (collection-rules.ts), it is set-based: the items' existence and permission checked
   * together, the payload checked once, one UPDATE and one snapshot read per batch of keys;
   * still an activity row and a revision per item. Otherwise item by item.
   */
  async updateMany(
    collectionName: string,
    rawKeys: readonly unknown[],
    payload: unknown,
    serverValues: Item = {},
  ): Promise<WriteResult[]> {
    const collection = this.collection(collectionName);
    const keys = rawKeys.map((k) => requirePrimaryKey(collection, k));
    if (keys.length < 2) return this.#updateEach(collection, keys, payload, serverValues);
    const body = requireObject(payload);
    const children: RevisionRef[] = [];
    const results = hasRules(collection.collection)
      ? await this.#updateEach(
          collection,
          keys,
          await this.#relatedOnce(collection, keys, body, children),
          serverValues,
        )
      : await this.#updateSet(collection, keys, body, serverValues, children);
    const first = results[0]?.revision;
    if (first !== undefined && first !== null) this.#journal.linkChildren(children, first);
    return results;
  }

  /**
   * The payload with its many-to-one and many-to-any objects written (each once) and their
   * keys in their place; the payload itself when it has none. The items are checked first:
   * a write to a missing item is FORBIDDEN whatever else is wrong with it.
   */
  async #relatedOnce(
    collection: CollectionOverview,
    keys: readonly PrimaryKey[],
    payload: Item,
    children: RevisionRef[],
  ): Promise<Item> {
    if (!hasRelatedObjects(this.#context, collection, payload)) return payload;
    await this.requireExisting(collection, keys);
    await this.#context.permissions.checkItems(this.#trx, 'update', collection.collection, keys);
    return writeRelatedFirst(this.#nested, collection, payload, children);
  }

  /** {@link updateMany} on a collection without rules of its own: set-based unless the payload writes o2m items. */
  async #updateSet(
    collection: CollectionOverview,
    keys: readonly PrimaryKey[],
    payload: Item,
    serverValues: Item,
    children: RevisionRef[],
  ): Promise<WriteResult[]> {
    await this.requireExisting(collection, keys);
    await this.#context.permissions.checkItems(this.#trx, 'update', collection.collection, keys);
    const { [collection.primary]: _key, ...withoutKey } = payload;
    const toCheck = { action: 'update', payload: withoutKey, serverValues } as const;
    const checked = await checkWritePayload(this.#trx, this.#context, collection, toCheck, this.#now);
    const data = hasRelatedObjects(this.#context, collection, checked)
      ? await writeRelatedFirst(this.#nested, collection, checked, children)
      : checked;
    // A hash is salted per item: each item hashes its own (item by item), as are o2m writes.
    const hashes = Object.keys(data).some((name) => isHashField(collection, name));
    if (hashes || hasNestedWrites(this.#context, collection, data))
      return this.#updateEach(collection, keys, withKeysOf(payload, data), serverValues);
    this.#count(keys.length);
    const values = await hashSpecialFields(collection, data);
    const row = toDatabaseRow(collection, values, this.#dialect);
    const delta = columnsOf(collection, values);
    const results: WriteResult[] = [];
    for (const batch of batchesOf(keys, SET_BATCH_SIZE)) {
      if (Object.keys(row).length > 0) {
        const matched = await this.#statement(collection, [row], () =>
          this.#trx(collection.collection)
            .whereIn(collection.primary, [...new Set(batch)])
            .update(row),
        );
        if (matched < new Set(batch.map(keyId)).size) throw new ForbiddenError();
      }
      const snapshots =
        collection.accountability === 'all'
          ? await readSnapshots(this.#trx, this.#context, collection, batch, '*')
          : batch.map(() => ({}));
      for (const [i, key] of batch.entries()) {
        const revision = { data: snapshots[i] ?? {}, delta };
        results.push({ key, revision: this.#journal.record({ action: 'update', collection, key, revision }) });
      }
    }
    this.touched.add(collection.collection);
    return results;
  }

  async #updateEach(
    collection: CollectionOverview,
    keys: readonly PrimaryKey[],
    payload: unknown,
    serverValues: Item,
  ): Promise<WriteResult[]> {
    const results: WriteResult[] = [];
    for (const key of keys) results.push(await this.update(collection.collection, key, payload, serverValues));
    return results;
  }

  /** An update of one item; `serverValues` as for {@link createMany}. */
  async update(
    collectionName: string,
    rawKey: unknown,
    payload: unknown,
    serverValues: Item = {},
  ): Promise<WriteResult> {
    const collection = this.collection(collectionName);
    const key = requirePrimaryKey(collection, rawKey);
    this.#count(1);
    try {
      return await this.#updateExisting(collection, key, payload, serverValues);
    } catch (error) {
      // Spec, Errors, rule 1: a write to an item that does not exist is FORBIDDEN, whatever
      // else is wrong with it. The update finds out itself (no row matched), so the item is
      // looked up only when something failed first.
      if (error instanceof ForbiddenError || (await existsUnlessAborted(this.#trx, collection, key))) throw error;
      throw new ForbiddenError();
    }
  }

  /** An update; FORBIDDEN when no row has the key. */
  async #updateExisting(
    collection: CollectionOverview,
    key: PrimaryKey,
    payload: unknown,
    serverValues: Item,
  ): Promise<WriteResult> {
    await this.#context.permissions.checkItems(this.#trx, 'update', collection.collection, [key]);
    const { [collection.primary]: _key, ...withoutKey } = requireObject(payload);
    const toCheck = { action: 'update', payload: withoutKey, serverValues, key } as const;
    const data = await checkWritePayload(this.#trx, this.#context, collection, toCheck, this.#now);
    const children: RevisionRef[] = [];
    const values = await hashSpecialFields(
      collection,
      await writeRelatedFirst(this.#nested, collection, data, children),
    );
    const row = toDatabaseRow(collection, values, this.#dialect);
    if (Object.keys(row).length > 0) {
      const matched = await this.#statement(collection, [row], () =>
        this.#trx(collection.collection).where(collection.primary, key).update(row),
      );
      if (matched === 0) throw new ForbiddenError();
    } else {
      await this.requireExisting(collection, [key]);
    }
    this.#touch(await rulesOf(collection.collection).afterUpdate?.(this.#trx, key, data, values));
    const aliases = await writeRelatedAfter(this.#nested, collection, key, data, children);
    const snapshot = collection.accountability === 'all' ? await this.#snapshot(collection, key, '*') : {};
    const delta = { ...columnsOf(collection, values), ...pick(snapshot, aliases) };
    const revision = this.#journal.record({ action: 'update', collection, key, revision: { data: snapshot, delta } });
    if (revision !== null) this.#journal.linkChildren(children, revision);
    this.touched.add(collection.collection);
    return { key, revision };
  }

  async delete(collectionName: string, rawKeys: readonly unknown[]): Promise<void> {
    const collection = this.collection(collectionName);
    const keys = rawKeys.map((k) => requirePrimaryKey(collection, k));
    if (keys.length === 0) return;
    this.#count(keys.length);
    await this.requireExisting(collection, keys);
    await this.#context.permissions.checkItems(this.#trx, 'delete', collection.collection, keys);
    // Who may learn of the delete is decided now, while the rows are there to be read.
    const seenBy = await this.#context.witnessDelete?.(this.#trx, collection.collection, keys);
    if (seenBy !== undefined) noteSeenBy(this.#trx, collection.collection, seenBy);
    await this.#statement(collection, [], () =>
      this.#trx(collection.collection).whereIn(collection.primary, keys).delete(),
    );
    this.#touch(await rulesOf(collection.collection).afterDelete?.(this.#trx, keys));
    for (const key of keys) this.#journal.record({ action: 'delete', collection, key });
    this.touched.add(collection.collection);
  }

  /** FORBIDDEN unless every key names an existing item (spec, Errors, rule 1). */
  requireExisting(collection: CollectionOverview, keys: readonly PrimaryKey[]): Promise<void> {
    return requireExisting(this.#trx, collection, keys);
  }

  /** The keys, of those given, that name existing items, in the given order. */
  filterExisting(collection: CollectionOverview, keys: readonly PrimaryKey[]): Promise<PrimaryKey[]> {
    return filterExisting(this.#trx, collection, keys);
  }

  /**
   * m2o: with an existing key → update that item, otherwise create it
   * (also the upsert of imports).
   */
  async upsert(collectionName: string, value: Item): Promise<WriteResult> {
    const collection = this.collection(collectionName);
    const key = toPrimaryKey(collection, value[collection.primary]);
    if (key !== undefined && (await itemExists(this.#trx, collection, key))) {
      const { [collection.primary]: _key, ...rest } = value;
      if (Object.keys(rest).length === 0) return { key, revision: null };
      return this.update(collection.collection, key, rest);
    }
    return this.create(collection.collection, value);
  }

  #snapshot(collection: CollectionOverview, key: PrimaryKey, fields: '*' | readonly string[]): Promise<Item> {
    return readSnapshot(this.#trx, this.#context, collection, key, fields);
  }

  /** Runs a write statement of `rows`; constraint violations become the service's errors. */
  async #statement<T>(
    collection: CollectionOverview,
    rows: readonly Record<string, unknown>[],
    run: () => Promise<T>,
  ): Promise<T> {
    return runWriteStatement(this.#trx, this.#dialect, this.#targetOf(collection), rows, run);
  }

  /** The collection as a write statement's target: its table, key and many-to-one columns. */
  #targetOf(collection: CollectionOverview): WriteTarget {
    const overview = this.#context.overview;
    return {
      collection: collection.collection,
      primaryKey: collection.primary,
      foreignKeys: (field) => {
        const relation = getFieldRelation(overview, collection.collection, field);
        const related = relation?.kind === 'm2o' ? overview.collections[relation.related] : undefined;
        return related === undefined ? undefined : { table: related.collection, column: related.primary };
      },
    };
  }

  #touch(collections: readonly string[] | undefined): void {
    for (const name of collections ?? []) this.touched.add(name);
  }

  /** MAX_BATCH_MUTATION counts every item a command touches, nested ones included. */
  #count(items: number): void {
    this.#mutations += items;
    if (this.#mutations > this.#context.maxBatchMutation) {
      throw new InvalidPayloadError(`Exceeded max batch mutation limit of ${this.#context.maxBatchMutation}`);
    }
  }
}

/** Keys written by one set-based statement. */
const SET_BATCH_SIZE = 1_000;

/** Whether the collection has rules of its own, which are checked item by item. */
function hasRules(collection: string): boolean {
  return Object.keys(rulesOf(collection)).length > 0;
}

function* batchesOf<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/** `payload` with its related objects replaced by the keys `written` has for them. */
function withKeysOf(payload: Item, written: Item): Item {
  const values: Record<string, unknown> = { ...payload };
  for (const [name, value] of Object.entries(payload))
    if (isPlainObject(value) && name in written && !isPlainObject(written[name])) values[name] = written[name];
  return values;
}

function pick(item: Item, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((name) => name in item).map((name) => [name, item[name]]));
}
