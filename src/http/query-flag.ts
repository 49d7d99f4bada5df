import type { Request } from 'express';
import { InvalidQueryError } from '../errors.js';

/** `?name`, `?name=true` or `?name=1`: on; absent, `false` or `0`: off; anything else INVALID_QUERY. */
export function queryFlag(req: Request, name: string): boolean {
  const value = req.query[name];
  if (value === undefined || value === 'false' || value === '0') return false;
  if (value === '' || value === 'true' || value === '1') return true;
  throw new InvalidQueryError(`"${name}" must be true or false`);
}
