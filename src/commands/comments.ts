import type { Knex } from 'knex';
import { dialectOf } from '../db/index.js';
import { insertReturningKeys } from '../db/insert-returning-keys.js';
import { runWriteStatement } from '../db/write-statement.js';
import { ForbiddenError, invariant } from '../errors.js';
import { noteChange } from './change-set.js';
import { ACTIVITY_COLLECTION, commentIdOf, COMMENTS_COLLECTION } from './comment-link.js';
import { requireCommentTarget } from './comment-target.js';
import type { ItemWriter } from './item-writer.js';
import { activityRow } from './journal/journal.js';
import { requirePrimaryKey, sameKey } from './primary-key.js';
import { runWrite } from './run-write.js';
import { applySpecialFields } from './special-fields.js';
import { toDatabaseRow } from './to-database-value.js';
import type {
  CommandContext,
  CreateCommentCommand,
  DeleteCommentCommand,
  PrimaryKey,
  UpdateCommentCommand,
} from './types.js';

/*
 * The SDK's comment routes. A comment is its
 * activity row (action `comment`, no revision) and the
 * svc_comments row linked to it by id (comment-link.ts), written together, so these record
 * nothing more. Besides the routes' own rules, the caller needs the permissions the two rows
 * take (app roles create svc_activity comments and keep their own svc_comments).
 * The journal records neither row, so each handler notes its svc_comments change itself
 * (change-set.ts): the live-data feed tells svc_comments subscribers, as for /comments writes.
 */

/**
 * POST /activity/comment: the item must exist and be readable by the caller
 * (comment-target.ts, checked first). Returns the activity id.
 */
export function handleCreateComment(cmd: CreateCommentCommand, ctx: CommandContext): Promise<number> {
  return runWrite(ctx, async (writer, trx, now) => {
    // An item the caller cannot read is FORBIDDEN like a missing one (spec, Errors, rule 1).
    const { collection: target, item } = await requireCommentTarget(trx, ctx, cmd.collection, cmd.item);
    const payload = { collection: target.collection, item: String(item), comment: cmd.comment };
    ctx.permissions.checkPayload('create', ACTIVITY_COLLECTION, payload);
    ctx.permissions.checkPayload('create', COMMENTS_COLLECTION, payload);

    const dialect = dialectOf(trx);
    const activity = {
      ...activityRow('comment', target.collection, item, ctx.accountability, now, dialect),
      comment: cmd.comment,
    };
    const [key] = await statement(trx, ACTIVITY_COLLECTION, () =>
      insertReturningKeys(trx, ACTIVITY_COLLECTION, [activity], 'id', { hasIncreasingKeys: true }),
    );
    invariant(key !== undefined, 'the activity row has a key');
    const activityId = Number(key);
    const comments = writer.collection(COMMENTS_COLLECTION);
    const commentId = commentIdOf(activityId);
    const values = applySpecialFields(
      comments,
      { id: commentId, ...payload },
      { action: 'create', accountability: ctx.accountability, now },
    );
    await statement(trx, COMMENTS_COLLECTION, () =>
      trx(COMMENTS_COLLECTION).insert(toDatabaseRow(comments, values, dialect)),
    );
    await ctx.permissions.checkItems(trx, 'create', COMMENTS_COLLECTION, [commentId]);
    noteChange(trx, 'create', COMMENTS_COLLECTION, commentId);
    writer.touched.add(ACTIVITY_COLLECTION).add(COMMENTS_COLLECTION);
    return activityId;
  });
}

/** PATCH /activity/comment/:id: the new text on both rows. Returns the activity id. */
export function handleUpdateComment(cmd: UpdateCommentCommand, ctx: CommandContext): Promise<number> {
  return runWrite(ctx, async (writer, trx, now) => {
    const activityId = await requireOwnComment(writer, trx, ctx, cmd.id);
    const comments = writer.collection(COMMENTS_COLLECTION);
    const linked = await writer.filterExisting(comments, [commentIdOf(activityId)]);
    ctx.permissions.checkPayload('update', COMMENTS_COLLECTION, { comment: cmd.comment });
    await ctx.permissions.checkItems(trx, 'update', COMMENTS_COLLECTION, linked);

    await statement(trx, ACTIVITY_COLLECTION, () =>
      trx(ACTIVITY_COLLECTION).where('id', activityId).update({ comment: cmd.comment }),
    );
    if (linked.length > 0) {
      const values = applySpecialFields(
        comments,
        { comment: cmd.comment },
        { action: 'update', accountability: ctx.accountability, now },
      );
      await statement(trx, COMMENTS_COLLECTION, () =>
        trx(COMMENTS_COLLECTION)
          .whereIn('id', linked)
          .update(toDatabaseRow(comments, values, dialectOf(trx))),
      );
      for (const key of linked) noteChange(trx, 'update', COMMENTS_COLLECTION, key);
    }
    writer.touched.add(ACTIVITY_COLLECTION).add(COMMENTS_COLLECTION);
    return activityId;
  });
}

/** DELETE /activity/comment/:id: both rows. */
export function handleDeleteComment(cmd: DeleteCommentCommand, ctx: CommandContext): Promise<void> {
  return runWrite(ctx, async (writer, trx) => {
    const activityId = await requireOwnComment(writer, trx, ctx, cmd.id);
    const linked = await writer.filterExisting(writer.collection(COMMENTS_COLLECTION), [commentIdOf(activityId)]);
    await ctx.permissions.checkItems(trx, 'delete', COMMENTS_COLLECTION, linked);

    await trx(COMMENTS_COLLECTION).whereIn('id', linked).delete();
    for (const key of linked) noteChange(trx, 'delete', COMMENTS_COLLECTION, key);
    await trx(ACTIVITY_COLLECTION).where('id', activityId).delete();
    writer.touched.add(ACTIVITY_COLLECTION).add(COMMENTS_COLLECTION);
  });
}

/**
 * The id of a comment's activity row the caller may change: FORBIDDEN for a missing id or
 * another action's row, and unless the caller wrote the comment or is an admin.
 */
async function requireOwnComment(
  writer: ItemWriter,
  trx: Knex.Transaction,
  ctx: CommandContext,
  id: PrimaryKey,
): Promise<number> {
  const key = requirePrimaryKey(writer.collection(ACTIVITY_COLLECTION), id);
  const row = await trx(ACTIVITY_COLLECTION)
    .where('id', key)
    .first<Record<string, unknown> | undefined>('id', 'action', 'user');
  if (row === undefined || row['action'] !== 'comment') throw new ForbiddenError();
  const { admin, user } = ctx.accountability;
  if (!admin && !sameKey(row['user'], user)) throw new ForbiddenError();
  return Number(row['id']);
}

/**
 * A write of one of a comment's rows, whose refusals are the service's errors as through
 * /comments: a text longer than MariaDB's `text` holds (64 KB) is VALUE_TOO_LONG, not a 500.
 */
function statement<T>(trx: Knex.Transaction, collection: string, run: () => Promise<T>): Promise<T> {
  return runWriteStatement(trx, dialectOf(trx), { collection, primaryKey: 'id' }, [], run);
}
