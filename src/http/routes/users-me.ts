import { Router } from 'express';
import { LAST_PAGE_MAX_LENGTH, trackLastPage } from '../../auth/auth-user.js';
import { handleUpdate } from '../../commands/update.js';
import { ForbiddenError, InvalidPayloadError } from '../../errors.js';
import { readItemByKey, readerOf } from '../../query/index.js';
import { readBody, readRequiredString } from '../payload.js';
import { readContext, requestQuery } from '../read-context.js';
import { ItemsService } from '../../items/items-service.js';
import { requireUser } from '../require-user.js';
import { requireItem, type ItemWriteDeps } from './item-writes.js';

const USERS = 'svc_users';

/**
 * The current user's routes under /users: read and update
 * their own row with their own permissions, and track the page they are on. All need a user
 * (401 INVALID_CREDENTIALS otherwise).
 */
export function usersMeRoutes(deps: ItemWriteDeps): Router {
  const router = Router();

  router.get('/me', async (req, res) => {
    const user = requireUser(req);
    const ctx = await readContext(deps, req);
    const reader = await readerOf(deps, ctx.overview, req.accountability);
    try {
      res.json({ data: await readItemByKey(ctx, USERS, user, requestQuery(req), reader) });
    } catch (error) {
      // A user who may not read their row still learns who they are.
      if (!(error instanceof ForbiddenError)) throw error;
      res.json({ data: { id: user } });
    }
  });

  router.patch('/me', async (req, res) => {
    const user = requireUser(req);
    const query = requestQuery(req);
    const items = new ItemsService(USERS, deps, { accountability: req.accountability });
    // Their own row: no collection-wide permission first, the write's item rules decide.
    const keys = await handleUpdate(
      { kind: 'update', collection: USERS, keys: [user], data: requireItem(req.body) },
      await items.commandContext(),
    );
    const written = await items.readWritten(keys, query, 'one');
    if (written === null) res.status(204).end();
    else res.json({ data: written });
  });

  router.patch('/me/track/page', async (req, res) => {
    const user = requireUser(req);
    const page = readRequiredString(readBody(req), 'last_page');
    if (page.length > LAST_PAGE_MAX_LENGTH) {
      throw new InvalidPayloadError(
        `"last_page" length must be less than or equal to ${LAST_PAGE_MAX_LENGTH} characters long`,
      );
    }
    await trackLastPage(deps.db, user, page);
    res.status(204).end();
  });

  return router;
}
