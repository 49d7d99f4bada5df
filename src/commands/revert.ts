import type { Knex } from 'knex';
import { isDeepStrictEqual } from 'node:util';
import { getFieldRelation } from '../../catalog/overview/lookup.js';
import type { CollectionOverview, SchemaOverview } from '../../catalog/overview/types.js';
import { InvalidPayloadError } from '../errors.js';
import { readItemByKey, readItemStateAsOf, type AsOf, type ReadContext, type Reader } from '../query/index.js';
import type { ItemWriter } from './item-writer.js';
import { isMaskedField } from './journal/mask.js';
import { requirePrimaryKey, toPrimaryKey } from './primary-key.js';
import { readSnapshot } from './read-snapshot.js';
import { runWrite } from './run-write.js';
import { isServerOwned } from './special-fields.js';
import type { CommandContext, Item, PrimaryKey, RevertAsOfCommand, RevertCommand } from './types.js';
import { isPlainObject } from '../is-plain-object.js';

/**
 * POST /utils/revert/:revision: the revision's item back to its state as of that revision,
 * as a restore to that moment does ({@link handleRevertAsOf}). A revision saved into a
 * content version is not the item's state: its `data` is applied as an update, as before.
 */
export function handleRevert(cmd: RevertCommand, ctx: CommandContext): Promise<void> {
  return runWrite(ctx, async (writer, trx) => {
    const id = requirePrimaryKey(writer.collection('svc_revisions'), cmd.revision);
    // Read with the caller's read access: a revision they cannot read is FORBIDDEN like a missing one.
    const revision = await readItemByKey(
      readContext(ctx, trx),
      'svc_revisions',
      id,
      { fields: ['collection', 'item', 'data'] },
      reader(ctx),
    );
    const saved = await trx('svc_revisions').where({ id }).first<{ version: unknown } | undefined>('version');
    const data = parseData(revision['data']);
    if (data === undefined || Object.keys(data).length === 0)
      throw new InvalidPayloadError("Revision doesn't contain data to revert to");
    const collection = writer.collection(String(revision['collection']));
    if (saved?.version !== null && saved?.version !== undefined) {
      await writer.update(
        collection.collection,
        revision['item'],
        await revertiblePayload(writer, ctx.overview, collection, data),
      );
      return;
    }
    const key = requirePrimaryKey(collection, revision['item']);
    await restoreAsOf(writer, trx, ctx, collection, key, { kind: 'revision', id: Number(id) });
  });
}

/**
 * POST /utils/revert `{collection, item, as_of}` (issue 18, Restore): the item back to its
 * state at a moment, exactly as `GET /items/:collection/:id?as_of=` shows it (fields the
 * revision of the moment does not hold: their default or null), in one audited update.
 */
export function handleRevertAsOf(cmd: RevertAsOfCommand, ctx: CommandContext): Promise<void> {
  return runWrite(ctx, async (writer, trx) => {
    const collection = writer.collection(cmd.collection);
    const key = requirePrimaryKey(collection, cmd.item);
    await restoreAsOf(writer, trx, ctx, collection, key, cmd.asOf);
  });
}

async function restoreAsOf(
  writer: ItemWriter,
  trx: Knex.Transaction,
  ctx: CommandContext,
  collection: CollectionOverview,
  key: PrimaryKey,
  asOf: AsOf,
): Promise<void> {
  const state = await readItemStateAsOf(readContext(ctx, trx), reader(ctx), collection.collection, String(key), asOf);
  const payload = await restorePayload(writer, trx, ctx, collection, key, state);
  // Nothing differs: nothing to write (and no revision saying nothing).
  if (Object.keys(payload).length === 0) return writer.requireExisting(collection, [key]);
  await writer.update(collection.collection, key, payload);
}

/**
 * The update that brings the item to `state` (field → value, as the as-of read has them):
 * only the fields whose value differs from the item's now, so that a field the caller may
 * not update refuses the restore (FORBIDDEN, through the writer's permission check) only
 * when it would change. Never written back: the key, fields the service owns on update
 * (date_updated, ...), masked fields (their value of the moment is the mask), computed
 * columns and aliases without a relation; to-many keys of rows deleted since are dropped.
 */
export async function restorePayload(
  writer: ItemWriter,
  trx: Knex.Transaction,
  ctx: CommandContext,
  collection: CollectionOverview,
  key: PrimaryKey,
  state: Item,
): Promise<Item> {
  const now = await readSnapshot(trx, ctx, collection, key, '*');
  const payload: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(state)) {
    const field = collection.fields[name];
    if (field === undefined || name === collection.primary || isServerOwned(collection, name, 'update')) continue;
    if (isMaskedField(field) || (field.isGenerated && !field.isPrimaryKey)) continue;
    const relation = getFieldRelation(ctx.overview, collection.collection, name);
    if (field.isAlias && relation?.kind !== 'o2m') continue;
    if (relation?.kind === 'o2m') {
      const keys = Array.isArray(value) ? await existingKeys(writer, relation.related, value) : [];
      if (!sameKeys(keys, now[name])) payload[name] = keys;
    } else if (!sameValue(value, now[name])) {
      payload[name] = value;
    }
  }
  return payload;
}

/** A revision's data as an update payload: fields gone skipped, to-many keys of rows deleted since dropped. */
export async function revertiblePayload(
  writer: ItemWriter,
  overview: SchemaOverview,
  collection: CollectionOverview,
  data: Item,
): Promise<Item> {
  const payload: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(data)) {
    const field = collection.fields[name];
    if (field === undefined) continue;
    const relation = getFieldRelation(overview, collection.collection, name);
    payload[name] =
      relation?.kind === 'o2m' && Array.isArray(value) ? await existingKeys(writer, relation.related, value) : value;
  }
  return payload;
}

/** Equal as the read side shows values: numbers and their decimal strings (bigint, decimal) alike. */
function sameValue(a: unknown, b: unknown): boolean {
  if (isDeepStrictEqual(a, b ?? null)) return true;
  const scalar = (v: unknown): v is string | number | boolean =>
    typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  return scalar(a) && scalar(b) && String(a) === String(b);
}

/** The same related keys, in any order (an o2m alias reads in its sort order). */
function sameKeys(keys: readonly PrimaryKey[], now: unknown): boolean {
  if (!Array.isArray(now)) return keys.length === 0;
  const sorted = (list: readonly unknown[]): string[] => list.map((k) => String(k)).sort();
  return isDeepStrictEqual(sorted(keys), sorted(now));
}

async function existingKeys(
  writer: ItemWriter,
  collectionName: string,
  keys: readonly unknown[],
): Promise<PrimaryKey[]> {
  const collection = writer.collection(collectionName);
  const candidates = keys.map((k) => toPrimaryKey(collection, k)).filter((k): k is PrimaryKey => k !== undefined);
  return writer.filterExisting(collection, candidates);
}

function readContext(ctx: CommandContext, trx: Knex.Transaction): ReadContext {
  return { db: trx, overview: ctx.overview, limits: ctx.readLimits };
}

function reader(ctx: CommandContext): Reader {
  return { accountability: ctx.accountability, access: ctx.readAccess };
}

function parseData(value: unknown): Item | undefined {
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  return isPlainObject(parsed) ? parsed : undefined;
}
