import { Router, type Request, type Response } from 'express';
import { handleCreateComment, handleDeleteComment, handleUpdateComment } from '../../commands/comments.js';
import { commandContext } from '../../commands/command-context.js';
import type { CommandContext, PrimaryKey } from '../../commands/types.js';
import { InvalidPayloadError } from '../../errors.js';
import { toCollectionName } from '../collection-name.js';
import { readBody, readRequiredString } from '../payload.js';
import { requestQuery } from '../read-context.js';
import { ItemsService } from '../../items/items-service.js';
import type { ItemWriteDeps } from './item-writes.js';

const ACTIVITY = 'svc_activity';

/**
 * POST /activity/comment, PATCH and DELETE /activity/comment/:id (the
 * SDK's surface over svc_comments): the written activity row is
 * read back with the caller's access and `fields`, like the Items writes.
 */
export function activityCommentRoutes(deps: ItemWriteDeps): Router {
  const router = Router();

  router.post('/', async (req, res) => {
    const body = readBody(req);
    const collection = toCollectionName(readRequiredString(body, 'collection'));
    const item = readItem(body);
    const comment = readRequiredString(body, 'comment');
    await writeAndReply(req, res, (ctx) =>
      handleCreateComment({ kind: 'createComment', collection, item, comment }, ctx),
    );
  });

  router.patch('/:id', async (req, res) => {
    const comment = readRequiredString(readBody(req), 'comment');
    await writeAndReply(req, res, (ctx) =>
      handleUpdateComment({ kind: 'updateComment', id: idParam(req), comment }, ctx),
    );
  });

  router.delete('/:id', async (req, res) => {
    const overview = await deps.schema.getOverview();
    await handleDeleteComment(
      { kind: 'deleteComment', id: idParam(req) },
      await commandContext(deps, req.accountability, overview),
    );
    res.status(204).end();
  });

  async function writeAndReply(
    req: Request,
    res: Response,
    write: (ctx: CommandContext) => Promise<number>,
  ): Promise<void> {
    // Parsed before writing: a malformed query string must not leave a write behind.
    const query = requestQuery(req);
    const items = new ItemsService(ACTIVITY, deps, { accountability: req.accountability });
    const id = await write(await items.commandContext());
    const written = await items.readWritten([id], query, 'one');
    if (written === null) res.status(204).end();
    else res.json({ data: written });
  }

  return router;
}

function idParam(req: Request): string {
  return String(req.params['id']);
}

/** `item`: the commented item's key, a string or a number. */
function readItem(body: Record<string, unknown>): PrimaryKey {
  const item = body['item'];
  if (item === undefined || item === null) throw new InvalidPayloadError('"item" is required');
  if (typeof item === 'number') return item;
  if (typeof item !== 'string') throw new InvalidPayloadError('"item" must be a string or a number');
  if (item === '') throw new InvalidPayloadError('"item" is not allowed to be empty');
  return item;
}
