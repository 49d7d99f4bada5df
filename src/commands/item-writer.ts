import type { Knex } from 'knex';
import { getFieldRelation, requireCollection, type FieldRelation } from '../../catalog/overview/lookup.js';
import type { CollectionOverview, SchemaOverview } from '../../catalog/overview/types.js';
import type { Accountability } from '../access/accountability.js';
import { FULL_READ_ACCESS, type ReadAccess } from '../access/read-access.js';
import type { FilterVariables } from '../access/validate-filter.js';
import type { WritePermissions } from '../access/write-permissions.js';
import type { DbClient } from '../config/index.js';
import { dialectOf } from '../db/index.js';
import { insertReturningKeys, type InsertKeysOptions } from '../db/insert-returning-keys.js';
import { SerialSequences } from '../db/serial-sequences.js';
import { translateDatabaseError } from '../db/translate-error.js';
import { ForbiddenError, InvalidForeignKeyError, InvalidPayloadError, invariant } from '../errors.js';
import { Journal, type RevisionRef } from './journal/journal.js';
import { requirePrimaryKey, sameKey, toPrimaryKey } from './primary-key.js';
import { applySpecialFields, hashSpecialFields, withoutMaskedValues, withoutServerOwned } from './special-fields.js';
import { toDatabaseRow } from './to-database-value.js';
import type { DebugLog, Item, PrimaryKey } from './types.js';
import { checkUserPayload, endSessionsOnUserWrite, USERS_COLLECTION } from './user-rules.js';
import {
  ACTIVITY_COLLECTION,
  checkCommentPayload,
  COMMENTS_COLLECTION,
  deleteLinkedActivity,
  mirrorCommentText,
} from './comment-link.js';
import { requireCommentTarget } from './comment-target.js';
import { validatePayload } from './validate-payload.js';
import { readItemsByKeys, type Query, type ReadContext } from '../query/index.js';

/** One item written: its key, and the revision recorded for it (null when none). */
export interface WriteResult {
  readonly key: PrimaryKey;
  readonly revision: RevisionRef | null;
}

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

export interface ItemWriterContext {
  readonly overview: SchemaOverview;
  readonly accountability: Accountability;
  readonly permissions: WritePermissions;
  readonly maxBatchMutation: number;
  /** What the caller may read: a comment's item must be readable (comment-target.ts). */
  readonly readAccess: ReadAccess;
  readonly readLimits: ReadContext['limits'];
  readonly log?: DebugLog;
}

type OneToMany = Extract<FieldRelation, { kind: 'o2m' }>;

const DETAILED_KEYS = ['create', 'update', 'delete'];

/**
 * Writes items and their nested relational payloads (reference/relations.md, "Writing")
 * inside one transaction, depth-first: many-to-one items before the row that points at
 * them, one-to-many rows after it. Every item touched is permission checked against its own
 * collection, validated before it is written and journaled; the revisions of nested writes
 * point at the revision of the write that caused them.
 */
export class ItemWriter {
  /** Collections written to, for the cache purge after commit. */
  readonly touched = new Set<string>();
  readonly #trx: Knex.Transaction;
  readonly #context: ItemWriterContext;
  readonly #dialect: DbClient;
  readonly #journal: Journal;
  readonly #now: Date;
  /** PostgreSQL: sequences to move past the integer keys creates gave. */
  readonly #sequences: SerialSequences | undefined;
  #mutations = 0;

  constructor(trx: Knex.Transaction, context: ItemWriterContext, now: Date) {
    this.#trx = trx;
    this.#context = context;
    this.#dialect = dialectOf(trx);
    this.#journal = new Journal(trx, this.#dialect, context.accountability, now);
    this.#now = now;
    this.#sequences = this.#dialect === 'pg' ? new SerialSequences() : undefined;
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
      const data = await this.#checkCreate(collection, payload, serverValues[index]);
      if (this.#hasNestedWrites(collection, data)) {
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

  /**
   * Permission, specials, validation and rules of one create: its data, or the error. The
   * client's server-owned fields are dropped before anything looks at the payload.
   */
  async #checkCreate(collection: CollectionOverview, payload: unknown, serverValues: Item = {}): Promise<Item> {
    this.#count(1);
    const client = withoutServerOwned(collection, requireObject(payload), 'create');
    const checked = await this.#context.permissions.checkPayload('create', collection.collection, {
      ...client,
      ...serverValues,
    });
    const data = applySpecialFields(
      collection,
      withoutMaskedValues(collection, this.#withoutUnknownKeys(collection, checked)),
      {
        action: 'create',
        accountability: this.#context.accountability,
        now: this.#now,
      },
    );
    validatePayload(this.#context.overview, collection, data, { action: 'create', variables: this.#variables() });
    await this.#checkRules(collection, data, undefined);
    return data;
  }

  async #prepareCreate(collection: CollectionOverview, data: Item): Promise<PreparedCreate> {
    const children: RevisionRef[] = [];
    const values = await hashSpecialFields(collection, await this.#writeManyToOne(collection, data, children));
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
      aliases.push(await this.#writeOneToMany(collection, key, prepared.data, prepared.children));
    // reference/auth.md: an item created outside what the caller may create is refused.
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

  /** The journal written, sequences moved past given keys; runWrite calls it before the commit. */
  async finish(): Promise<void> {
    await this.flush();
    await this.#sequences?.moveAll(this.#trx);
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
      if (error instanceof ForbiddenError || (await this.#existsUnlessAborted(collection, key))) throw error;
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
    const client = withoutServerOwned(collection, withoutKey, 'update');
    const checked = await this.#context.permissions.checkPayload('update', collection.collection, {
      ...client,
      ...serverValues,
    });
    const data = applySpecialFields(
      collection,
      withoutMaskedValues(collection, this.#withoutUnknownKeys(collection, checked)),
      {
        action: 'update',
        accountability: this.#context.accountability,
        now: this.#now,
      },
    );
    validatePayload(this.#context.overview, collection, data, { action: 'update', variables: this.#variables() });
    await this.#checkRules(collection, data, key);
    const children: RevisionRef[] = [];
    const values = await hashSpecialFields(collection, await this.#writeManyToOne(collection, data, children));
    const row = toDatabaseRow(collection, values, this.#dialect);
    if (Object.keys(row).length > 0) {
      const matched = await this.#statement(collection, [row], () =>
        this.#trx(collection.collection).where(collection.primary, key).update(row),
      );
      if (matched === 0) throw new ForbiddenError();
    } else {
      await this.requireExisting(collection, [key]);
    }
    if (collection.collection === COMMENTS_COLLECTION && (await mirrorCommentText(this.#trx, key, values)))
      this.touched.add(ACTIVITY_COLLECTION);
    if (collection.collection === USERS_COLLECTION) await endSessionsOnUserWrite(this.#trx, key, data);
    const aliases = await this.#writeOneToMany(collection, key, data, children);
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
    await this.#statement(collection, [], () =>
      this.#trx(collection.collection).whereIn(collection.primary, keys).delete(),
    );
    if (collection.collection === COMMENTS_COLLECTION && (await deleteLinkedActivity(this.#trx, keys)))
      this.touched.add(ACTIVITY_COLLECTION);
    for (const key of keys) this.#journal.record({ action: 'delete', collection, key });
    this.touched.add(collection.collection);
  }

  /** FORBIDDEN unless every key names an existing item (spec, Errors, rule 1). */
  async requireExisting(collection: CollectionOverview, keys: readonly PrimaryKey[]): Promise<void> {
    const existing = await this.filterExisting(collection, keys);
    if (keys.some((key) => !existing.some((e) => sameKey(e, key)))) throw new ForbiddenError();
  }

  /** The keys, of those given, that name existing items, in the given order. */
  async filterExisting(collection: CollectionOverview, keys: readonly PrimaryKey[]): Promise<PrimaryKey[]> {
    if (keys.length === 0) return [];
    const found = await this.#trx(collection.collection)
      .whereIn(collection.primary, [...new Set(keys)])
      .select(collection.primary);
    const existing = found.map((row: Record<string, unknown>) => row[collection.primary]);
    return keys.filter((key) => existing.some((e) => sameKey(e, key)));
  }

  /** Many-to-one and many-to-any item values that are objects: the related item is written first. */
  async #writeManyToOne(
    collection: CollectionOverview,
    data: Item,
    children: RevisionRef[],
  ): Promise<Record<string, unknown>> {
    const values: Record<string, unknown> = { ...data };
    for (const [name, value] of Object.entries(data)) {
      const relation = getFieldRelation(this.#context.overview, collection.collection, name);
      if (relation?.kind === 'a2o' && value !== null && value !== undefined) {
        const target = data[relation.collectionField];
        if (typeof target !== 'string' || !relation.allowed.includes(target)) {
          throw new InvalidPayloadError(
            `Collection "${String(target)}" isn't allowed for field "${name}" in collection "${collection.collection}"`,
          );
        }
        if (isPlainObject(value)) values[name] = String(this.#collect(children, await this.upsert(target, value)));
        continue;
      }
      if (relation?.kind === 'm2o' && isPlainObject(value)) {
        values[name] = this.#collect(children, await this.upsert(relation.related, value));
      }
    }
    return values;
  }

  /**
   * reference/relations.md, m2o: with an existing key → update that item, otherwise create it
   * (also the upsert of imports, reference/audit-and-utils.md).
   */
  async upsert(collectionName: string, value: Item): Promise<WriteResult> {
    const collection = this.collection(collectionName);
    const key = toPrimaryKey(collection, value[collection.primary]);
    if (key !== undefined && (await this.#exists(collection, key))) {
      const { [collection.primary]: _key, ...rest } = value;
      if (Object.keys(rest).length === 0) return { key, revision: null };
      return this.update(collection.collection, key, rest);
    }
    return this.create(collection.collection, value);
  }

  /** The one-to-many aliases of the payload; returns the names of those written. */
  async #writeOneToMany(
    collection: CollectionOverview,
    key: PrimaryKey,
    data: Item,
    children: RevisionRef[],
  ): Promise<string[]> {
    const written: string[] = [];
    for (const [name, value] of Object.entries(data)) {
      const relation = getFieldRelation(this.#context.overview, collection.collection, name);
      if (relation?.kind !== 'o2m' || value === undefined) continue;
      if (Array.isArray(value) || value === null) {
        await this.#replaceSet(relation, key, value ?? [], children, name);
      } else if (isPlainObject(value)) {
        await this.#editSet(relation, key, value, children, name);
      } else {
        throw new InvalidPayloadError(`Field "${name}" has to be an array or an object with create, update or delete`);
      }
      written.push(name);
    }
    return written;
  }

  /** Basic array: the entries become the whole set; the rows left out are deselected. */
  async #replaceSet(
    relation: OneToMany,
    parent: PrimaryKey,
    entries: readonly unknown[],
    children: RevisionRef[],
    alias: string,
  ): Promise<void> {
    const many = this.collection(relation.related);
    const foreignKey = relation.relation.field;
    const kept: PrimaryKey[] = [];
    for (const entry of entries) {
      if (isPlainObject(entry)) {
        kept.push(this.#collect(children, await this.upsert(many.collection, { ...entry, [foreignKey]: parent })));
      } else if (typeof entry === 'string' || typeof entry === 'number') {
        const key = requirePrimaryKey(many, entry);
        const current = await this.#trx(many.collection)
          .where(many.primary, key)
          .first<Record<string, unknown> | undefined>(foreignKey);
        if (current === undefined) throw new ForbiddenError();
        if (!sameKey(current[foreignKey], parent)) {
          this.#collect(children, await this.update(many.collection, key, { [foreignKey]: parent }));
        }
        kept.push(key);
      } else {
        throw new InvalidPayloadError(`Field "${alias}" has to contain primary keys or objects`);
      }
    }
    const stale = await this.#trx(many.collection)
      .where(foreignKey, parent)
      .whereNotIn(many.primary, kept)
      .select(many.primary);
    await this.#deselect(
      relation,
      stale.map((row: Record<string, unknown>) => row[many.primary] as PrimaryKey),
    );
  }

  /** Detailed object: `create`, `update` (rows of this parent only) and `delete` (deselect). */
  async #editSet(
    relation: OneToMany,
    parent: PrimaryKey,
    changes: Item,
    children: RevisionRef[],
    alias: string,
  ): Promise<void> {
    const unknown = Object.keys(changes).find((k) => !DETAILED_KEYS.includes(k));
    if (unknown !== undefined) throw new InvalidPayloadError(`"${alias}.${unknown}" is not allowed`);
    const many = this.collection(relation.related);
    const foreignKey = relation.relation.field;
    const creates = listOf(changes, 'create', alias).map((entry) => ({
      ...requireObject(entry),
      [foreignKey]: parent,
    }));
    for (const created of await this.createMany(many.collection, creates)) this.#collect(children, created);
    const updates = listOf(changes, 'update', alias).map((entry) => {
      const item = requireObject(entry);
      const key = toPrimaryKey(many, item[many.primary]);
      if (key === undefined)
        throw new InvalidPayloadError(`"${alias}.update" entries need the primary key "${many.primary}"`);
      return { key, item };
    });
    const ownUpdates = new Set(
      (
        await this.#ownedBy(
          relation,
          parent,
          updates.map((u) => u.key),
        )
      ).map(String),
    );
    for (const { key, item } of updates) {
      // reference/relations.md: rows that do not belong to the parent are ignored.
      if (ownUpdates.has(String(key))) this.#collect(children, await this.update(many.collection, key, item));
    }
    const deletions = listOf(changes, 'delete', alias)
      .map((entry) => toPrimaryKey(many, entry))
      .filter((key): key is PrimaryKey => key !== undefined);
    await this.#deselect(relation, await this.#ownedBy(relation, parent, deletions));
  }

  /** Of `keys`, those whose row points at `parent`. */
  async #ownedBy(relation: OneToMany, parent: PrimaryKey, keys: readonly PrimaryKey[]): Promise<PrimaryKey[]> {
    if (keys.length === 0) return [];
    const many = this.collection(relation.related);
    const rows = await this.#trx(many.collection)
      .where(relation.relation.field, parent)
      .whereIn(many.primary, [...keys])
      .select(many.primary);
    return rows.map((row: Record<string, unknown>) => row[many.primary] as PrimaryKey);
  }

  /** one_deselect_action: `nullify` unlinks (own revision, no parent), `delete` deletes. */
  async #deselect(relation: OneToMany, keys: readonly PrimaryKey[]): Promise<void> {
    if (keys.length === 0) return;
    if (relation.relation.meta?.oneDeselectAction === 'delete') {
      await this.delete(relation.related, keys);
      return;
    }
    for (const key of keys) await this.update(relation.related, key, { [relation.relation.field]: null });
  }

  /**
   * The item as the read side shows it (masked, typed, one-to-many aliases as arrays of the
   * keys of their rows, none cut off by the nested limit), read inside the transaction with
   * full access: a revision records the whole item whoever wrote it.
   */
  async #snapshot(collection: CollectionOverview, key: PrimaryKey, fields: '*' | readonly string[]): Promise<Item> {
    if (fields.length === 0) return {};
    const names = fields === '*' ? Object.keys(collection.fields) : fields;
    const aliases = names.filter(
      (name) => getFieldRelation(this.#context.overview, collection.collection, name)?.kind === 'o2m',
    );
    const query: Query = {
      fields: fields === '*' ? ['*'] : [...fields],
      deep: Object.fromEntries(aliases.map((alias) => [alias, { limit: -1 }])),
    };
    const context: ReadContext = {
      db: this.#trx,
      overview: this.#context.overview,
      limits: { ...this.#context.readLimits, queryLimitMax: Infinity },
    };
    const reader = { accountability: this.#context.accountability, access: FULL_READ_ACCESS };
    const [item] = await readItemsByKeys(context, collection.collection, [key], query, reader);
    return item ?? {};
  }

  async #exists(collection: CollectionOverview, key: PrimaryKey): Promise<boolean> {
    return (
      (await this.#trx(collection.collection).where(collection.primary, key).first(collection.primary)) !== undefined
    );
  }

  /**
   * Whether the item exists, after a failure; true when the database cannot tell (PostgreSQL
   * refuses every statement after a failed one), so that the failure itself is reported.
   */
  async #existsUnlessAborted(collection: CollectionOverview, key: PrimaryKey): Promise<boolean> {
    try {
      return await this.#exists(collection, key);
    } catch {
      return true;
    }
  }

  /** Runs a write statement of `rows`; constraint violations become the service's errors. */
  async #statement<T>(
    collection: CollectionOverview,
    rows: readonly Record<string, unknown>[],
    run: () => Promise<T>,
  ): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const translated = translateDatabaseError(error, this.#dialect, {
        collection: collection.collection,
        primaryKey: collection.primary,
      });
      if (translated instanceof InvalidForeignKeyError && translated.extensions.field === null) {
        for (const row of rows) {
          const field = await this.#brokenForeignKey(collection, row);
          if (field !== undefined) throw new InvalidForeignKeyError({ collection: collection.collection, field });
        }
      }
      throw translated;
    }
  }

  /** SQLite does not name the failing foreign key: find the many-to-one value that points nowhere. */
  async #brokenForeignKey(collection: CollectionOverview, row: Record<string, unknown>): Promise<string | undefined> {
    if (this.#dialect !== 'sqlite3') return undefined;
    for (const [name, value] of Object.entries(row)) {
      const relation = getFieldRelation(this.#context.overview, collection.collection, name);
      if (relation?.kind !== 'm2o' || value === null || value === undefined) continue;
      const related = this.#context.overview.collections[relation.related];
      if (related === undefined) continue;
      const found = await this.#trx(related.collection)
        .where(related.primary, value as PrimaryKey)
        .first(related.primary);
      if (found === undefined) return name;
    }
    return undefined;
  }

  /**
   * The rules of particular system collections, on top of the permissions; `key`: the item
   * updated, undefined for a create.
   */
  async #checkRules(collection: CollectionOverview, data: Item, key: PrimaryKey | undefined): Promise<void> {
    if (collection.collection === USERS_COLLECTION)
      await checkUserPayload(this.#trx, this.#context.accountability, data);
    if (collection.collection === COMMENTS_COLLECTION) {
      checkCommentPayload(data);
      await this.#checkCommentTarget(collection, data, key);
    }
  }

  /**
   * A comment created, or moved to another item, is on an item the caller may read, in a
   * collection that exists (comment-target.ts); an update leaving `collection` and `item`
   * alone keeps its target. A missing one is left to the database (both are NOT NULL).
   */
  async #checkCommentTarget(collection: CollectionOverview, data: Item, key: PrimaryKey | undefined): Promise<void> {
    if (key !== undefined && data['collection'] === undefined && data['item'] === undefined) return;
    const current =
      key === undefined
        ? undefined
        : await this.#trx(collection.collection)
            .where(collection.primary, key)
            .first<Record<string, unknown> | undefined>('collection', 'item');
    if (key !== undefined && current === undefined) throw new ForbiddenError();
    const target = data['collection'] ?? current?.['collection'];
    const item = data['item'] ?? current?.['item'];
    if (target === undefined || target === null || item === undefined || item === null) return;
    await requireCommentTarget(this.#trx, this.#context, target, item);
  }

  #collect(children: RevisionRef[], result: WriteResult): PrimaryKey {
    if (result.revision !== null) children.push(result.revision);
    return result.key;
  }

  /** MAX_BATCH_MUTATION counts every item a command touches, nested ones included. */
  #count(items: number): void {
    this.#mutations += items;
    if (this.#mutations > this.#context.maxBatchMutation) {
      throw new InvalidPayloadError(`Exceeded max batch mutation limit of ${this.#context.maxBatchMutation}`);
    }
  }

  /** Relational values the item writes itself: one-to-many payloads, many-to-one (and -any) objects. */
  #hasNestedWrites(collection: CollectionOverview, data: Item): boolean {
    return Object.entries(data).some(([name, value]) => {
      const kind = getFieldRelation(this.#context.overview, collection.collection, name)?.kind;
      return kind === 'o2m' ? value !== undefined : kind !== undefined && isPlainObject(value);
    });
  }

  /**
   * Directus 10 drops payload keys that are not fields of the collection (columns or
   * aliases) instead of refusing them; they are noted at debug level. After the permission
   * check, as there: a role limited to some fields is refused any other key (403).
   */
  #withoutUnknownKeys(collection: CollectionOverview, payload: Item): Item {
    const unknown = Object.keys(payload).filter((name) => collection.fields[name] === undefined);
    if (unknown.length === 0) return payload;
    this.#context.log?.debug(
      { collection: collection.collection, keys: unknown },
      'payload keys that are not fields dropped',
    );
    return Object.fromEntries(Object.entries(payload).filter(([name]) => collection.fields[name] !== undefined));
  }

  #variables(): FilterVariables {
    return { now: this.#now, user: this.#context.accountability.user, role: this.#context.accountability.role };
  }
}

/** How the rows of a collection are inserted together (db/insert-returning-keys.ts). */
function insertOptionsOf(collection: CollectionOverview, sequences: SerialSequences | undefined): InsertKeysOptions {
  const fields = Object.values(collection.fields);
  const primary = collection.fields[collection.primary];
  return {
    hasIncreasingKeys: ['integer', 'bigInteger'].includes(primary?.type ?? ''),
    // to-database-value.ts writes json values as JSON text.
    jsonColumns: new Set(fields.filter((f) => f.dbType === 'json' || f.dbType === 'jsonb').map((f) => f.field)),
    ...(primary?.hasAutoIncrement === true && sequences !== undefined ? { sequences } : {}),
  };
}

/** The column values of a payload (alias fields left out), for revision data and delta. */
function columnsOf(collection: CollectionOverview, values: Item): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([name]) => collection.fields[name]?.isAlias === false));
}

function pick(item: Item, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((name) => name in item).map((name) => [name, item[name]]));
}

function isPlainObject(value: unknown): value is Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireObject(value: unknown): Item {
  if (!isPlainObject(value)) throw new InvalidPayloadError('Items have to be objects');
  return value;
}

function listOf(changes: Item, key: string, alias: string): readonly unknown[] {
  const value = changes[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new InvalidPayloadError(`"${alias}.${key}" has to be an array`);
  return value;
}
