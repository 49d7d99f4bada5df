import type { Knex } from 'knex';
import { InvalidPayloadError } from '../errors.js';
import type { ItemWriter } from './item-writer.js';
import { requirePrimaryKey } from './primary-key.js';
import { runWrite } from './run-write.js';
import { selectByQuery } from './select-by-query.js';
import type { CommandContext, Item, PrimaryKey, UpdateCommand } from './types.js';

/**
 * PATCH /items/:collection[/:id]: `data` on the selected keys or query, a batch of items
 * each carrying its key, or the singleton's row (created when missing). One transaction;
 * the keys written, in input order. (The items service runs one plain item on PostgreSQL as
 * one statement first: items/one-statement.ts.)
 */
export async function handleUpdate(cmd: UpdateCommand, ctx: CommandContext): Promise<PrimaryKey[]> {
  return runWrite(ctx, async (writer, trx) => {
    const collection = writer.collection(cmd.collection);
    if ('batch' in cmd) {
      const keys: PrimaryKey[] = [];
      for (const item of cmd.batch) {
        const key = item[collection.primary];
        if (key === undefined || key === null) {
          throw new InvalidPayloadError(`Every item of a batch update needs its primary key "${collection.primary}"`);
        }
        keys.push((await writer.update(collection.collection, key, item)).key);
      }
      return keys;
    }
    if ('singleton' in cmd) return [await upsertSingleton(writer, trx, cmd.collection, cmd.data)];
    const keys =
      'keys' in cmd
        ? cmd.keys.map((k) => requirePrimaryKey(collection, k))
        : await selectByQuery(ctx, trx, collection, cmd.query);
    await writer.updateMany(collection.collection, keys, cmd.data, cmd.serverValues);
    return keys;
  });
}

/** Singletons: PATCH upserts the single row. */
async function upsertSingleton(
  writer: ItemWriter,
  trx: Knex.Transaction,
  name: string,
  data: Item,
): Promise<PrimaryKey> {
  const collection = writer.collection(name);
  const existing = await trx(collection.collection).first<Record<string, unknown> | undefined>(collection.primary);
  const key = existing?.[collection.primary];
  if (key === undefined || key === null) return (await writer.create(collection.collection, data)).key;
  return (await writer.update(collection.collection, key, data)).key;
}
