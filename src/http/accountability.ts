import type { Request, RequestHandler } from 'express';
import type { Knex } from 'knex';
import type { PermissionStore } from '../access/permission-store.js';
import type { StaticTokenUsers } from '../auth/static-token-users.js';
import type { SchemaCache } from '../cache/schema-cache.js';
import type { Config } from '../config/index.js';
import { authenticate, type RequestOrigin } from '../auth/authenticate.js';
import { InvalidPayloadError } from '../errors.js';

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
  const lookups = {
    ipAccessOf: async (role: string) => permissions.ipAccessOf(role, (await schema.getOverview()).version),
    userByStaticToken: (token: string) => staticTokens.find(token),
  };
  return async (req, _res, next) => {
    req.accountability = await authenticate(db, config.secret, readToken(req, config), requestOrigin(config, req), lookups);
    next();
  };
}

/** The caller's IP (IP_CUSTOM_HEADER, else Express's `trust proxy` view), user agent and origin. */
export function requestOrigin(config: Config, req: Request): RequestOrigin {
  const customIp = config.ipCustomHeader === false ? undefined : req.get(config.ipCustomHeader);
  return { ip: customIp ?? req.ip ?? null, userAgent: req.get('user-agent') ?? null, origin: req.get('origin') ?? null };
}

/** A cookie's value, or undefined when absent or empty. */
export function readCookie(req: Request, name: string): string | undefined {
  const value: unknown = (req.cookies as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function readToken(req: Request, config: Config): string | undefined {
  const fromQuery = req.query['access_token'];
  const fromHeader = /^bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1]?.trim();
  const query = typeof fromQuery === 'string' && fromQuery !== '' ? fromQuery : undefined;
  const header = fromHeader === '' ? undefined : fromHeader;
  if (query !== undefined && header !== undefined) {
    throw new InvalidPayloadError('The request uses more than one method for including an access token');
  }
  return query ?? header ?? readCookie(req, config.sessionCookie.name);
}
