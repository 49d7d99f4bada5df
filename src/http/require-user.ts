import type { Request } from 'express';
import { InvalidCredentialsError } from '../errors.js';

/** Routes for logged-in users: the caller's user id, else 401 INVALID_CREDENTIALS. */
export function requireUser(req: Request): string {
  const { user } = req.accountability;
  if (user === null) throw new InvalidCredentialsError();
  return user;
}
