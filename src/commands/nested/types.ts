import type { Knex } from 'knex';
import type { CollectionOverview, SchemaOverview } from '../../../catalog/overview/types.js';
import { InvalidPayloadError } from '../../errors.js';
import type { RevisionRef } from '../journal/journal.js';
import type { Item, PrimaryKey } from '../types.js';
import { isPlainObject } from '../../is-plain-object.js';

/** One item written: its key, and the revision recorded for it (null when none). */
export interface WriteResult {
  readonly key: PrimaryKey;
  readonly revision: RevisionRef | null;
}

/** The item writes a nested payload makes (item-writer.ts), each checked and journaled. */
export interface ItemWrites {
  collection(name: string): CollectionOverview;
  createMany(collectionName: string, payloads: readonly unknown[]): Promise<WriteResult[]>;
  update(collectionName: string, key: unknown, payload: unknown): Promise<WriteResult>;
  upsert(collectionName: string, value: Item): Promise<WriteResult>;
  delete(collectionName: string, keys: readonly unknown[]): Promise<void>;
}

/** What the nested writers work with: the write's transaction, the schema, the writer. */
export interface NestedContext {
  readonly trx: Knex.Transaction;
  readonly overview: SchemaOverview;
  readonly writer: ItemWrites;
}

/** The key of a nested write; its revision, if any, joins `children` (to point at the parent's). */
export function collectChild(children: RevisionRef[], result: WriteResult): PrimaryKey {
  if (result.revision !== null) children.push(result.revision);
  return result.key;
}

export function requireObject(value: unknown): Item {
  if (!isPlainObject(value)) throw new InvalidPayloadError('Items have to be objects');
  return value;
}
