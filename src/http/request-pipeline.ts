import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import cookieParser from 'cookie-parser';
import type { Knex } from 'knex';
import type { Accountability } from '../access/accountability.js';
import { authenticate, type AuthLookups } from '../auth/authenticate.js';
import type { Config } from '../config/index.js';
import { InvalidPayloadError } from '../errors.js';
import { parseQueryString, queryOfSearch, type Query } from '../query/index.js';
import { bearerToken, readCookie, requestOrigin } from './accountability.js';
import { refuseForeignCookieRequest } from './csrf.js';

/**
 * The steps every request goes through, whoever answers it (request-door.ts: the fast answers
 * of fast-path.ts or the Express app): authenticate -> parse -> route -> answer. Each step is
 * written once here and done at most once per request: its result is kept on the request, so
 * the Express middleware reads what the fast path already found (a read the fast path hands
 * over) and the reverse. Steps run when first asked for, never before: /server/ping, /auth
 * and the rate limiters answer without a caller.
 */

export interface AuthenticateDeps {
  readonly config: Config;
  readonly db: Knex;
  readonly auth: { readonly users: AuthLookups };
}

const CALLER = Symbol('request caller');
const PARAMS = Symbol('request query parameters');
const QUERY = Symbol('request query');

interface PipelineState {
  [CALLER]?: Promise<Accountability>;
  [PARAMS]?: Readonly<Record<string, unknown>>;
  [QUERY]?: Query;
  originalUrl?: string;
  cookies?: unknown;
}

type PipelineRequest = IncomingMessage & PipelineState;

/** Express's own cookie parser, run here when the token step needs the session cookie first. */
const parseCookies = cookieParser();

/**
 * Step 1, authenticate the caller of the request: the `access_token` query parameter or
 * `Authorization: Bearer`, never both, else the
 * session cookie (for a change, only from this service's origin: csrf.ts). Once per request; a refused token is the same refusal for every asker.
 */
export function authenticateRequest(deps: AuthenticateDeps, req: IncomingMessage): Promise<Accountability> {
  const state = req as PipelineRequest;
  const known = state[CALLER];
  if (known !== undefined) return known;
  return (state[CALLER] = callerOf(deps, state));
}

/** Not `async`: authenticate's own promise is the caller's, without another one around it. */
function callerOf(deps: AuthenticateDeps, req: PipelineRequest): Promise<Accountability> {
  const { config } = deps;
  let token: string | undefined;
  try {
    token = requestToken(req, config);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  return authenticate(deps.db, config.secret, token, requestOrigin(config, req), deps.auth.users);
}

function requestToken(req: PipelineRequest, config: Config): string | undefined {
  const fromQuery = mayNameParameter(requestSearch(req), TOKEN_PARAMETER)
    ? requestParams(req)['access_token']
    : undefined;
  const query = typeof fromQuery === 'string' && fromQuery !== '' ? fromQuery : undefined;
  const header = bearerToken(req.headers.authorization);
  if (query !== undefined && header !== undefined) {
    throw new InvalidPayloadError('The request uses more than one method for including an access token');
  }
  if (query !== undefined || header !== undefined) return query ?? header;
  if (req.headers.cookie === undefined) return undefined;
  if (req.cookies === undefined) parseCookies(req as never, {} as never, () => undefined);
  const session = readCookie(req, config.sessionCookie.name);
  // The browser adds the cookie whoever made it send the request: a change must be ours (csrf.ts).
  if (session !== undefined) refuseForeignCookieRequest(config, req);
  return session;
}

/** The Express middleware of step 1: `req.accountability` for the routes. */
export function resolveAccountability(deps: AuthenticateDeps): RequestHandler {
  return async (req, _res, next) => {
    req.accountability = await authenticateRequest(deps, req);
    next();
  };
}

/** The URL as the client sent it (Express rewrites `req.url` under mounted routers). */
function requestUrl(req: PipelineRequest): string {
  return req.originalUrl ?? req.url ?? '';
}

/** The query string of the request, with its `?` ('' without one), as the client sent it. */
export function requestSearch(req: IncomingMessage): string {
  const url = requestUrl(req);
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start);
}

/**
 * Whether the query string may have a parameter whose name starts with one of `names`, spelled
 * plainly or percent-encoded: a look that spares most requests parsing all of it (qs) for
 * parameters they do not have. True is a maybe: `requestParams` says.
 */
export function mayNameParameter(search: string, names: readonly string[]): boolean {
  if (search === '') return false;
  for (const name of names) if (search.includes(name)) return true;
  if (!ENCODED_NAME.test(search)) return false;
  return search
    .slice(1)
    .split('&')
    .some((piece) => {
      const key = piece.split('=', 1)[0] ?? '';
      if (!key.includes('%')) return false;
      const decoded = safeDecode(key);
      return names.some((name) => decoded.startsWith(name));
    });
}

const TOKEN_PARAMETER = ['access_token'] as const;
/** A parameter whose name (not only its value) is percent-encoded. */
const ENCODED_NAME = /(?:^|[?&])[^&=%]*%/;

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Step 2, parse: the raw parameters of the query string (qs), once per request. */
export function requestParams(req: IncomingMessage): Readonly<Record<string, unknown>> {
  const state = req as PipelineRequest;
  const known = state[PARAMS];
  if (known !== undefined) return known;
  return (state[PARAMS] = parseQueryString(requestSearch(req)));
}

/** Step 2, parse: the global query of the query string, once per request. */
export function requestQuery(req: IncomingMessage): Query {
  const state = req as PipelineRequest;
  const known = state[QUERY];
  if (known !== undefined) return known;
  return (state[QUERY] = queryOfSearch(requestSearch(req)));
}
