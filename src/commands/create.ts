import { createOne } from './one-statement.js';
import { runWrite } from './run-write.js';
import type { CommandContext, CreateCommand, PrimaryKey } from './types.js';

/** POST /items/:collection: every item (and its nested writes) in one transaction; their keys in input order. */
export async function handleCreate(cmd: CreateCommand, ctx: CommandContext): Promise<PrimaryKey[]> {
  const [only] = cmd.data;
  if (cmd.data.length === 1) {
    // PostgreSQL: one plain item in one statement (one-statement.ts), else the general path.
    const key = await createOne(ctx, cmd.collection, only, cmd.serverValues?.[0]);
    if (key !== undefined) return [key.key];
  }
  return runWrite(ctx, async (writer) => {
    const created = await writer.createMany(cmd.collection, cmd.data, cmd.serverValues);
    return created.map((result) => result.key);
  });
}
