import { getFieldRelation } from '../../catalog/overview/lookup.js';
import type { CollectionOverview, SchemaOverview } from '../../catalog/overview/types.js';
import { InvalidPayloadError } from '../errors.js';
import { readItemByKey, readRevisionDataAsOf } from '../query/index.js';
import type { ItemWriter } from './item-writer.js';
import { requirePrimaryKey, toPrimaryKey } from './primary-key.js';
import { runWrite } from './run-write.js';
import type { CommandContext, Item, PrimaryKey, RevertAsOfCommand, RevertCommand } from './types.js';

/**
 * POST /utils/revert/:revision: a normal update of
 * the revision's item with the revision's `data` (permissions, validation, journal apply).
 * Fields the collection no longer has are skipped, and so are related rows deleted since:
 * they cannot come back, the rest of the item still can.
 */
export function handleRevert(cmd: RevertCommand, ctx: CommandContext): Promise<void> {
  return runWrite(ctx, async (writer, trx) => {
    const id = requirePrimaryKey(writer.collection('svc_revisions'), cmd.revision);
    // Read with the caller's read access: a revision they cannot read is FORBIDDEN like a missing one.
    const revision = await readItemByKey(
      { db: trx, overview: ctx.overview, limits: ctx.readLimits },
      'svc_revisions',
      id,
      { fields: ['collection', 'item', 'data'] },
      { accountability: ctx.accountability, access: ctx.readAccess },
    );
    const data = parseData(revision['data']);
    if (data === undefined || Object.keys(data).length === 0)
      throw new InvalidPayloadError("Revision doesn't contain data to revert to");
    const collection = writer.collection(String(revision['collection']));
    const payload = await revertiblePayload(writer, ctx.overview, collection, data);
    await writer.update(collection.collection, revision['item'], payload);
  });
}

/**
 * POST /utils/revert `{collection, item, as_of}` (issue 18, Restore): the item back to its
 * revision `data` at a moment (query/history/item-as-of.ts), the same audited update as a
 * revert of that revision.
 */
export function handleRevertAsOf(cmd: RevertAsOfCommand, ctx: CommandContext): Promise<void> {
  return runWrite(ctx, async (writer, trx) => {
    const collection = writer.collection(cmd.collection);
    const key = requirePrimaryKey(collection, cmd.item);
    const data = await readRevisionDataAsOf(
      { db: trx, overview: ctx.overview, limits: ctx.readLimits },
      { accountability: ctx.accountability, access: ctx.readAccess },
      collection.collection,
      String(key),
      cmd.asOf,
    );
    await writer.update(collection.collection, key, await revertiblePayload(writer, ctx.overview, collection, data));
  });
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

async function existingKeys(
  writer: ItemWriter,
  collectionName: string,
  keys: readonly unknown[],
): Promise<PrimaryKey[]> {
  const collection = writer.collection(collectionName);
  const candidates = keys.map((k) => toPrimaryKey(collection, k)).filter((k): k is PrimaryKey => k !== undefined);
  return writer.filterExisting(collection, candidates);
}

function parseData(value: unknown): Item | undefined {
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Item) : undefined;
}
