import { Router } from 'express';
import type { Mailer } from '../../auth/mailer.js';
import { InvalidPayloadError, ServiceUnavailableError } from '../../errors.js';
import { requireAdmin } from '../require-admin.js';

/** A plain address check: the mailer's transport gives the real answer. */
const ADDRESS = /^[^\s@]+@[^\s@]+$/;

/**
 * POST /utils/mail/test `{to}`: admin only; sends one short mail through the configured
 * mailer (EMAIL_TRANSPORT), so an administrator sees that mail leaves. A transport that
 * fails answers 503 SERVICE_UNAVAILABLE with its reason.
 */
export function utilsMailRoutes(deps: {
  readonly mailer: Mailer;
  readonly projectName: () => Promise<string>;
}): Router {
  const router = Router();
  router.post('/test', async (req, res) => {
    requireAdmin(req);
    const to = (req.body as { to?: unknown } | undefined)?.to;
    if (typeof to !== 'string' || !ADDRESS.test(to)) throw new InvalidPayloadError('"to" must be an e-mail address');
    const project = await deps.projectName();
    const text = `This is a test mail from ${project}: its mail settings work.`;
    try {
      await deps.mailer.send({ to, subject: `Test mail from ${project}`, text, html: `<p>${escapeHtml(text)}</p>` });
    } catch (error) {
      throw new ServiceUnavailableError('email', error instanceof Error ? error.message : String(error));
    }
    res.status(204).end();
  });
  return router;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
