import type { Request, RequestHandler } from 'express';
import type { IncomingMessage } from 'node:http';
import type { Knex } from 'knex';
import type { PermissionStore } from '../access/permission-store.js';
import type { StaticTokenUsers } from '../auth/static-token-users.js';
import type { SchemaCache } from '../cache/schema-cache.js';
import type { Config } from '../config/index.js';
import { authenticate, type AuthLookups, type RequestOrigin } from '../auth/authenticate.js';
import { InvalidPayloadError } from '../errors.js';
import { requestOverview } from './request-overview.js';

/**
 * Sets `req.accountability` from the access token (reference/auth.md, "Where the token is
 * read"): the `access_token` query parameter or `Authorization: Bearer`, never both, else the
 * session cookie. Needs cookie-parser before it.
 */
export function resolveAccountability(
  config: Config,
  db: Knex,
  permissions: PermissionStore,
  schema: SchemaCache,
  staticTokens: StaticTokenUsers,
): RequestHandler {
  return async (req, _res, next) => {
    const lookups = authLookups(permissions, schema, staticTokens, req);
    req.accountability = await authenticate(db, config.secret, readToken(req, config), requestOrigin(config, req), lookups);
    next();
  };
}

/**
 * What authenticating `req` reads through caches: role ip_access per schema version (of the
 * request's overview), static tokens' users.
 */
export function authLookups(
  permissions: PermissionStore,
  schema: SchemaCache,
  staticTokens: StaticTokenUsers,
  req: IncomingMessage,
): AuthLookups {
  return {
    ipAccessOf: async (role: string) => permissions.ipAccessOf(role, (await requestOverview(req, schema)).version),
    userByStaticToken: (token: string) => staticTokens.find(token),
  };
}

/** The caller's IP (IP_CUSTOM_HEADER, else Express's `trust proxy` view), user agent and origin. */
export function requestOrigin(config: Config, req: Request): RequestOrigin {
  const customIp = config.ipCustomHeader === false ? undefined : req.get(config.ipCustomHeader);
  return { ip: customIp ?? req.ip ?? null, userAgent: req.get('user-agent') ?? null, origin: req.get('origin') ?? null };
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
