import type { IncomingMessage } from 'node:http';
import type { RequestOrigin } from '../access/accountability.js';
import type { Config } from '../config/index.js';
import { clientIp } from './client-ip.js';

/**
 * The pieces of a request the authenticate step reads (request-pipeline.ts), also used by the
 * auth routes and the WebSocket upgrade.
 */

/** The caller's IP (`clientIp`: IP_TRUST_PROXY, IP_CUSTOM_HEADER), user agent and origin. */
export function requestOrigin(config: Config, req: IncomingMessage): RequestOrigin {
  const { headers } = req;
  return { ip: clientIp(config, req), userAgent: headers['user-agent'] ?? null, origin: headers.origin ?? null };
}

/** The token of an `Authorization: Bearer <token>` header; undefined without one. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const token = /^bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
  return token === '' ? undefined : token;
}

/** A cookie's value (cookie-parser's `req.cookies`), or undefined when absent or empty. */
export function readCookie(req: { readonly cookies?: unknown }, name: string): string | undefined {
  const value: unknown = (req.cookies as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
