import { runWrite } from './run-write.js';
import type { CommandContext, CreateCommand, PrimaryKey } from './types.js';

/**
 * POST /items/:collection: every item (and its nested writes) in one transaction; their keys in
 * input order. (The items service runs one plain item on PostgreSQL as one statement first:
 * items/one-statement.ts.)
 */
export async function handleCreate(cmd: CreateCommand, ctx: CommandContext): Promise<PrimaryKey[]> {
  return runWrite(ctx, async (writer) => {
    const created = await writer.createMany(cmd.collection, cmd.data, cmd.serverValues);
    return created.map((result) => result.key);
  });
}
