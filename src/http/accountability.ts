import type { Request, RequestHandler } from 'express';
import type { IncomingMessage } from 'node:http';
import type { Knex } from 'knex';
import type { Config } from '../config/index.js';
import { authenticate, type AuthLookups, type RequestOrigin } from '../auth/authenticate.js';
import { InvalidPayloadError } from '../errors.js';
import { clientIp } from './client-ip.js';

/**
 * Sets `req.accountability` from the access token (reference/auth.md, "Where the token is
 * read"): the `access_token` query parameter or `Authorization: Bearer`, never both, else the
 * session cookie. Needs cookie-parser before it.
 */
export function resolveAccountability(config: Config, db: Knex, users: AuthLookups): RequestHandler {
  return async (req, _res, next) => {
    req.accountability = await authenticate(
      db,
      config.secret,
      readToken(req, config),
      requestOrigin(config, req),
      users,
    );
    next();
  };
}

/** The caller's IP (`clientIp`: IP_TRUST_PROXY, IP_CUSTOM_HEADER), user agent and origin. */
export function requestOrigin(config: Config, req: IncomingMessage): RequestOrigin {
  const { headers } = req;
  return { ip: clientIp(config, req), userAgent: headers['user-agent'] ?? null, origin: headers.origin ?? null };
}

/**
 * Whether the query string can name `access_token`: `req.query` parses all of it (qs) on
 * every access, which most requests need not pay for here.
 */
export function mayHaveQueryToken(url: string): boolean {
  const start = url.indexOf('?');
  if (start === -1) return false;
  const search = url.slice(start);
  return search.includes('access_token') || search.includes('%');
}

/** The token of an `Authorization: Bearer <token>` header; undefined without one. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const token = /^bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
  return token === '' ? undefined : token;
}

/** A cookie's value, or undefined when absent or empty. */
export function readCookie(req: Request, name: string): string | undefined {
  const value: unknown = (req.cookies as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function readToken(req: Request, config: Config): string | undefined {
  const fromQuery = mayHaveQueryToken(req.url) ? req.query['access_token'] : undefined;
  const query = typeof fromQuery === 'string' && fromQuery !== '' ? fromQuery : undefined;
  const header = bearerToken(req.get('authorization'));
  if (query !== undefined && header !== undefined) {
    throw new InvalidPayloadError('The request uses more than one method for including an access token');
  }
  return query ?? header ?? readCookie(req, config.sessionCookie.name);
}
