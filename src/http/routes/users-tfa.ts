import { Router } from 'express';
import { disableTfa, disableTfaOf, enableTfa, generateTfa, type TfaStore } from '../../auth/tfa.js';
import { ForbiddenError } from '../../errors.js';
import { readBody, readRequiredString } from '../payload.js';
import { requireUser } from '../require-user.js';

/**
 * Two-factor routes under /users.
 * The `me` routes need a user (401 INVALID_CREDENTIALS otherwise) and no update permission:
 * roles with enforce_tfa must be able to use them.
 */
export function usersTfaRoutes(store: TfaStore): Router {
  const { db } = store;
  const router = Router();

  router.post('/me/tfa/generate', async (req, res) => {
    const user = requireUser(req);
    const password = readRequiredString(readBody(req), 'password');
    res.json({ data: await generateTfa(db, user, password) });
  });

  router.post('/me/tfa/enable', async (req, res) => {
    const user = requireUser(req);
    const body = readBody(req);
    const secret = readRequiredString(body, 'secret');
    await enableTfa(store, user, secret, readRequiredString(body, 'otp'));
    res.status(204).end();
  });

  router.post('/me/tfa/disable', async (req, res) => {
    const user = requireUser(req);
    await disableTfa(store, user, readRequiredString(readBody(req), 'otp'));
    res.status(204).end();
  });

  router.post('/:id/tfa/disable', async (req, res) => {
    if (!req.accountability.admin) throw new ForbiddenError();
    await disableTfaOf(store, req.params['id']);
    res.status(204).end();
  });

  return router;
}
