import { requirePrimaryKey } from './primary-key.js';
import { runWrite } from './run-write.js';
import type { CommandContext, DeleteCommand, PrimaryKey } from './types.js';
import { selectByQuery } from './select-by-query.js';

/**
 * DELETE /items/:collection[/:id]: the selected items in one transaction (any missing key →
 * FORBIDDEN, nothing deleted); related rows follow their foreign key's ON DELETE.
 */
export function handleDelete(cmd: DeleteCommand, ctx: CommandContext): Promise<PrimaryKey[]> {
  return runWrite(ctx, async (writer, trx) => {
    const collection = writer.collection(cmd.collection);
    const keys =
      'keys' in cmd
        ? cmd.keys.map((k) => requirePrimaryKey(collection, k))
        : await selectByQuery(ctx, trx, collection, cmd.query);
    await writer.delete(collection.collection, keys);
    return keys;
  });
}
