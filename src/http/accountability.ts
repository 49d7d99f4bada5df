import type { Request, RequestHandler } from 'express';
import type { Knex } from 'knex';
import type { Config } from '../config/index.js';
import { authenticate } from '../auth/authenticate.js';
import { InvalidPayloadError } from '../errors.js';

/**
 * Sets `req.accountability` from the access token (reference/auth.md, "Where the token is
 * read"): the `access_token` query parameter or `Authorization: Bearer`, never both.
 */
export function resolveAccountability(config: Config, db: Knex): RequestHandler {
  return async (req, _res, next) => {
    const customIp = config.ipCustomHeader === false ? undefined : req.get(config.ipCustomHeader);
    const origin = { ip: customIp ?? req.ip ?? null, userAgent: req.get('user-agent') ?? null, origin: req.get('origin') ?? null };
    req.accountability = await authenticate(db, config.secret, readToken(req), origin);
    next();
  };
}

function readToken(req: Request): string | undefined {
  const fromQuery = req.query['access_token'];
  const fromHeader = /^bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1]?.trim();
  const query = typeof fromQuery === 'string' && fromQuery !== '' ? fromQuery : undefined;
  const header = fromHeader === '' ? undefined : fromHeader;
  if (query !== undefined && header !== undefined) {
    throw new InvalidPayloadError('The request uses more than one method for including an access token');
  }
  return query ?? header;
}
