import { runWrite } from './run-write.js';
import type { CommandContext, CreateCommand, PrimaryKey } from './types.js';

/** POST /items/:collection: every item (and its nested writes) in one transaction; their keys in input order. */
export function handleCreate(cmd: CreateCommand, ctx: CommandContext): Promise<PrimaryKey[]> {
  return runWrite(ctx, async (writer) => {
    const created = await writer.createMany(cmd.collection, cmd.data, cmd.serverValues);
    return created.map((result) => result.key);
  });
}
