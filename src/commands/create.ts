import { createOne } from './one-statement.js';
import { runWrite } from './run-write.js';
import type { CommandContext, CreateCommand, PrimaryKey, WrittenItems } from './types.js';

/** POST /items/:collection: every item (and its nested writes) in one transaction; their keys in input order. */
export async function handleCreate(cmd: CreateCommand, ctx: CommandContext): Promise<PrimaryKey[]> {
  return (await createItems(cmd, ctx)).keys;
}

/**
 * {@link handleCreate}, and for one item written in one statement (PostgreSQL,
 * one-statement.ts) the answer's `answer` fields read by that statement: the route then
 * answers without reading the item again. The single attempt: a write it declines goes the
 * general way once.
 */
export async function createItems(
  cmd: CreateCommand,
  ctx: CommandContext,
  answer?: readonly string[],
): Promise<WrittenItems> {
  const [only] = cmd.data;
  if (cmd.data.length === 1) {
    const one = await createOne(ctx, cmd.collection, only, cmd.serverValues?.[0], answer);
    if (one !== undefined) return { keys: [one.key], answer: one.answer };
  }
  return runWrite(ctx, async (writer) => {
    const created = await writer.createMany(cmd.collection, cmd.data, cmd.serverValues);
    return { keys: created.map((result) => result.key) };
  });
}
