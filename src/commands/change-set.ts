import type { Knex } from 'knex';
import { KeyList, KeyRuns, type KeySegment } from './key-runs.js';
import type { PrimaryKey } from './primary-key.js';

/** What a committed command changed in one collection: the live-data feed's event (src/realtime). */
export interface Change {
  readonly collection: string;
  readonly action: 'create' | 'update' | 'delete';
  readonly keys: ChangedKeys;
  /**
   * A delete's witness: who could read which of its items just before they went (a viewer id
   * of src/realtime → its keys), taken inside the transaction by the context's `witnessDelete`.
   * Absent: no one was asked (no subscriber here, another path than ItemWriter.delete).
   */
  readonly seenBy?: SeenBy;
}

/** Viewer id (made by src/realtime, opaque here) → the deleted keys it could read before the delete. */
export type SeenBy = Readonly<Record<string, readonly PrimaryKey[]>>;

/** The keys of a change: an array, or a transaction's {@link KeyList}, read a slice at a time. */
interface ChangedKeys {
  readonly length: number;
  slice(start?: number, end?: number): PrimaryKey[];
}

/**
 * The items each open transaction of `runWrite` changed, by transaction: the journal notes
 * every item it records here (whatever the collection's accountability), comments.ts the
 * svc_comments rows it writes past the journal, so the one place every write passes through
 * collects them without the writers passing a list around.
 */
const open = new WeakMap<Knex.Transaction, Map<string, NotedKeys>>();

/**
 * The keys of one (action, collection): noted one by one (each once; an import's keys, in
 * increasing order, as runs: key-runs.ts), or in bulk (new keys, see {@link noteCreated}).
 */
interface NotedKeys {
  readonly single: KeyRuns;
  readonly bulk: KeySegment[];
  /** Deletes: the witnesses of its statements, merged (see {@link noteSeenBy}). */
  seenBy?: Map<string, PrimaryKey[]>;
}

/** Starts collecting the changes of `trx` (runWrite, inside the transaction). */
export function openChangeSet(trx: Knex.Transaction): void {
  open.set(trx, new Map());
}

/** Notes that `key` of `collection` was created, updated or deleted in `trx` (no-op outside runWrite). */
export function noteChange(trx: Knex.Transaction, action: Change['action'], collection: string, key: PrimaryKey): void {
  notedKeys(trx, action, collection)?.single.add(key);
}

/**
 * Notes items created in `trx` with keys no other item had (an import's keys taken from the
 * sequence): as a range when they follow each other, else as the array given, a third of the
 * memory of a set per key, which matters for a million rows.
 */
export function noteCreated(trx: Knex.Transaction, collection: string, keys: readonly PrimaryKey[]): void {
  if (keys.length === 0) return;
  const first = keys[0];
  const isRange = typeof first === 'number' && keys.every((key, i) => key === first + i && Number.isSafeInteger(key));
  notedKeys(trx, 'create', collection)?.bulk.push(isRange ? { first, count: keys.length } : keys);
}

/** Adds a delete's witness (who could read which keys before the delete) to the change of `collection`. */
export function noteSeenBy(trx: Knex.Transaction, collection: string, seenBy: SeenBy): void {
  const keys = notedKeys(trx, 'delete', collection);
  if (keys === undefined) return;
  keys.seenBy ??= new Map();
  for (const [viewer, seen] of Object.entries(seenBy)) {
    const list = keys.seenBy.get(viewer);
    if (list === undefined) keys.seenBy.set(viewer, [...seen]);
    else list.push(...seen);
  }
}

function notedKeys(trx: Knex.Transaction, action: Change['action'], collection: string): NotedKeys | undefined {
  const changes = open.get(trx);
  if (changes === undefined) return undefined;
  const id = `${action}\u0000${collection}`;
  let keys = changes.get(id);
  if (keys === undefined) changes.set(id, (keys = { single: new KeyRuns(), bulk: [] }));
  return keys;
}

/**
 * The keys of `collection` created or updated in `trx` so far (the collection rules' check
 * before the commit: collection-rules.ts `beforeCommit`). Forgets nothing.
 */
export function writtenKeys(trx: Knex.Transaction, collection: string): PrimaryKey[] {
  const changes = open.get(trx);
  if (changes === undefined) return [];
  return (['create', 'update'] as const).flatMap((action) => {
    const noted = changes.get(`${action}\u0000${collection}`);
    return noted === undefined ? [] : new KeyList([...noted.single.segments(), ...noted.bulk]).slice();
  });
}

/**
 * The changes of `trx`, one per (collection, action) in the order first noted: a batch (an
 * import, a multi-row create) is one change with all its keys. Forgets them.
 */
export function takeChanges(trx: Knex.Transaction): Change[] {
  const changes = open.get(trx);
  open.delete(trx);
  if (changes === undefined) return [];
  return [...changes].map(([id, { single, bulk, seenBy }]) => {
    const [action, collection] = id.split('\u0000') as [Change['action'], string];
    const keys = new KeyList([...single.segments(), ...bulk]);
    return seenBy === undefined
      ? { collection, action, keys }
      : { collection, action, keys, seenBy: Object.fromEntries(seenBy) };
  });
}
