import type { Request } from 'express';
import { ForbiddenError } from '../errors.js';

/** Routes for administrators only: anyone else gets 403 FORBIDDEN. */
export function requireAdmin(req: Request): void {
  if (!req.accountability.admin) throw new ForbiddenError();
}
