import type { RequestHandler } from 'express';
import { RouteNotFoundError } from '../errors.js';

/**
 * A URL path segment percent-decoded, or undefined when it is not valid percent-encoding of
 * UTF-8 (`%`, `%ff`, `%ED%A0%80`: an encoded surrogate): the one decoding of paths, for the
 * Express app and for fast-path.ts.
 */
export function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * A path that does not decode names no route: ROUTE_NOT_FOUND before any router, whose own
 * decoding (Express's `decode_param`) would fail with a plain error, a 500. No item or file
 * can have such a key, so the answer is the same for every caller and tells nothing.
 */
export const refuseUndecodablePaths: RequestHandler = (req, _res, next) => {
  if (decodePathSegment(req.path) === undefined) next(new RouteNotFoundError(req.path));
  else next();
};
